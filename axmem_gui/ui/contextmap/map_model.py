"""The selected map as a tree: sections > items, columns id / text / score.

A thin adapter over `rows.build_rows`. Edits made in the view are not applied here: the
model turns them into `text_edit_requested` / `score_edit_requested` so the page can push
an undo command (which makes a new draft snapshot and resets this model).
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QFont

from axmem_gui.core.contextmap import ContextMapState
from axmem_gui.core.contextmap.diff import format_score
from axmem_gui.ui.contextmap.rows import Change, ItemRow, SectionRow, build_rows
from axmem_gui.ui.inert_text import inert_tooltips

_Index = QModelIndex | QPersistentModelIndex
#: internalId of section rows; item rows use their section's row + 1.
_SECTION_ID = 0

COL_ID, COL_TEXT, COL_SCORE = range(3)
HEADERS = ("Id", "Item", "Score")


class MapRole(IntEnum):
    Kind = Qt.ItemDataRole.UserRole + 1  # "section" or "item"
    ItemId = Qt.ItemDataRole.UserRole + 2
    SectionName = Qt.ItemDataRole.UserRole + 3
    Score = Qt.ItemDataRole.UserRole + 4  # float, or None when unscored
    BeforeScore = Qt.ItemDataRole.UserRole + 5
    Changes = Qt.ItemDataRole.UserRole + 6  # sorted list of Change values
    BeforeContent = Qt.ItemDataRole.UserRole + 7
    EvictRank = Qt.ItemDataRole.UserRole + 8
    EvictNext = Qt.ItemDataRole.UserRole + 9
    PendingEvict = Qt.ItemDataRole.UserRole + 10
    Row = Qt.ItemDataRole.UserRole + 11  # the ItemRow / SectionRow itself


def _score_tip(row: ItemRow) -> str:
    now = "unscored (counts as 0)" if row.score is None else f"score {format_score(row.score)}"
    if Change.RESCORED in row.changes:
        return f"{now}; was {format_score(row.before_score)}"
    return now


def _item_tip(row: ItemRow) -> str:
    parts = [f"[{row.item_id}] {row.content}"]
    if row.removed:
        parts.append("removed since the comparison snapshot (deleted or evicted)")
    if Change.ADDED in row.changes:
        parts.append("added since the comparison snapshot")
    if row.before_content is not None:
        parts.append(f"was: {row.before_content}")
    if row.before_section is not None:
        parts.append(f"moved from {row.before_section}")
    if row.pending_evict:
        parts.append("over budget: the next update evicts this item")
    elif row.evict_next:
        parts.append("next to evict when the map outgrows maxChars")
    if row.evict_rank is not None:
        parts.append(f"eviction order #{row.evict_rank} (lowest score, then oldest id, first)")
    return "\n".join(parts)


class MapTreeModel(QAbstractItemModel):
    text_edit_requested = Signal(str, str)  # item id, new text
    score_edit_requested = Signal(str, object)  # item id, float or None

    def __init__(self) -> None:
        super().__init__()
        self._sections: tuple[SectionRow, ...] = ()
        self._editable = False

    # content ----------------------------------------------------------------------------
    def set_map(
        self, state: ContextMapState | None, compare: ContextMapState | None = None
    ) -> None:
        self.beginResetModel()
        self._sections = () if state is None else build_rows(state, compare)
        self.endResetModel()

    def set_editable(self, editable: bool) -> None:
        self._editable = editable

    def sections(self) -> tuple[SectionRow, ...]:
        return self._sections

    def item_rows(self) -> list[ItemRow]:
        return [item for section in self._sections for item in section.items]

    def index_of_item(self, item_id: str, column: int = COL_TEXT) -> QModelIndex:
        for s, section in enumerate(self._sections):
            for r, item in enumerate(section.items):
                if item.item_id == item_id and not item.removed:
                    return self.index(r, column, self.index(s, 0))
        return QModelIndex()

    def row_at(self, index: _Index) -> ItemRow | SectionRow | None:
        if not index.isValid():
            return None
        if index.internalId() == _SECTION_ID:
            return self._sections[index.row()]
        return self._sections[index.internalId() - 1].items[index.row()]

    # structure --------------------------------------------------------------------------
    def index(self, row: int, column: int, parent: _Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        if not self.hasIndex(row, column, parent):
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, column, _SECTION_ID)
        return self.createIndex(row, column, parent.row() + 1)

    def parent(self, index: _Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        if not index.isValid() or index.internalId() == _SECTION_ID:
            return QModelIndex()
        return self.createIndex(index.internalId() - 1, 0, _SECTION_ID)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        if not parent.isValid():
            return len(self._sections)
        if parent.internalId() == _SECTION_ID and parent.column() == 0:
            return len(self._sections[parent.row()].items)
        return 0

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return len(HEADERS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return HEADERS[section] if 0 <= section < len(HEADERS) else None
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        row = self.row_at(index)
        if row is None:
            return Qt.ItemFlag.NoItemFlags
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if (
            isinstance(row, ItemRow)
            and self._editable
            and not row.removed
            and index.column() in (COL_TEXT, COL_SCORE)
        ):
            base |= Qt.ItemFlag.ItemIsEditable
        if isinstance(row, ItemRow):
            base |= Qt.ItemFlag.ItemNeverHasChildren
        return base

    # data -------------------------------------------------------------------------------
    @inert_tooltips
    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = self.row_at(index)
        if row is None:
            return None
        if isinstance(row, SectionRow):
            return self._section_data(row, index.column(), role)
        return self._item_data(row, index.column(), role)

    def _section_data(self, row: SectionRow, column: int, role: int) -> Any:
        if role == MapRole.Kind:
            return "section"
        if role == MapRole.SectionName:
            return row.section.name
        if role == MapRole.Row:
            return row
        if column != COL_ID:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            count = row.live_count
            note = "" if row.present else "  · no header yet"
            return f"{row.section.title}  ({count}){note}"
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{row.section.name} [{row.section.slug}]: {row.section.description}"
        if role == Qt.ItemDataRole.FontRole:
            font = QFont()
            font.setBold(True)
            return font
        return None

    def _item_data(self, row: ItemRow, column: int, role: int) -> Any:
        roles: dict[int, Any] = {
            MapRole.Kind: "item",
            MapRole.ItemId: row.item_id,
            MapRole.SectionName: row.section,
            MapRole.Score: row.score,
            MapRole.BeforeScore: row.before_score,
            MapRole.Changes: sorted(c.value for c in row.changes),
            MapRole.BeforeContent: row.before_content,
            MapRole.EvictRank: row.evict_rank,
            MapRole.EvictNext: row.evict_next,
            MapRole.PendingEvict: row.pending_evict,
            MapRole.Row: row,
        }
        if role in roles:
            return roles[role]
        if role == Qt.ItemDataRole.DisplayRole:
            if column == COL_ID:
                return row.item_id
            if column == COL_TEXT:
                return row.content
            return format_score(row.effective_score)
        if role == Qt.ItemDataRole.EditRole:
            if column == COL_TEXT:
                return row.content
            if column == COL_SCORE:
                return float(row.effective_score)
            return None
        if role == Qt.ItemDataRole.ToolTipRole:
            return _score_tip(row) if column == COL_SCORE else _item_tip(row)
        if role == Qt.ItemDataRole.FontRole and row.removed:
            font = QFont()
            font.setStrikeOut(True)
            return font
        if role == Qt.ItemDataRole.TextAlignmentRole and column == COL_SCORE:
            return int(Qt.AlignmentFlag.AlignCenter)
        return None

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        row = self.row_at(index)
        if role != Qt.ItemDataRole.EditRole or not isinstance(row, ItemRow) or row.removed:
            return False
        if not self.flags(index) & Qt.ItemFlag.ItemIsEditable:
            return False
        if index.column() == COL_TEXT:
            if str(value) == row.content:
                return False
            self.text_edit_requested.emit(row.item_id, str(value))
            return True
        if index.column() == COL_SCORE:
            if value is not None and float(value) == row.effective_score:
                return False
            self.score_edit_requested.emit(row.item_id, value)
            return True
        return False
