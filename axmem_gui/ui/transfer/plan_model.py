"""The import preview table: every problem, then every incoming entry with what the
import will do with it.

Problems come first (errors, then warnings) because any error blocks the whole import.
Re-planning for another conflict policy keeps the rows in place (same entries, same
order), so the model only signals changed data: scroll position and selection stay.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QFont

from axmem_gui.core.catalog import EntryKind, Memory
from axmem_gui.core.formats import ImportedSkill, ImportPlan, PlanItem, Policy, Problem
from axmem_gui.core.formats.plan import POLICIES
from axmem_gui.ui.inert_text import inert_tooltips
from axmem_gui.ui.lint.severity import severity_icon
from axmem_gui.ui.table_model import HeaderedTableModel

_Index = QModelIndex | QPersistentModelIndex


class PlanColumn(IntEnum):
    Result = 0
    Kind = 1
    Id = 2
    Policy = 3
    File = 4
    Entry = 5
    Field = 6
    Details = 7


HEADERS = ("Result", "Kind", "Id", "On conflict", "File", "Entry", "Field", "Details")


class PlanRole(IntEnum):
    #: "error", "warning", or the item's action ("add", "update", "unchanged", "skip",
    #: "keep-both").
    Category = Qt.ItemDataRole.UserRole + 1
    Conflict = Qt.ItemDataRole.UserRole + 2
    Kind = Qt.ItemDataRole.UserRole + 3
    SourceId = Qt.ItemDataRole.UserRole + 4
    #: The policy deciding a conflicting entry (None for other rows).
    Policy = Qt.ItemDataRole.UserRole + 5
    #: True when the user chose this entry's policy, rather than the global one.
    Overridden = Qt.ItemDataRole.UserRole + 6


POLICY_LABELS: dict[str, str] = {"skip": "skip", "overwrite": "overwrite", "keep-both": "keep both"}
RESULT_LABELS: dict[str, str] = {
    "error": "error",
    "warning": "warning",
    "add": "add",
    "update": "update",
    "unchanged": "unchanged",
    "skip": "skip",
    "keep-both": "keep both",
}

_SKILL_FIELDS = ("name", "description", "content", "tags")


def changed_fields(item: PlanItem) -> list[str]:
    """Which fields of the workspace's entry the incoming one differs in."""
    new, old = item.incoming, item.existing
    if old is None:
        return []
    if isinstance(new, ImportedSkill) and isinstance(old, ImportedSkill):
        fields = [f for f in _SKILL_FIELDS if getattr(new.skill, f) != getattr(old.skill, f)]
        if new.frontmatter != old.frontmatter:
            fields.append("frontmatter")
        if new.resources != old.resources:
            fields.append("resource files")
        return fields
    if isinstance(new, Memory) and isinstance(old, Memory):
        return [f for f in ("content", "tags") if getattr(new, f) != getattr(old, f)]
    return []


def describe(item: PlanItem) -> str:
    kind = item.kind
    fields = ", ".join(changed_fields(item)) or "extras"
    if item.action == "add":
        return f"new {kind}"
    if item.action == "update":
        return f"replaces the workspace's {kind} (differs in {fields})"
    if item.action == "keep-both":
        return f"added as '{item.target_id}'; the workspace's '{item.source_id}' stays"
    if item.action == "skip":
        return f"differs in {fields}; the workspace's {kind} is kept"
    return "same as the workspace's"


@dataclass(frozen=True)
class _ProblemRow:
    problem: Problem


@dataclass(frozen=True)
class _ItemRow:
    item: PlanItem


def _rows(plan: ImportPlan) -> list[_ProblemRow | _ItemRow]:
    problems = [*plan.errors, *plan.warnings]
    return [*(_ProblemRow(p) for p in problems), *(_ItemRow(i) for i in plan.items)]


def common_base(paths: tuple[str, ...]) -> Path | None:
    """The folder file names are shown relative to: the parent of what was chosen."""
    parents = [str(Path(p).absolute().parent) for p in paths]
    if not parents:
        return None
    try:
        return Path(os.path.commonpath(parents))
    except ValueError:  # different drives
        return None


class ImportPlanModel(HeaderedTableModel):
    headers = HEADERS
    #: kind, incoming id, policy ("" = back to the global policy)
    override_requested = Signal(str, str, str)

    def __init__(self, plan: ImportPlan, overrides: set[tuple[str, str]] | None = None) -> None:
        super().__init__()
        self._plan = plan
        self._rows = _rows(plan)
        self._overridden = set(overrides or ())
        self._base = common_base(plan.sources)
        self._bold = QFont()
        self._bold.setBold(True)

    @property
    def plan(self) -> ImportPlan:
        return self._plan

    def set_plan(self, plan: ImportPlan, overrides: set[tuple[str, str]]) -> None:
        rows = _rows(plan)
        same_shape = len(rows) == len(self._rows) and all(
            type(a) is type(b) for a, b in zip(rows, self._rows, strict=True)
        )
        self._overridden = set(overrides)
        if not same_shape:
            self.beginResetModel()
            self._plan, self._rows = plan, rows
            self._base = common_base(plan.sources)
            self.endResetModel()
            return
        self._plan, self._rows = plan, rows
        if rows:
            last = self.index(len(rows) - 1, len(HEADERS) - 1)
            self.dataChanged.emit(self.index(0, 0), last)

    # shape ------------------------------------------------------------------------
    def row_count(self) -> int:
        return len(self._rows)

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        row = self._rows[index.row()]
        if index.column() == PlanColumn.Policy and isinstance(row, _ItemRow) and row.item.conflict:
            return base | Qt.ItemFlag.ItemIsEditable
        return base

    # data ---------------------------------------------------------------------------
    def _file(self, file: str) -> str:
        if self._base is not None:
            try:
                return str(Path(file).absolute().relative_to(self._base))
            except ValueError:
                pass
        return file

    @inert_tooltips
    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not self._row_in_range(index):
            return None
        row = self._rows[index.row()]
        if isinstance(row, _ProblemRow):
            return self._problem_data(row.problem, index.column(), role)
        return self._item_data(row.item, index.column(), role)

    def _problem_data(self, p: Problem, column: int, role: int) -> Any:
        if role == PlanRole.Category:
            return p.severity
        if role in (PlanRole.Conflict, PlanRole.Overridden):
            return False
        if role == Qt.ItemDataRole.ToolTipRole:
            return str(p)
        if role == Qt.ItemDataRole.DecorationRole and column == PlanColumn.Result:
            return severity_icon(p.severity)
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        values = {
            PlanColumn.Result: RESULT_LABELS[p.severity],
            PlanColumn.File: self._file(p.file),
            PlanColumn.Entry: p.entry,
            PlanColumn.Field: p.field,
            PlanColumn.Details: p.message,
        }
        return values.get(PlanColumn(column), "")

    def _policy(self, item: PlanItem) -> Policy | None:
        if not item.conflict:
            return None
        return {"update": "overwrite", "keep-both": "keep-both"}.get(item.action, "skip")  # type: ignore[return-value]

    def _item_data(self, item: PlanItem, column: int, role: int) -> Any:
        overridden = (item.kind, item.source_id) in self._overridden
        if role == PlanRole.Category:
            return item.action
        if role == PlanRole.Conflict:
            return item.conflict
        if role == PlanRole.Kind:
            return item.kind
        if role == PlanRole.SourceId:
            return item.source_id
        if role == PlanRole.Policy:
            return self._policy(item)
        if role == PlanRole.Overridden:
            return overridden
        if role == Qt.ItemDataRole.FontRole and column == PlanColumn.Policy and overridden:
            return self._bold
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == PlanColumn.Policy and item.conflict:
                chosen = "chosen for this entry" if overridden else "the global policy"
                return f"{chosen}; double-click to choose skip, overwrite or keep both"
            if column == PlanColumn.File:
                return item.origin.file
            return item.describe()
        if role == Qt.ItemDataRole.EditRole and column == PlanColumn.Policy:
            return self._policy(item)
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if column == PlanColumn.Result:
            return RESULT_LABELS[item.action]
        if column == PlanColumn.Kind:
            return item.kind
        if column == PlanColumn.Id:
            if item.target_id != item.source_id:
                return f"{item.source_id} → {item.target_id}"
            return item.source_id
        if column == PlanColumn.Policy:
            policy = self._policy(item)
            return "" if policy is None else POLICY_LABELS[policy]
        if column == PlanColumn.File:
            return self._file(item.origin.file)
        if column == PlanColumn.Entry:
            return item.origin.entry
        if column == PlanColumn.Details:
            return describe(item)
        return ""

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if (
            role != Qt.ItemDataRole.EditRole
            or not index.isValid()
            or not self.flags(index) & Qt.ItemFlag.ItemIsEditable
            or value not in (*POLICIES, "")
        ):
            return False
        row = self._rows[index.row()]
        assert isinstance(row, _ItemRow)
        # The dialog re-plans and hands the new plan back through `set_plan`.
        self.override_requested.emit(row.item.kind, row.item.source_id, str(value))
        return True

    def conflict_keys(self, rows: list[int]) -> list[tuple[EntryKind, str]]:
        out: list[tuple[EntryKind, str]] = []
        for r in rows:
            row = self._rows[r] if 0 <= r < len(self._rows) else None
            if isinstance(row, _ItemRow) and row.item.conflict:
                out.append((row.item.kind, row.item.source_id))
        return out


#: What the "Show" filter offers: label -> categories shown (None = all rows).
SHOW_FILTERS: dict[str, frozenset[str] | None] = {
    "All rows": None,
    "Problems": frozenset({"error", "warning"}),
    "Conflicts": frozenset({"conflict"}),
    "Changes": frozenset({"add", "update", "keep-both"}),
    "Unchanged and skipped": frozenset({"unchanged", "skip"}),
}


class PlanFilterModel(QSortFilterProxyModel):
    def __init__(self) -> None:
        super().__init__()
        self._wanted: frozenset[str] | None = None

    def set_show(self, label: str) -> None:
        self.beginFilterChange()
        self._wanted = SHOW_FILTERS[label]
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: _Index) -> bool:
        if self._wanted is None:
            return True
        model = self.sourceModel()
        index = model.index(source_row, 0, source_parent)
        if "conflict" in self._wanted and index.data(PlanRole.Conflict):
            return True
        return index.data(PlanRole.Category) in self._wanted
