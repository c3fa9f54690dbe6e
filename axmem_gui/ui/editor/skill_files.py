"""The files of a skill's folder besides SKILL.md (`reference.md`, `scripts/run.py`, …):
listed per skill, viewed, added, replaced and deleted.

They are stored with the skill (`Skill.extra["resources"]`, core/formats/extra.py), so
every change is an edit of the skill: one undoable command, written through the catalog
service, and a revision in the skill's history. The dialog changes nothing itself: it
hands the skill as it should be to `apply` (the catalog feature pushes the command) and
shows the stored skill again afterwards."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFontDatabase, QImage, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.catalog import Skill
from axmem_gui.core.errors import AxmemError
from axmem_gui.core.formats.extra import skill_resources, with_resources
from axmem_gui.core.formats.fileio import (
    ReadFailure,
    ReadLimits,
    human_size,
    is_executable,
    read_bytes_limited,
    stat_regular_file,
)
from axmem_gui.core.formats.model import SkillResource
from axmem_gui.core.formats.skillsdir import resource_path_problem
from axmem_gui.ui.inert_text import inert, plain_label
from axmem_gui.ui.table_model import HeaderedTableModel

#: The skill as it should be, and the undo step's text: True when it was written.
ApplyChange = Callable[[Skill, str], bool]

_Index = QModelIndex | QPersistentModelIndex


def file_kind(data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "binary"
    return "binary" if "\0" in text else "text"


class SkillFilesModel(HeaderedTableModel):
    headers = ("File", "Size", "Kind")

    def __init__(self) -> None:
        super().__init__()
        self.files: tuple[SkillResource, ...] = ()

    def set_files(self, files: tuple[SkillResource, ...]) -> None:
        self.beginResetModel()
        self.files = files
        self.endResetModel()

    def row_count(self) -> int:
        return len(self.files)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        file = self.files[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            values = (
                file.path,
                human_size(len(file.data)),
                file_kind(file.data) + (", executable" if file.executable else ""),
            )
            value = values[index.column()]
            return inert(value) if role == Qt.ItemDataRole.ToolTipRole else value
        return None


class FileViewDialog(QDialog):
    """One file, read-only: text in monospace, a picture as a picture, other bytes as
    their size."""

    def __init__(self, file: SkillResource, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"File {file.path}")
        layout = QVBoxLayout(self)
        caption = plain_label(f"{file.path} · {human_size(len(file.data))}")
        layout.addWidget(caption)
        self.text: QPlainTextEdit | None = None
        self.picture: QLabel | None = None
        image = QImage()
        if file_kind(file.data) == "text":
            self.text = QPlainTextEdit()
            self.text.setObjectName("fileText")
            self.text.setReadOnly(True)
            self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
            self.text.setPlainText(file.data.decode("utf-8"))
            layout.addWidget(self.text, 1)
        elif image.loadFromData(file.data) and not image.isNull():
            self.picture = plain_label()
            self.picture.setPixmap(QPixmap.fromImage(image))
            scroll = QScrollArea()
            scroll.setWidget(self.picture)
            layout.addWidget(scroll, 1)
        else:
            layout.addWidget(plain_label(f"{len(file.data):,} bytes of binary data."))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(720, 520)


class FileChoice:
    """Which file of this computer to add, and under which path in the skill folder;
    tests replace `ask_source` and `ask_path`."""

    @classmethod
    def ask_source(cls, parent: QWidget | None, title: str) -> Path | None:
        name, _ = QFileDialog.getOpenFileName(parent, title)
        return Path(name) if name else None

    @classmethod
    def ask_path(cls, parent: QWidget | None, suggested: str) -> str | None:
        text, ok = QInputDialog.getText(
            parent,
            "Path in the skill folder",
            "Where the file goes, relative to SKILL.md (e.g. references/guide.md):",
            text=suggested,
        )
        return text.strip() if ok else None


def read_source(path: Path) -> tuple[bytes, bool]:
    """A file's bytes and whether it is executable; ReadFailure names what is wrong."""
    st = stat_regular_file(path)
    data = read_bytes_limited(path, ReadLimits().max_file_bytes, expect=None)
    return data, is_executable(st)


class SkillFilesDialog(QDialog):
    """The files of one skill, with View, Add…, Replace… and Delete (each an undo step
    of the window's stack, made by `apply`)."""

    def __init__(
        self,
        skill_id: str,
        current: Callable[[], Skill | None],
        apply: ApplyChange,
        read_only: bool = False,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Files of skill '{skill_id}'")
        self.skill_id = skill_id
        self._current = current
        self._apply = apply
        self.read_only = read_only
        self.model = SkillFilesModel()
        self.table = QTableView()
        self.table.setObjectName("skillFiles")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.table.doubleClicked.connect(lambda _i: self.view())
        intro = plain_label(
            "Files that travel with this skill's SKILL.md in a skills folder (exported and "
            "imported byte for byte). Ax never sees them; changes can be undone."
        )
        intro.setWordWrap(True)
        self.view_button = QPushButton("View")
        self.add_button = QPushButton("Add…")
        self.replace_button = QPushButton("Replace…")
        self.delete_button = QPushButton("Delete")
        self.view_button.clicked.connect(lambda _c=False: self.view())
        self.add_button.clicked.connect(lambda _c=False: self.add())
        self.replace_button.clicked.connect(lambda _c=False: self.replace())
        self.delete_button.clicked.connect(lambda _c=False: self.delete())
        self.problem = plain_label()
        self.problem.setObjectName("formError")
        self.problem.setWordWrap(True)
        self.problem.hide()
        side = QVBoxLayout()
        for button in (self.view_button, self.add_button, self.replace_button, self.delete_button):
            side.addWidget(button)
        side.addStretch(1)
        row = QHBoxLayout()
        row.addWidget(self.table, 1)
        row.addLayout(side)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(row, 1)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._update_buttons())
        self.reload()
        self.resize(600, 360)

    @classmethod
    def show_for(
        cls,
        parent: QWidget | None,
        skill_id: str,
        current: Callable[[], Skill | None],
        apply: ApplyChange,
        read_only: bool = False,
    ) -> None:
        dialog = cls(skill_id, current, apply, read_only, parent)
        try:
            dialog.exec()
        finally:
            dialog.deleteLater()

    # state --------------------------------------------------------------------------
    def reload(self, select: str | None = None) -> None:
        skill = self._current()
        files: tuple[SkillResource, ...] = ()
        if skill is not None:
            try:
                files = skill_resources(skill)
            except AxmemError as exc:
                self._say(str(exc))
        self.model.set_files(files)
        paths = [f.path for f in files]
        if select in paths:
            self.table.selectRow(paths.index(select))
        elif files:
            self.table.selectRow(0)
        self._update_buttons()

    def selected(self) -> SkillResource | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.files[rows[0].row()] if rows else None

    def _update_buttons(self) -> None:
        chosen = self.selected() is not None
        self.view_button.setEnabled(chosen)
        self.add_button.setEnabled(not self.read_only)
        self.replace_button.setEnabled(chosen and not self.read_only)
        self.delete_button.setEnabled(chosen and not self.read_only)

    def _say(self, text: str) -> None:
        self.problem.setText(text)
        self.problem.setVisible(bool(text))

    # actions ------------------------------------------------------------------------
    def view(self) -> None:
        file = self.selected()
        if file is not None:
            dialog = FileViewDialog(file, self)
            try:
                dialog.exec()
            finally:
                dialog.deleteLater()

    def _read(self, title: str) -> tuple[Path, bytes, bool] | None:
        source = FileChoice.ask_source(self, title)
        if source is None:
            return None
        try:
            data, executable = read_source(source)
        except ReadFailure as exc:
            self._say(f"Cannot read {source}: {exc}.")
            return None
        return source, data, executable

    def _change(self, files: list[SkillResource], text: str, select: str | None) -> None:
        skill = self._current()
        if skill is None:
            self._say(f"skill '{self.skill_id}' is no longer stored")
            return
        if self._apply(with_resources(skill, files), text):
            self._say("")
        self.reload(select)

    def add(self) -> None:
        if self.read_only:
            return
        read = self._read("Add a file to the skill folder")
        if read is None:
            return
        source, data, executable = read
        path = FileChoice.ask_path(self, source.name)
        if not path:
            return
        files = list(self.model.files)
        problem = resource_path_problem(path)
        if problem is None and path in (f.path for f in files):
            problem = f"the skill already has a file '{path}' (use Replace…)"
        if problem is not None:
            self._say(f"Cannot add '{path}': {problem}.")
            return
        files.append(SkillResource(path, data, executable))
        self._change(files, f"Add file '{path}' to '{self.skill_id}'", path)

    def replace(self) -> None:
        file = self.selected()
        if file is None or self.read_only:
            return
        read = self._read(f"Replace {file.path} with")
        if read is None:
            return
        _source, data, executable = read
        files = [
            SkillResource(f.path, data, executable) if f.path == file.path else f
            for f in self.model.files
        ]
        self._change(files, f"Replace file '{file.path}' of '{self.skill_id}'", file.path)

    def delete(self) -> None:
        file = self.selected()
        if file is None or self.read_only:
            return
        files = [f for f in self.model.files if f.path != file.path]
        self._change(files, f"Delete file '{file.path}' of '{self.skill_id}'", None)
