"""File > Export: choose a format and a target (a file, or a folder for SKILL.md folders),
and afterwards a clear account of what was written."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.formats import FORMATS, FormatName
from axmem_gui.services.transfer import ExportResult
from axmem_gui.ui import file_dialogs
from axmem_gui.ui.inert_text import inert, plain_label, plain_message_box
from axmem_gui.ui.lint.severity import plural
from axmem_gui.ui.resources import style_sheet

FORMAT_LABELS: dict[FormatName, str] = {
    "ax-json": "Ax catalog JSON (.json)",
    "ts": "TypeScript module (.ts)",
    "skills-dir": "SKILL.md folders (Agent Skills)",
    "jsonl": "JSON Lines memories (.jsonl)",
}
FORMAT_NOTES: dict[FormatName, str] = {
    "ax-json": "Skills and memories as `{ skillsCatalog, memoriesCatalog }`, ready for "
    "Ax's catalog options. SKILL.md extras (frontmatter keys, resource files) are dropped.",
    "ts": "A module exporting `skillsCatalog` and `memoriesCatalog` constants. SKILL.md "
    "extras are dropped.",
    "skills-dir": "One folder per skill with its SKILL.md and resource files; the memories "
    "go to memories.jsonl beside them.",
    "jsonl": "One memory per line. Skills are not written.",
}
DEFAULT_NAMES: dict[FormatName, str] = {
    "ax-json": "catalog.json",
    "ts": "catalog.ts",
    "skills-dir": "skills",
    "jsonl": "memories.jsonl",
}
FILE_FILTERS: dict[FormatName, str] = {
    "ax-json": "JSON (*.json);;All files (*)",
    "ts": "TypeScript (*.ts *.mts);;All files (*)",
    "jsonl": "JSON Lines (*.jsonl *.ndjson);;All files (*)",
}


#: The checkbox that allows replacing, named the way the dialog shows it.
REPLACE_LABEL = "Replace skill folders that already exist there"
REPLACE_HINT = (
    f"To replace them, export again and tick “{REPLACE_LABEL}”, or choose another folder."
)

#: The names a skills-dir export into a folder would replace there (checked on Export).
ClashFinder = Callable[[Path], list[str]]


@dataclass(frozen=True)
class ExportRequest:
    format: FormatName
    out: Path
    force: bool = False


def check_target(fmt: FormatName, text: str) -> str:
    """Why the target cannot be used ("" when it can)."""
    if not text.strip():
        return "Choose where to write the export."
    out = Path(text).expanduser()
    if fmt == "skills-dir":
        if out.exists() and not out.is_dir():
            return f"{out}: exists and is not a folder; SKILL.md folders need a folder."
    elif out.is_dir():
        return f"{out}: is a folder; give a file name."
    if not out.parent.is_dir():
        return f"{out.parent}: folder not found."
    return ""


class ExportDialog(QDialog):
    def __init__(
        self,
        start_dir: Path,
        fmt: FormatName = "ax-json",
        parent: QWidget | None = None,
        counts: tuple[int, int] = (0, 0),
        clashes: ClashFinder | None = None,
    ) -> None:
        super().__init__(parent)
        self._clashes = clashes
        self.setObjectName("exportDialog")
        self.setWindowTitle("Export catalog")
        self.setStyleSheet(style_sheet("transfer"))
        self.start_dir = start_dir
        skills, memories = counts
        intro = plain_label(
            f"Export the workspace's {plural(skills, 'skill')} and "
            f"{plural(memories, 'memory', 'memories')}."
        )
        self.format_combo = QComboBox()
        self.format_combo.setObjectName("formatCombo")
        for name in FORMATS:
            self.format_combo.addItem(FORMAT_LABELS[name], name)
        self.note_label = plain_label()
        self.note_label.setObjectName("formatNote")
        self.note_label.setWordWrap(True)
        self.path_edit = QLineEdit()
        self.path_edit.setObjectName("exportPath")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        path_row = QHBoxLayout()
        path_row.addWidget(self.path_edit, 1)
        path_row.addWidget(browse)
        self.force_check = QCheckBox(REPLACE_LABEL)
        self.problem_label = plain_label()
        self.problem_label.setObjectName("exportProblem")
        self.problem_label.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.export_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.export_button.setText("Export")
        self.buttons.accepted.connect(self._try_accept)
        self.buttons.rejected.connect(self.reject)

        form = QFormLayout()
        form.addRow("Format", self.format_combo)
        # The note wraps over several lines: in a form row of its own QFormLayout gives
        # it one line's height and clips it, so it sits in the outer layout.
        path_form = QFormLayout()
        path_form.addRow("Write to", path_row)
        path_form.addRow("", self.force_check)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.note_label)
        layout.addLayout(path_form)
        layout.addWidget(self.problem_label)
        layout.addWidget(self.buttons)
        self.format_combo.currentIndexChanged.connect(self._on_format)
        self.path_edit.textChanged.connect(lambda _t: self.problem_label.clear())
        self.format_combo.setCurrentIndex(FORMATS.index(fmt))
        self._on_format()
        self.resize(620, 0)

    @classmethod
    def ask(
        cls,
        parent: QWidget | None,
        start_dir: Path,
        fmt: FormatName = "ax-json",
        counts: tuple[int, int] = (0, 0),
        clashes: ClashFinder | None = None,
    ) -> ExportRequest | None:
        dialog = cls(start_dir, fmt, parent, counts, clashes)
        try:
            if dialog.exec() == QDialog.DialogCode.Accepted:
                return dialog.request()
            return None
        finally:
            dialog.deleteLater()

    def format(self) -> FormatName:
        return self.format_combo.currentData()  # type: ignore[no-any-return]

    def request(self) -> ExportRequest:
        fmt = self.format()
        force = fmt == "skills-dir" and self.force_check.isChecked()
        return ExportRequest(fmt, Path(self.path_edit.text().strip()).expanduser(), force)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_note()

    def _fit_note(self) -> None:
        """A top-level dialog does not grow for a wrapped label's extra lines by itself:
        reserve the height the note needs at its width."""
        note = self.note_label
        note.setMinimumHeight(0)
        needed = note.heightForWidth(max(note.width(), 200))
        if needed > 0 and note.minimumHeight() != needed:
            note.setMinimumHeight(needed)

    def _on_format(self, *_: object) -> None:
        fmt = self.format()
        self.note_label.setText(FORMAT_NOTES[fmt])
        self._fit_note()
        self.force_check.setVisible(fmt == "skills-dir")
        current = self.path_edit.text().strip()
        # Follow the format while the target is still one of the suggested names.
        if not current or Path(current).name in DEFAULT_NAMES.values():
            folder = Path(current).parent if current else self.start_dir
            self.path_edit.setText(str(folder / DEFAULT_NAMES[fmt]))

    def _browse(self) -> None:
        fmt = self.format()
        current = self.path_edit.text().strip() or str(self.start_dir / DEFAULT_NAMES[fmt])
        if fmt == "skills-dir":
            name = file_dialogs.get_existing_directory(
                self, "Export SKILL.md folders into", current
            )
        else:
            name, _ = file_dialogs.get_save_file_name(self, "Export to", current, FILE_FILTERS[fmt])
        if name:
            self.path_edit.setText(name)

    def _try_accept(self) -> None:
        problem = check_target(self.format(), self.path_edit.text())
        if not problem:
            problem = self._clash_problem()
        if problem:
            self.problem_label.setText(problem)
            return
        self.accept()

    def _clash_problem(self) -> str:
        request = self.request()
        if request.format != "skills-dir" or request.force or self._clashes is None:
            return ""
        found = self._clashes(request.out)
        if not found:
            return ""
        more = f" and {len(found) - 5:,} more" if len(found) > 5 else ""
        return (
            f"{request.out} already holds {', '.join(found[:5])}{more}. Tick “{REPLACE_LABEL}” "
            "to replace them, or choose another folder."
        )


def export_summary(result: ExportResult) -> str:
    what = {
        "ax-json": "Ax catalog JSON",
        "ts": "a TypeScript module",
        "skills-dir": "SKILL.md folders",
        "jsonl": "JSON Lines",
    }[result.format]
    counted = []
    if result.format != "jsonl":
        counted.append(plural(result.skills, "skill"))
    counted.append(plural(result.memories, "memory", "memories"))
    return f"Exported {' and '.join(counted)} as {what} to {result.out}"


def export_details(result: ExportResult, limit: int = 30) -> str:
    lines = [f"Written ({len(result.files):,}):"]
    lines += [f"  {f}" for f in result.files[:limit]]
    if len(result.files) > limit:
        lines.append(f"  … and {len(result.files) - limit:,} more")
    if result.warnings:
        lines.append("Warnings:")
        lines += [f"  {w}" for w in result.warnings]
    return "\n".join(lines)


class ExportResultDialog:
    """What an export wrote, and any warnings (dropped extras, skipped skills)."""

    @classmethod
    def show(cls, parent: QWidget | None, result: ExportResult) -> None:
        icon = QMessageBox.Icon.Warning if result.warnings else QMessageBox.Icon.Information
        box = plain_message_box(parent, icon, "Export finished", export_summary(result))
        shown = result.files[:8]
        more = f"\n… and {len(result.files) - 8:,} more" if len(result.files) > 8 else ""
        info = "Written:\n" + "\n".join(str(f) for f in shown) + more
        if result.warnings:
            info += "\n\nWarnings:\n" + "\n".join(f"• {w}" for w in result.warnings)
        box.setInformativeText(inert(info))
        box.setDetailedText(export_details(result, limit=1000))
        box.exec()
