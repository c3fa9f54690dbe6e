"""The sessions table: one row per recorded session of the workspace."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import IntEnum
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

from axmem_gui.core.session.analytics import SessionTotals
from axmem_gui.services.sessions import SessionRow
from axmem_gui.ui.inert_text import inert_tooltips
from axmem_gui.ui.table_model import HeaderedTableModel

Index = QModelIndex | QPersistentModelIndex

COLUMNS = ("Name", "Agent", "Provider / model", "Status", "Created", "Calls", "Tokens")
NAME, AGENT, PROVIDER, STATUS, CREATED, CALLS, TOKENS = range(len(COLUMNS))
INCOMPLETE_COLOR = QColor(200, 120, 20)


class SessionRole(IntEnum):
    Id = Qt.ItemDataRole.UserRole + 1
    Status = Qt.ItemDataRole.UserRole + 2
    SortKey = Qt.ItemDataRole.UserRole + 3


def created_text(value: str) -> str:
    """`2026-11-29T20:00:05.763Z` as `2026-11-29 20:00:05` (UTC, as recorded)."""
    return value.replace("T", " ")[:19] if value else ""


class SessionListModel(HeaderedTableModel):
    headers = COLUMNS

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[SessionRow] = []
        self._totals: dict[str, SessionTotals] = {}

    # data ---------------------------------------------------------------------------
    def set_sessions(self, rows: Sequence[SessionRow]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def set_totals(self, totals: Mapping[str, SessionTotals]) -> None:
        self._totals.update(totals)
        if self._rows:
            top, bottom = self.index(0, TOKENS), self.index(len(self._rows) - 1, TOKENS)
            self.dataChanged.emit(top, bottom)

    def missing_totals(self) -> list[str]:
        return [r.id for r in self._rows if r.id not in self._totals]

    def forget_totals(self, ids: Sequence[str]) -> None:
        for session_id in ids:
            self._totals.pop(session_id, None)

    def summary(self, row: int) -> SessionRow:
        return self._rows[row]

    def row_of(self, session_id: str) -> int:
        return next((i for i, r in enumerate(self._rows) if r.id == session_id), -1)

    def ids(self) -> list[str]:
        return [r.id for r in self._rows]

    # Qt model -----------------------------------------------------------------------
    def row_count(self) -> int:
        return len(self._rows)

    @inert_tooltips
    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not self._row_in_range(index):
            return None
        row = self._rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(row, column)
        if role == SessionRole.Id:
            return row.id
        if role == SessionRole.Status:
            return row.status
        if role == SessionRole.SortKey:
            return self._sort_key(row, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == STATUS and row.quarantine:
                return (
                    f"In quarantine: {row.quarantine}. Its code runs (replay, rerun) only "
                    "once you confirm."
                )
            if column == STATUS and row.status != "complete":
                return "The run ended early (an error or a cancel); the calls made are kept."
            return f"{row.name or row.id}\nid: {row.id}"
        if role == Qt.ItemDataRole.ForegroundRole and column == STATUS:
            return INCOMPLETE_COLOR if row.status != "complete" or row.quarantine else None
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (CALLS, TOKENS):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _display(self, row: SessionRow, column: int) -> str:
        if column == NAME:
            return row.name or row.id
        if column == AGENT:
            return row.agent
        if column == PROVIDER:
            return " / ".join(p for p in (row.provider, row.model) if p) or "—"
        if column == STATUS:
            status = row.status if row.status == "complete" else f"⚠ {row.status}"
            return f"{status} · quarantine" if row.quarantine else status
        if column == CREATED:
            return created_text(row.created_at)
        if column == CALLS:
            return f"{row.exchanges:,}"
        totals = self._totals.get(row.id)
        return "…" if totals is None else f"{totals.tokens:,}"

    def _sort_key(self, row: SessionRow, column: int) -> Any:
        if column == CALLS:
            return row.exchanges
        if column == TOKENS:
            totals = self._totals.get(row.id)
            return -1 if totals is None else totals.tokens
        if column == CREATED:
            return row.created_at
        return self._display(row, column).lower()
