"""Edit an agent config (the workspace `agents` documents): signature, instruction,
catalog filters, context-map settings, relevance ranking and step limits.

The dialog edits an `AgentConfig` and gives one back; what the form does not show (Ax's
relevance options, keys a newer axmem wrote) is kept from the config it started from.
Validation is the parser's own (`agent_config_from_json`): the dialog shows its message,
naming the field, and keeps the dialog open. The signature is also checked against both
runtimes (`signature_refusals`): what @ax-llm/ax refuses is shown under it as the user
types (a TypeScript app would not build the agent), what axllm refuses keeps the dialog
open (the studio could not run it).
"""

from __future__ import annotations

import dataclasses

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
    DIRECT_RESPONSE_MODES,
    AgentConfig,
    CatalogFilter,
    ContextMapSettings,
    agent_config_from_json,
)
from axmem_gui.services.agents import signature_refusals
from axmem_gui.ui.form_dialog import FormDialog, split_list
from axmem_gui.ui.inert_text import plain_label
from axmem_gui.ui.pages import monospace_font

NEW_AGENT = AgentConfig(
    name="",
    signature="userRequest:string -> answer:string",
    context_map=ContextMapSettings(max_chars=4000, infinite_evolve=True),
)


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

    def set_value(self, value: CatalogFilter) -> None:
        self.mode.setCurrentIndex(max(0, self.mode.findData(value.mode)))
        self.tags.setText(", ".join(value.tags))
        self.tags.setEnabled(self.mode.currentData() == "tags")

    def value(self) -> CatalogFilter:
        mode = str(self.mode.currentData())
        if mode == "tags":
            return CatalogFilter("tags", tuple(split_list(self.tags.text(), at_spaces=True)))
        return CatalogFilter(mode)


class AgentConfigDialog(FormDialog):
    def __init__(
        self,
        value: AgentConfig | None,
        taken_names: list[str],
        parent: QWidget | None = None,
        *,
        name: str = "",
        problem: str = "",
    ) -> None:
        super().__init__(parent, "Agent config")
        self._original = value or dataclasses.replace(NEW_AGENT, name=name)
        self._taken = set(taken_names) - {self._original.name}
        self.result_value: AgentConfig | None = None

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
        if problem:
            self.error.setText(f"The stored config cannot be read ({problem}); saving replaces it.")

    @classmethod
    def ask(
        cls,
        parent: QWidget | None,
        value: AgentConfig | None,
        taken_names: list[str],
        *,
        name: str = "",
        problem: str = "",
    ) -> AgentConfig | None:
        """The edited (validated) config, or None when cancelled. `problem`: why the
        stored config named `name` could not be read (the form starts from the defaults)."""
        dialog = cls(value, taken_names, parent, name=name, problem=problem)
        return dialog.result_value if dialog.exec() == QDialog.DialogCode.Accepted else None

    def _load(self, config: AgentConfig) -> None:
        self.name.setText(config.name)
        self.signature.setText(config.signature)
        self.instruction.setPlainText(config.instruction)
        self.context_fields.setText(", ".join(config.context_fields))
        self.skills.set_value(config.skills)
        self.memories.set_value(config.memories)
        cmap = config.context_map
        self.map_group.setChecked(cmap is not None)
        shown = cmap or ContextMapSettings()
        self.max_chars.setValue(shown.max_chars)
        self.infinite.setChecked(shown.infinite_evolve)
        self.evolve_steps.setValue(shown.evolve_steps or 0)
        self.evolve_steps.setEnabled(not self.infinite.isChecked())
        self.relevance.setChecked(config.relevance_ranking is not False)
        self.max_steps.setValue(config.max_actor_steps)
        self.direct.setCurrentText(config.direct_response)

    def value(self) -> AgentConfig:
        """The form as a config; what the form does not edit is kept as it was."""
        relevance = self._original.relevance_ranking
        if self.relevance.isChecked():
            relevance = relevance if not isinstance(relevance, bool) else True
        else:
            relevance = False
        cmap = None
        if self.map_group.isChecked():
            infinite = self.infinite.isChecked()
            steps = None if infinite else self.evolve_steps.value()
            cmap = ContextMapSettings(self.max_chars.value(), infinite, steps)
        return dataclasses.replace(
            self._original,
            name=self.name.text().strip(),
            signature=self.signature.text().strip(),
            instruction=self.instruction.toPlainText(),
            context_fields=tuple(split_list(self.context_fields.text(), at_spaces=True)),
            skills=self.skills.value(),
            memories=self.memories.value(),
            context_map=cmap,
            relevance_ranking=relevance,
            max_actor_steps=self.max_steps.value(),
            direct_response=self.direct.currentText(),
        )

    def _show_refusals(self) -> None:
        """What each runtime refuses in the signature as typed (nothing while it does not
        parse: the Save check says why)."""
        try:
            refusals = signature_refusals(self.signature.text().strip())
        except InputError:
            refusals = []
        self.signature_note.setText("\n".join(map(str, refusals)))
        self.signature_note.setVisible(bool(refusals))

    def checked_value(self) -> AgentConfig:
        """The form's config as the parser reads it; InputError names what is wrong."""
        value = self.value()
        if not value.name:
            raise InputError("Name: give the agent a name.")
        if value.name in self._taken:
            raise InputError(f"Name: an agent named '{value.name}' already exists.")
        config = agent_config_from_json(value.to_json(), "agent")
        for refusal in signature_refusals(config.signature):
            if refusal.runtime.startswith("axllm"):
                raise InputError(f"Signature: {refusal}; the studio runs agents with it.")
        return config

    def check(self) -> None:
        self.checked_value()

    def validate(self) -> AgentConfig | None:
        """The form's config when it is valid, else None (the problem is shown)."""
        return self.checked_value() if self.checked() else None

    def accept(self) -> None:
        self.result_value = self.validate()
        if self.result_value is not None:
            QDialog.accept(self)
