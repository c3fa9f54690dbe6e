"""Per-entry history: every stored revision with time and operation, a side-by-side diff of
the selected revision against the current value, and Restore (the caller turns the chosen
value into an undoable command)."""

from __future__ import annotations

import base64
import difflib
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.catalog import Skill
from axmem_gui.core.catalog_rows import Entry, Revision
from axmem_gui.ui.editor.colors import added_background, muted_text, removed_background
from axmem_gui.ui.inert_text import plain_label
from axmem_gui.ui.pages import monospace_font
from axmem_gui.ui.resources import style_sheet

_Index = QModelIndex | QPersistentModelIndex
#: Above this many diff rows, rows keep one line height instead of fitting wrapped text.
WRAP_ROW_LIMIT = 3000


def entry_lines(value: Entry | None) -> list[str]:
    """An entry as lines to diff: the short fields first, then the content line by line."""
    if value is None:
        return []
    lines = [f"id: {value.id}"]
    if isinstance(value, Skill):
        lines += [f"name: {value.name}", f"description: {value.description}"]
    lines.append(f"tags: {', '.join(value.tags)}")
    lines.extend(file_lines(value.extra))
    lines.append("content:")
    lines.extend(value.content.split("\n"))
    return lines


def file_lines(extra: Any) -> list[str]:
    """A skill folder's other files, one line each (path, size, a digest of the bytes),
    so the diff shows a file added, deleted or replaced."""
    resources = extra.get("resources") if isinstance(extra, Mapping) else None
    out: list[str] = []
    for res in resources if isinstance(resources, list) else []:
        if not isinstance(res, dict):
            continue
        if isinstance(res.get("text"), str):
            data = res["text"].encode("utf-8", "surrogatepass")
        else:
            try:
                data = base64.b64decode(str(res.get("base64", "")))
            except ValueError:
                data = b""
        digest = hashlib.sha256(data).hexdigest()[:12]
        mode = " (executable)" if res.get("executable") else ""
        out.append(f"file {res.get('path')}: {len(data):,} bytes{mode}, sha256 {digest}…")
    return out


@dataclass(frozen=True)
class DiffRow:
    left_no: int | None
    left: str
    right_no: int | None
    right: str
    tag: str  # "equal", "removed", "added", "changed"


def diff_rows(old: Sequence[str], new: Sequence[str]) -> list[DiffRow]:
    """Side-by-side rows: equal lines pair up, replaced blocks pair line by line, removed
    lines stand on the left and added ones on the right alone."""
    rows: list[DiffRow] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            rows += [
                DiffRow(i + 1, old[i], j + 1, new[j], "equal")
                for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
            ]
            continue
        left, right = list(range(i1, i2)), list(range(j1, j2))
        for k in range(max(len(left), len(right))):
            i = left[k] if k < len(left) else None
            j = right[k] if k < len(right) else None
            tag = (
                "changed"
                if i is not None and j is not None
                else ("removed" if i is not None else "added")
            )
            rows.append(
                DiffRow(
                    None if i is None else i + 1,
                    "" if i is None else old[i],
                    None if j is None else j + 1,
                    "" if j is None else new[j],
                    tag,
                )
            )
    return rows


def local_time(at: str) -> str:
    try:
        moment = datetime.fromisoformat(at.replace("Z", "+00:00"))
    except ValueError:
        return at
    return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S")


class RevisionListModel(QAbstractTableModel):
    """Newest first."""

    headers = ("Rev", "When", "Change")

    def __init__(self, revisions: Sequence[Revision]) -> None:
        super().__init__()
        self.revisions = list(reversed(revisions))

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.revisions)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.headers)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.headers[section] if 0 <= section < len(self.headers) else None
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or role != Qt.ItemDataRole.DisplayRole:
            return None
        rev = self.revisions[index.row()]
        column = index.column()
        if column == 0:
            return str(rev.revision)
        if column == 1:
            return local_time(rev.at)
        label = rev.op
        if rev.op == "rename" and rev.before and rev.after:
            label = f"rename {rev.before.id} → {rev.after.id}"
        return label + ("  (batch)" if rev.batch else "")


class DiffModel(QAbstractTableModel):
    headers = ("", "Selected revision", "", "Current")

    def __init__(self, parent: QWidget) -> None:
        super().__init__()
        self._owner = parent
        self.rows: list[DiffRow] = []

    def set_rows(self, rows: list[DiffRow], left_title: str, right_title: str) -> None:
        self.beginResetModel()
        self.rows = rows
        self.headers = ("", left_title, "", right_title)
        self.endResetModel()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else 4

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.headers[section] if 0 <= section < 4 else None
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        column = index.column()
        left = column < 2
        if role == Qt.ItemDataRole.DisplayRole:
            if column in (0, 2):
                number = row.left_no if left else row.right_no
                return "" if number is None else str(number)
            return row.left if left else row.right
        palette = self._owner.palette()
        if role == Qt.ItemDataRole.BackgroundRole:
            if left and row.tag in ("removed", "changed"):
                return removed_background(palette)
            if not left and row.tag in ("added", "changed"):
                return added_background(palette)
            return None
        if role == Qt.ItemDataRole.ForegroundRole and column in (0, 2):
            return muted_text(palette)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            # Top: a wrapped line's number stays level with its first visual line.
            side = Qt.AlignmentFlag.AlignRight if column in (0, 2) else Qt.AlignmentFlag.AlignLeft
            return int(side | Qt.AlignmentFlag.AlignTop)
        return None


class HistoryDialog(QDialog):
    def __init__(
        self,
        parent: QWidget | None,
        kind_label: str,
        entry_id: str,
        revisions: Sequence[Revision],
        current: Entry | None,
        read_only: bool = False,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"History of {kind_label} '{entry_id}'")
        self.setStyleSheet(style_sheet("history"))
        self.resize(1100, 640)
        self.current = current
        self.chosen: Revision | None = None

        self.revisions = RevisionListModel(revisions)
        self.list = QTableView()
        self.list.setModel(self.revisions)
        self.list.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.verticalHeader().setVisible(False)
        self.list.horizontalHeader().setStretchLastSection(True)
        self.list.horizontalHeader().setSectionResizeMode(
            0, QHeaderView.ResizeMode.ResizeToContents
        )
        self.list.setColumnWidth(1, 150)
        self.list.selectionModel().currentRowChanged.connect(lambda *_: self._show_selected())

        self.diff = DiffModel(self)
        self.diff_view = QTableView()
        self.diff_view.setObjectName("diffView")
        self.diff_view.setModel(self.diff)
        self.diff_view.setFont(monospace_font())
        self.diff_view.setShowGrid(False)
        # Prose lines are long: wrap them, so a changed word is never hidden by an ellipsis.
        self.diff_view.setWordWrap(True)
        self.diff_view.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.diff_view.verticalHeader().setVisible(False)
        self.diff_view.verticalHeader().setMinimumSectionSize(18)
        self.diff_view.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        header = self.diff_view.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.caption = plain_label()
        self.caption.setObjectName("diffCaption")
        self.caption.setWordWrap(True)

        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.caption)
        right_layout.addWidget(self.diff_view, 1)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.list)
        split.addWidget(right)
        split.setSizes([330, 770])

        hint = plain_label(
            "Restore writes the selected revision's value as a new revision; Ctrl+Z undoes it."
        )
        hint.setObjectName("historyHint")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.restore_button = QPushButton("Restore this revision")
        self.restore_button.setEnabled(False)
        buttons.addButton(self.restore_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.restore_button.clicked.connect(self._restore)
        buttons.rejected.connect(self.reject)
        self.read_only = read_only

        layout = QVBoxLayout(self)
        layout.addWidget(split, 1)
        layout.addWidget(hint)
        layout.addWidget(buttons)
        if self.revisions.rowCount():
            self.list.selectRow(0)
        else:
            self.caption.setText("No history yet.")

    @classmethod
    def ask(
        cls,
        parent: QWidget | None,
        kind_label: str,
        entry_id: str,
        revisions: Sequence[Revision],
        current: Entry | None,
        read_only: bool = False,
    ) -> Revision | None:
        """Show the history; the revision the user chose to restore, or None."""
        dialog = cls(parent, kind_label, entry_id, revisions, current, read_only)
        dialog.exec()
        return dialog.chosen

    def select_revision(self, revision: int) -> bool:
        for row, rev in enumerate(self.revisions.revisions):
            if rev.revision == revision:
                self.list.selectRow(row)
                return True
        return False

    def selected(self) -> Revision | None:
        index = self.list.currentIndex()
        if not index.isValid():
            return None
        return self.revisions.revisions[index.row()]

    def _show_selected(self) -> None:
        rev = self.selected()
        if rev is None:
            return
        value = rev.value
        self.diff.set_rows(
            diff_rows(entry_lines(value), entry_lines(self.current)),
            f"Revision {rev.revision}",
            "Current" if self.current is not None else "Current (deleted)",
        )
        rows = self.diff_view.verticalHeader()
        # Fitting every row to its wrapped text costs a layout per row: only for sane sizes.
        fit = self.diff.rowCount() <= WRAP_ROW_LIMIT
        rows.setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents if fit else QHeaderView.ResizeMode.Fixed
        )
        same = value == self.current
        where = "after" if rev.after is not None else "before"
        state = "same as current" if same else "differs from current"
        gone = "" if self.current is not None else " · the entry no longer exists"
        self.caption.setText(
            f"Revision {rev.revision} ({rev.op}, {local_time(rev.at)}), value {where} the "
            f"change · {state}{gone}"
        )
        self.restore_button.setEnabled(value is not None and not same and not self.read_only)

    def _restore(self) -> None:
        self.chosen = self.selected()
        self.accept()
