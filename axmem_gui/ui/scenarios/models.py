"""Qt models of the scenario editor: the turns table and the picked-entries lists.

Both are thin adapters over the stored scenario's typed turns: an edit in the table is not
applied here but requested (`edit_requested`), and the page turns it into an undoable
command; the model is refilled from the store afterwards.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal

from axmem_gui.core.ax.scenario import ScenarioTurn, SearchArg
from axmem_gui.core.jsout import json_dumps
from axmem_gui.services.scenarios import TurnLoads
from axmem_gui.ui.inert_text import inert_tooltips
from axmem_gui.ui.table_model import HeaderedTableModel

_Index = QModelIndex | QPersistentModelIndex

CALLS = ("discover", "recall")


class TurnRole(IntEnum):
    SearchArg = Qt.ItemDataRole.UserRole + 1  # the turn's raw value: None, str or list


def search_arg_text(arg: SearchArg | None) -> str:
    """A call's search strings for display: each quoted (exact), `—` when no call."""
    if arg is None:
        return "—"
    items = [arg] if isinstance(arg, str) else list(arg)
    return ", ".join(json_dumps(s) for s in items)


def search_arg_lines(arg: SearchArg | None) -> str:
    """For editing: one search string per line."""
    if arg is None:
        return ""
    return arg if isinstance(arg, str) else "\n".join(arg)


def search_arg_from_lines(text: str) -> list[str] | None:
    """Edited text back to a call: no lines = no call."""
    lines = [line for line in text.split("\n") if line.strip()]
    return lines or None


class TurnsModel(HeaderedTableModel):
    """One row per executor turn: its discover and recall search strings (editable) and
    what each call loads over the current catalog."""

    headers = ("turn", "discover({ skills })", "recall(...)", "discover loads", "recall loads")
    COL_DISCOVER, COL_RECALL = 1, 2
    edit_requested = Signal(int, str, object)  # row, "discover"/"recall", new value

    def __init__(self) -> None:
        super().__init__()
        self._turns: tuple[ScenarioTurn, ...] = ()
        self._loads: list[TurnLoads] = []
        self._editable = True

    def set_turns(self, turns: Sequence[ScenarioTurn]) -> None:
        new = tuple(turns)
        if new == self._turns:
            return
        if len(new) == len(self._turns):
            self._turns = new
            if new:
                self.dataChanged.emit(self.index(0, 0), self.index(len(new) - 1, 4))
            return
        self.beginResetModel()
        self._turns = new
        self.endResetModel()

    def set_loads(self, loads: Sequence[TurnLoads]) -> None:
        self._loads = list(loads)
        if self._turns:
            self.dataChanged.emit(self.index(0, 3), self.index(len(self._turns) - 1, 4))

    def set_editable(self, editable: bool) -> None:
        self._editable = editable

    def row_count(self) -> int:
        return len(self._turns)

    def flags(self, index: _Index) -> Qt.ItemFlag:
        base = super().flags(index)
        if index.isValid() and self._editable and index.column() in (1, 2):
            return base | Qt.ItemFlag.ItemIsEditable
        return base

    def _loads_text(self, row: int, call: str) -> str:
        if row >= len(self._loads):
            return ""
        ids = self._loads[row].of(call)
        if ids is None:
            return ""
        return ", ".join(ids) if ids else "(nothing)"

    @inert_tooltips
    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not self._row_in_range(index):
            return None
        row, col = index.row(), index.column()
        turn = self._turns[row]
        if col in (1, 2):
            arg = turn.discover if col == 1 else turn.recall
            if role == Qt.ItemDataRole.DisplayRole:
                return search_arg_text(arg)
            if role == Qt.ItemDataRole.EditRole:
                return search_arg_lines(arg)
            if role == Qt.ItemDataRole.ToolTipRole:
                return "Double-click to edit: one search string per line; empty = no call"
            if role == TurnRole.SearchArg:
                return arg
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return str(row + 1)
            if col in (3, 4):
                return self._loads_text(row, CALLS[col - 3])
        return None

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid() or index.column() not in (1, 2):
            return False
        new = search_arg_from_lines(str(value))
        call = CALLS[index.column() - 1]
        turn = self._turns[index.row()]
        old = turn.discover if call == "discover" else turn.recall
        if (search_arg_from_lines(search_arg_lines(old)) or None) == new:
            return False
        self.edit_requested.emit(index.row(), call, new)
        return True
