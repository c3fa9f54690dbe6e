"""Edit an agent config (the workspace `agents` documents): signature, instruction,
catalog filters, context-map settings, relevance ranking and step limits.

Validation is the engine's own (`agent_config_from_json`): the dialog shows its message,
naming the field, and keeps the dialog open. The signature is also checked against both
runtimes (`signature_refusals`): what @ax-llm/ax refuses is shown under it as the user
types (a TypeScript app would not build the agent), what axllm refuses keeps the dialog
open (the studio could not run it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QWidget,
)

from axmem_gui.core.catalog import label
from axmem_gui.core.errors import InputError
from axmem_gui.core.session.agent_config import (
    DEFAULT_MAX_ACTOR_STEPS,
    DIRECT_RESPONSE_MODES,
    agent_config_from_json,
)
from axmem_gui.services.agents import signature_refusals
from axmem_gui.ui.form_dialog import FormDialog, split_list
from axmem_gui.ui.inert_text import plain_label
from axmem_gui.ui.pages import monospace_font

NEW_AGENT: dict[str, Any] = {
    "name": "",
    "signature": "userRequest:string -> answer:string",
    "instruction": "",
    "catalog": {"skills": "all", "memories": "all"},
    "contextMap": {"maxChars": 4000, "infiniteEvolve": True},
    "relevanceRanking": True,
    "maxActorSteps": DEFAULT_MAX_ACTOR_STEPS,
    "runtime": "quickjs",
    "directResponse": "auto",
}


class CatalogFilterField(QWidget):
    """ "all", "none" or a tag list."""

    def __init__(self) -> None:
        super().__init__()
        self.mode = QComboBox()
        self.mode.addItem("all entries", "all")
        self.mode.addItem("none", "none")
        self.mode.addItem("entries with a tag", "tags")
        self.tags = QLineEdit()
        self.tags.setPlaceholderText("tags, comma separated")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.mode)
        layout.addWidget(self.tags, 1)
        self.mode.currentIndexChanged.connect(
            lambda *_: self.tags.setEnabled(self.mode.currentData() == "tags")
        )

    def set_value(self, value: Any) -> None:
        if isinstance(value, Mapping):
            self.mode.setCurrentIndex(self.mode.findData("tags"))
            self.tags.setText(", ".join(str(t) for t in value.get("tags") or []))
        else:
            self.mode.setCurrentIndex(max(0, self.mode.findData(value or "all")))
        self.tags.setEnabled(self.mode.currentData() == "tags")

    def value(self) -> Any:
        mode = self.mode.currentData()
        return {"tags": split_list(self.tags.text(), at_spaces=True)} if mode == "tags" else mode


class AgentConfigDialog(FormDialog):
    def __init__(
        self,
        value: Mapping[str, Any] | None,
        taken_names: list[str],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent, "Agent config")
        self._original = dict(value or NEW_AGENT)
        self._taken = set(taken_names) - {str(self._original.get("name") or "")}
        self.result_value: dict[str, Any] | None = None

        self.name = QLineEdit()
        self.signature = QLineEdit()
        self.signature.setFont(monospace_font())
        self.signature.setPlaceholderText("userRequest:string -> answer:string")
        self.signature_note = plain_label()
        self.signature_note.setObjectName("signatureRuntimes")
        self.signature_note.setWordWrap(True)
        self.signature_note.setVisible(False)
        self.signature.textChanged.connect(self._show_refusals)
        self.instruction = QPlainTextEdit()
        self.instruction.setTabChangesFocus(True)
        self.context_fields = QLineEdit()
        self.context_fields.setPlaceholderText("input fields kept out of the prompt, e.g. document")
        self.skills = CatalogFilterField()
        self.memories = CatalogFilterField()
        self.map_group = QGroupBox("Context map")
        self.map_group.setCheckable(True)
        self.max_chars = QSpinBox()
        self.max_chars.setRange(1, 1_000_000)
        self.infinite = QCheckBox("infinite evolve (keep updating after every forward)")
        self.evolve_steps = QSpinBox()
        self.evolve_steps.setRange(0, 10_000)
        self.infinite.toggled.connect(lambda on: self.evolve_steps.setEnabled(not on))
        map_form = QFormLayout(self.map_group)
        map_form.addRow("maxChars", self.max_chars)
        map_form.addRow("", self.infinite)
        map_form.addRow("evolveSteps", self.evolve_steps)
        self.relevance = QCheckBox("relevance ranking of loaded memories")
        self.max_steps = QSpinBox()
        self.max_steps.setRange(1, 200)
        self.direct = QComboBox()
        self.direct.addItems(list(DIRECT_RESPONSE_MODES))
        self.error = self.problem

        form = self.form
        form.addRow("Name", self.name)
        form.addRow("Signature", self.signature)
        form.addRow("", self.signature_note)
        form.addRow("Instruction", self.instruction)
        form.addRow("Context fields", self.context_fields)
        form.addRow(label("skills"), self.skills)
        form.addRow(label("memories"), self.memories)
        form.addRow("", self.map_group)
        form.addRow("", self.relevance)
        form.addRow("Max actor steps", self.max_steps)
        form.addRow("Direct response", self.direct)
        self.resize(620, 640)
        self._load(self._original)

    @classmethod
    def ask(
        cls, parent: QWidget | None, value: Mapping[str, Any] | None, taken_names: list[str]
    ) -> dict[str, Any] | None:
        """The edited (validated) config JSON, or None when cancelled."""
        dialog = cls(value, taken_names, parent)
        return dialog.result_value if dialog.exec() == QDialog.DialogCode.Accepted else None

    def _load(self, value: Mapping[str, Any]) -> None:
        self.name.setText(str(value.get("name") or ""))
        self.signature.setText(str(value.get("signature") or ""))
        self.instruction.setPlainText(str(value.get("instruction") or ""))
        self.context_fields.setText(", ".join(value.get("contextFields") or []))
        catalog = value.get("catalog") if isinstance(value.get("catalog"), Mapping) else {}
        assert isinstance(catalog, Mapping)
        self.skills.set_value(catalog.get("skills"))
        self.memories.set_value(catalog.get("memories"))
        cmap = value.get("contextMap")
        self.map_group.setChecked(isinstance(cmap, Mapping) and cmap.get("enabled") is not False)
        cmap = cmap if isinstance(cmap, Mapping) else {}
        self.max_chars.setValue(int(cmap.get("maxChars") or 4000))
        self.infinite.setChecked(cmap.get("infiniteEvolve", True) is not False)
        self.evolve_steps.setValue(int(cmap.get("evolveSteps") or 0))
        self.evolve_steps.setEnabled(not self.infinite.isChecked())
        self.relevance.setChecked(value.get("relevanceRanking", True) is not False)
        self.max_steps.setValue(int(value.get("maxActorSteps") or DEFAULT_MAX_ACTOR_STEPS))
        self.direct.setCurrentText(str(value.get("directResponse") or "auto"))

    def value(self) -> dict[str, Any]:
        """The form as agent JSON; keys this form does not edit are kept as they were."""
        out = dict(self._original)
        relevance = self._original.get("relevanceRanking")
        if self.relevance.isChecked():
            relevance = relevance if isinstance(relevance, Mapping) else True
        else:
            relevance = False
        cmap: dict[str, Any] | None = None
        if self.map_group.isChecked():
            cmap = {"maxChars": self.max_chars.value(), "infiniteEvolve": self.infinite.isChecked()}
            if not self.infinite.isChecked():
                cmap["evolveSteps"] = self.evolve_steps.value()
        out.update(
            {
                "name": self.name.text().strip(),
                "signature": self.signature.text().strip(),
                "instruction": self.instruction.toPlainText(),
                "contextFields": split_list(self.context_fields.text(), at_spaces=True),
                "catalog": {"skills": self.skills.value(), "memories": self.memories.value()},
                "contextMap": cmap,
                "relevanceRanking": relevance,
                "maxActorSteps": self.max_steps.value(),
                "directResponse": self.direct.currentText(),
            }
        )
        out.setdefault("runtime", "quickjs")
        return out

    def _show_refusals(self) -> None:
        """What each runtime refuses in the signature as typed (nothing while it does not
        parse: the Save check says why)."""
        try:
            refusals = signature_refusals(self.signature.text().strip())
        except InputError:
            refusals = []
        self.signature_note.setText("\n".join(map(str, refusals)))
        self.signature_note.setVisible(bool(refusals))

    def check(self) -> None:
        value = self.value()
        if not value["name"]:
            raise InputError("Name: give the agent a name.")
        if value["name"] in self._taken:
            raise InputError(f"Name: an agent named '{value['name']}' already exists.")
        agent_config_from_json(value, "agent")
        for refusal in signature_refusals(value["signature"]):
            if refusal.runtime.startswith("axllm"):
                raise InputError(f"Signature: {refusal}; the studio runs agents with it.")

    def validate(self) -> dict[str, Any] | None:
        """The form as agent JSON when it is valid, else None (the problem is shown)."""
        return self.value() if self.checked() else None

    def accept(self) -> None:
        self.result_value = self.validate()
        if self.result_value is not None:
            QDialog.accept(self)
