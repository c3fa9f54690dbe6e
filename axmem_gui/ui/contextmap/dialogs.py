"""Dialogs of the context-map view, each behind an `ask` classmethod tests replace."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QInputDialog,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from axmem_gui.core.contextmap import SECTIONS, ContextMapState, MapShape
from axmem_gui.ui import file_dialogs
from axmem_gui.ui.inert_text import plain_label

IMPORT_FILTER = "Context map snapshots (*.json *.md *.txt);;All files (*)"
EXPORT_FILTERS = {
    "TS AxAgentContextMapSnapshot (*.json)": MapShape.TS_SNAPSHOT,
    "axllm context_map dict (*.json)": MapShape.AXLLM,
}


@dataclass(frozen=True)
class ImportRequest:
    path: Path
    agent: str


class ImportSnapshotDialog:
    @classmethod
    def ask(
        cls, parent: QWidget | None, start: str, agents: list[str], current: str | None
    ) -> ImportRequest | None:
        name, _ = file_dialogs.get_open_file_name(
            parent, "Import context map snapshot", start, IMPORT_FILTER
        )
        if not name:
            return None
        if current is not None:
            return ImportRequest(Path(name), current)
        agent, ok = QInputDialog.getItem(
            parent,
            "Import context map snapshot",
            "Agent config the snapshot belongs to:",
            agents or ["imported"],
            0,
            True,
        )
        return ImportRequest(Path(name), agent.strip() or "imported") if ok else None


class ExportSnapshotDialog:
    @classmethod
    def ask(
        cls, parent: QWidget | None, suggested: str, shape: MapShape
    ) -> tuple[Path, MapShape] | None:
        filters = list(EXPORT_FILTERS)
        preferred = next(f for f, s in EXPORT_FILTERS.items() if s is shape)
        name, chosen = file_dialogs.get_save_file_name(
            parent, "Export context map snapshot", suggested, ";;".join(filters), preferred
        )
        if not name:
            return None
        path = Path(name)
        if path.suffix.lower() != ".json":
            path = path.with_name(path.name + ".json")
        return path, EXPORT_FILTERS.get(chosen, shape)


class AddItemDialog(QDialog):
    def __init__(self, parent: QWidget | None, section: str | None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Add context map item")
        self.section = QComboBox()
        for s in SECTIONS:
            self.section.addItem(f"{s.title}  [{s.slug}]", s.name)
        if section is not None:
            self.section.setCurrentIndex(max(0, self.section.findData(section)))
        self.content = QLineEdit()
        self.content.setPlaceholderText("One line; Ax gives it the next id of the section")
        self.content.setMinimumWidth(420)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("Section", self.section)
        form.addRow("Text", self.content)
        form.addRow(buttons)

    @classmethod
    def ask(cls, parent: QWidget | None, section: str | None) -> tuple[str, str] | None:
        dialog = cls(parent, section)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        return str(dialog.section.currentData()), dialog.content.text()


@dataclass(frozen=True)
class EvolutionSettings:
    infinite_evolve: bool
    evolve_steps: int | None
    max_chars: int


class EvolutionDialog(QDialog):
    """Freeze or unfreeze the map (infiniteEvolve / evolveSteps) and set its budget."""

    def __init__(self, parent: QWidget | None, state: ContextMapState) -> None:
        super().__init__(parent)
        self.setWindowTitle("Context map evolution")
        self.infinite = QCheckBox("Keep evolving after every run (infiniteEvolve)")
        self.infinite.setChecked(state.infinite_evolve)
        self.steps = QSpinBox()
        self.steps.setRange(0, 1_000_000)
        self.steps.setValue(state.evolve_steps if state.evolve_steps is not None else state.steps)
        self.steps.setEnabled(not state.infinite_evolve)
        self.infinite.toggled.connect(lambda on: self.steps.setEnabled(not on))
        self.max_chars = QSpinBox()
        self.max_chars.setRange(1, 10_000_000)
        self.max_chars.setValue(state.max_chars)
        note = plain_label(
            f"Ax skips the update once steps ≥ evolveSteps; this map is at step {state.steps}, "
            f"so evolveSteps {state.steps} or less freezes it now."
        )
        note.setWordWrap(True)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow(self.infinite)
        form.addRow("evolveSteps", self.steps)
        form.addRow(note)
        form.addRow("maxChars", self.max_chars)
        form.addRow(buttons)

    @classmethod
    def ask(cls, parent: QWidget | None, state: ContextMapState) -> EvolutionSettings | None:
        dialog = cls(parent, state)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        infinite = dialog.infinite.isChecked()
        return EvolutionSettings(
            infinite, None if infinite else dialog.steps.value(), dialog.max_chars.value()
        )
