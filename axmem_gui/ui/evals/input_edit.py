"""One input value of an eval case, in the case dialog: a string is edited as its text, any
other JSON value (a number, true/false, a list, an object, null) as JSON, so a value keeps
its type through the dialog. A value shown and left alone comes back as the very value it
was (Qt may change a text it shows, and JSON written again may differ from the stored
spelling), so saving a case unchanged writes nothing new."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QPlainTextEdit, QVBoxLayout, QWidget

from axmem_gui.core.errors import InputError
from axmem_gui.core.jsontext import error_message, parse
from axmem_gui.core.jsout import json_dumps
from axmem_gui.ui.form_dialog import problem_label
from axmem_gui.ui.pages import monospace_font

JSON_EXAMPLES = '3, true, ["a", "b"], {"k": 1} or null'
_NOT_JSON = object()
#: What `InputValueEdit.value` gives for an optional input left empty: the case leaves it
#: out (axllm refuses "" where a number is wanted, and null for a required input).
ABSENT = object()


class InputValueEdit(QWidget):
    """The value of input `field`: a text box, a JSON switch beside it and, under it, what
    is wrong with the JSON (hidden while it parses). `changed` fires on every edit."""

    changed = Signal()

    def __init__(
        self, field: str, lines: int, parent: QWidget | None = None, *, optional: bool = False
    ) -> None:
        super().__init__(parent)
        self.field = field
        self.optional = optional
        self.text = QPlainTextEdit()
        self.text.setObjectName(f"evalCaseInput_{field}")
        self.text.setTabChangesFocus(True)
        self.text.setFixedHeight(self.text.fontMetrics().lineSpacing() * lines + 12)
        self.json_box = QCheckBox("JSON")
        self.json_box.setObjectName(f"evalCaseInputJson_{field}")
        self.json_box.setToolTip(f"Give '{field}' a JSON value ({JSON_EXAMPLES}) instead of text")
        self.error = problem_label()
        self.error.setVisible(False)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.text, 1)
        row.addWidget(self.json_box)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(row)
        layout.addWidget(self.error)
        self._original: Any = ""
        self._shown: tuple[bool, str] | None = None  # (as JSON, text) right after set_value
        self._style(False)
        self.text.textChanged.connect(self._on_edit)
        self.json_box.toggled.connect(self._on_switch)

    @property
    def as_json(self) -> bool:
        return self.json_box.isChecked()

    def start_as_json(self) -> None:
        """A new case's input whose type is not text (the agent's signature says number,
        boolean, a list or JSON): typed as JSON from the first key."""
        self.json_box.blockSignals(True)
        self.json_box.setChecked(True)
        self.json_box.blockSignals(False)
        self._style(True)

    def set_value(self, value: Any) -> None:
        as_json = not isinstance(value, str)
        self.json_box.blockSignals(True)
        self.json_box.setChecked(as_json)
        self.json_box.blockSignals(False)
        self._style(as_json)
        self.text.setPlainText(json_dumps(value) if as_json else value)
        self._original = value
        # What Qt holds now (it may differ from `value`: line breaks, lone surrogates).
        self._shown = (as_json, self.text.toPlainText())
        self._on_edit()

    def value(self) -> Any:
        """The value as edited; InputError names the input when its JSON does not parse."""
        text = self.text.toPlainText()
        if self._shown == (self.as_json, text):
            return self._original
        if self.optional and not text:
            return ABSENT
        if not self.as_json:
            return text
        if not text.strip():
            raise InputError(
                f"input '{self.field}': empty; write a JSON value ({JSON_EXAMPLES}), "
                "or untick JSON for text"
            )
        try:
            return parse(text)
        except ValueError as exc:
            raise InputError(f"input '{self.field}': {error_message(exc)}") from None

    def problem(self) -> str:
        try:
            self.value()
        except InputError as exc:
            return str(exc)
        return ""

    def _on_edit(self) -> None:
        problem = self.problem()
        self.error.setText(problem)
        self.error.setVisible(bool(problem))
        self.changed.emit()

    def _on_switch(self, as_json: bool) -> None:
        """What the user most likely means, and switching back and forth is no edit: text
        that is JSON already (`42`, `[1, 2]`) is taken as that value, other text becomes a
        JSON string; JSON that holds a string becomes that string's text, other JSON stays
        as written (now a string)."""
        text = self.text.toPlainText()
        try:
            value: Any = parse(text)
        except ValueError:
            value = _NOT_JSON
        if as_json:
            converted = text if value is not _NOT_JSON else json_dumps(text)
        else:
            converted = value if isinstance(value, str) else text
        self._style(as_json)
        self.text.setPlainText(converted)
        self._on_edit()  # (the text may be the same: the problem may not)

    def _style(self, as_json: bool) -> None:
        self.text.setFont(monospace_font() if as_json else self.font())
        self.text.setPlaceholderText(
            (f"A JSON value: {JSON_EXAMPLES}" if as_json else (
                f"The user's {self.field}, as the agent receives it"
            ))
            + (" (optional: left empty, the case leaves it out)" if self.optional else "")
        )
