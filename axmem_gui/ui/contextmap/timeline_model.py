"""The timeline of one agent's map: its snapshots oldest first, plus the unsaved draft."""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

from axmem_gui.services.contextmaps import TimelineEntry
from axmem_gui.ui.contextmap.editing import DRAFT_KEY, Draft
from axmem_gui.ui.inert_text import inert_tooltips

_Index = QModelIndex | QPersistentModelIndex
HEADERS = ("Session", "Snapshot", "Step", "Chars", "Evicted")
COL_SESSION, COL_LABEL, COL_STEP, COL_CHARS, COL_EVICTED = range(5)

Row = TimelineEntry | Draft


class TimelineRole(IntEnum):
    Key = Qt.ItemDataRole.UserRole + 1
    Entry = Qt.ItemDataRole.UserRole + 2  # the TimelineEntry, or the Draft
    IsDraft = Qt.ItemDataRole.UserRole + 3


class TimelineModel(QAbstractTableModel):
    def __init__(self) -> None:
        super().__init__()
        self._entries: list[TimelineEntry] = []
        self._draft: Draft | None = None

    def set_rows(self, entries: list[TimelineEntry], draft: Draft | None) -> None:
        self.beginResetModel()
        self._entries = list(entries)
        self._draft = draft
        self.endResetModel()

    def entries(self) -> list[TimelineEntry]:
        return list(self._entries)

    def rows(self) -> list[Row]:
        return [*self._entries, *([self._draft] if self._draft is not None else [])]

    def row_of_key(self, key: str) -> int:
        for row, item in enumerate(self.rows()):
            if _key(item) == key:
                return row
        return -1

    def row_item(self, row: int) -> Row | None:
        rows = self.rows()
        return rows[row] if 0 <= row < len(rows) else None

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._entries) + (self._draft is not None)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return HEADERS[section] if 0 <= section < len(HEADERS) else None
        return section + 1

    @inert_tooltips
    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        item = self.row_item(index.row())
        if item is None:
            return None
        if role == TimelineRole.Key:
            return _key(item)
        if role == TimelineRole.Entry:
            return item
        if role == TimelineRole.IsDraft:
            return isinstance(item, Draft)
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return _display(item, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            return _tooltip(item)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (COL_STEP, COL_CHARS):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.FontRole and isinstance(item, Draft):
            font = QFont()
            font.setItalic(True)
            return font
        return None


def _key(item: Row) -> str:
    return DRAFT_KEY if isinstance(item, Draft) else item.key


def evicted_text(update: Any) -> str:
    """The items an update evicted, those it added and evicted at once marked "(new)"."""
    if not isinstance(update, Mapping):
        return ""
    evicted = [str(i) for i in update.get("evicted") or []]
    at_once = {str(i) for i in update.get("added_evicted") or []}
    return ", ".join(f"{i} (new)" if i in at_once else i for i in evicted)


def _evicted_tooltip(update: Any) -> str:
    text = evicted_text(update)
    if not text:
        return ""
    budget = update.get("budget") if isinstance(update, Mapping) else None
    limit = budget.get("maxChars") if isinstance(budget, Mapping) else None
    why = f" to fit maxChars {limit}" if limit is not None else ""
    return f"\nEvicted{why}: {text}"


def _display(item: Row, column: int) -> str:
    state = item.stored.state
    if column == COL_EVICTED:
        return "" if isinstance(item, Draft) else evicted_text(item.update)
    if column == COL_STEP:
        return str(state.steps)
    if column == COL_CHARS:
        return f"{state.chars:,}"
    if isinstance(item, Draft):
        return "—" if column == COL_SESSION else "edited (unsaved)"
    if column == COL_SESSION:
        return item.session_name or "—"
    return item.label or "snapshot"


def _tooltip(item: Row) -> str:
    if isinstance(item, Draft):
        return f"Unsaved edits of “{item.base.label}”: " + "; ".join(item.edits)
    where = f"session {item.session_name}" if item.session_id else "outside a session"
    return f"{item.label or 'snapshot'} · {where} · {item.created_at}" + _evicted_tooltip(
        item.update
    )
