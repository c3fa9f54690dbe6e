"""Qt models over lint findings: the workspace table (dock) and one entry's list (form)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import IntEnum
from itertools import compress
from operator import attrgetter
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QIdentityProxyModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)

from axmem_gui.core.lint import Finding
from axmem_gui.core.lint.model import SEVERITY_ORDER
from axmem_gui.ui.inert_text import inert_tooltips
from axmem_gui.ui.lint.severity import severity_icon
from axmem_gui.ui.table_model import HeaderedTableModel

_Index = QModelIndex | QPersistentModelIndex


class FindingRole(IntEnum):
    Finding = Qt.ItemDataRole.UserRole + 1
    Severity = Qt.ItemDataRole.UserRole + 2
    Kind = Qt.ItemDataRole.UserRole + 3
    EntryId = Qt.ItemDataRole.UserRole + 4
    Code = Qt.ItemDataRole.UserRole + 5


class FindingColumn(IntEnum):
    Severity = 0
    Code = 1
    Entry = 2
    Message = 3
    Hint = 4


HEADERS = ("Severity", "Code", "Entry", "Message", "Hint")


def entry_label(f: Finding) -> str:
    if f.entry_id is None:
        return "catalog"
    return f"{f.kind} '{f.entry_id}'"


def tooltip(f: Finding) -> str:
    lines = [f"{f.severity}: {f.message}", f"Hint: {f.hint}"]
    if f.field:
        lines.append(f"Field: {f.field}")
    if f.related:
        lines.append("Related: " + ", ".join(f"'{r}'" for r in f.related))
    lines.append(f"[{f.code}]")
    return "\n".join(lines)


def haystack(f: Finding) -> str:
    """What the dock's text filter looks in: code, entry, message and hint, lower case."""
    return f"{f.code}\n{entry_label(f)}\n{f.message}\n{f.hint}".lower()


def _common_role(f: Finding, role: int) -> tuple[bool, Any]:
    """Roles every view of a finding answers the same way."""
    if role == FindingRole.Finding:
        return True, f
    if role == FindingRole.Severity:
        return True, f.severity
    if role == FindingRole.Kind:
        return True, f.kind
    if role == FindingRole.EntryId:
        return True, f.entry_id
    if role == FindingRole.Code:
        return True, f.code
    if role == Qt.ItemDataRole.ToolTipRole:
        return True, tooltip(f)
    return False, None


def changed_rows(
    old: tuple[Finding, ...], new: tuple[Finding, ...]
) -> tuple[int, int, int]:
    """(start, old_end, new_end): `old[start:old_end]` became `new[start:new_end]`; the
    common head and tail are found by halving (tuple compares, same objects first)."""
    limit = min(len(old), len(new))
    low, high = 0, limit
    while low < high:
        mid = (low + high + 1) // 2
        if old[low:mid] == new[low:mid]:
            low = mid
        else:
            high = mid - 1
    start = low
    low, high = 0, limit - start
    while low < high:
        mid = (low + high + 1) // 2
        if old[len(old) - mid : len(old) - low] == new[len(new) - mid : len(new) - low]:
            low = mid
        else:
            high = mid - 1
    return start, len(old) - low, len(new) - low


#: A character outside the BMP: Python orders it after U+E000..U+FFFF, Qt (UTF-16 code
#: units) before.
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_COLUMN_FIELDS: dict[int, str] = {
    FindingColumn.Code: "code",
    FindingColumn.Message: "message",
    FindingColumn.Hint: "hint",
}


def _sort_keys(findings: Sequence[Finding], column: int) -> list[Any]:
    """What each finding sorts by in `column`, ordered as Qt orders the column's text
    (severity: error, warning, info)."""
    if column == FindingColumn.Severity:
        return list(map(SEVERITY_ORDER.__getitem__, map(attrgetter("severity"), findings)))
    field = _COLUMN_FIELDS.get(column)
    texts: list[str] = (
        list(map(attrgetter(field), findings))
        if field is not None
        else [entry_label(f) if column == FindingColumn.Entry else "" for f in findings]
    )
    if _ASTRAL.search("\n".join(texts)):
        return [t.encode("utf-16-be", "surrogatepass") for t in texts]
    return texts


class FindingsModel(HeaderedTableModel):
    """Every finding of the workspace, in the report's order, or those the dock's filter
    keeps, in the order of the column it sorts by.

    Filtering and sorting are done here, over Python lists, not by a Qt sort/filter proxy:
    that one asks the model for each row's data through a Python call (sorting 111,000
    findings by a column took 21 s on the GUI thread, each filter keystroke 0.9 s)."""

    headers = HEADERS

    def __init__(self) -> None:
        super().__init__()
        self._findings: tuple[Finding, ...] = ()
        #: Positions in `_findings` of the rows shown, in order; None: all, report order.
        self._shown: list[int] | None = None
        self._severities: frozenset[str] | None = None
        self._text = ""
        self._sort_column = -1
        self._sort_order = Qt.SortOrder.AscendingOrder
        #: `haystack` of each finding, made on the first text filter of a report.
        self._haystacks: list[str] | None = None
        #: column -> every finding's position in the column's ascending order (ties in
        #: report order), made on the first sort by it: a click that turns the order
        #: around, or a filter, then only walks it (sorting 111,000 messages again took
        #: 100-240 ms at each click).
        self._orders: dict[int, list[int]] = {}

    def set_findings(self, findings: Sequence[Finding]) -> None:
        """Show `findings`. With nothing filtered or sorted, only the rows that differ are
        removed and inserted: after an edit most of 100,000 findings are the same objects."""
        new = tuple(findings)
        old = self._findings
        self._haystacks = None
        self._orders = {}
        if self._narrowed() or not old or not new:
            self.beginResetModel()
            self._findings = new
            self._shown = self._select()
            self.endResetModel()
            return
        start, old_end, new_end = changed_rows(old, new)
        if old_end > start:
            self.beginRemoveRows(QModelIndex(), start, old_end - 1)
            self._findings = old[:start] + old[old_end:]
            self.endRemoveRows()
        if new_end > start:
            self.beginInsertRows(QModelIndex(), start, new_end - 1)
            self._findings = new
            self.endInsertRows()
        self._findings = new

    def set_filter(self, severities: frozenset[str] | None, text: str) -> None:
        """Keep the findings of one of `severities` (None: any) whose code, entry, message
        or hint holds `text` (matched in lower case)."""
        self._severities, self._text = severities, text.strip().lower()
        self._reselect()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Rows by `column` (severity: error, warning, info), ties in report order
        (descending: all of it reversed, as Qt's sort does); -1: the report's order."""
        if (column, order) == (self._sort_column, self._sort_order):
            return  # (a header click asks twice)
        self._sort_column, self._sort_order = column, order
        self._reselect()

    def _narrowed(self) -> bool:
        return self._severities is not None or bool(self._text) or self._sort_column >= 0

    def _reselect(self) -> None:
        self.layoutAboutToBeChanged.emit()
        before = self.persistentIndexList()
        findings_before = [self.finding(i.row()) for i in before]
        self._shown = self._select()
        if before:
            where = {id(f): row for row, f in enumerate(map(self.finding, range(self.row_count())))}
            after = [
                self.index(where[id(f)], i.column()) if id(f) in where else QModelIndex()
                for i, f in zip(before, findings_before, strict=True)
            ]
            self.changePersistentIndexList(before, after)
        self.layoutChanged.emit()

    def _select(self) -> list[int] | None:
        if not self._narrowed():
            return None
        findings = self._findings
        rows: list[int] | range = range(len(findings))
        if self._severities is not None:
            wanted = self._severities
            rows = [i for i in rows if findings[i].severity in wanted]
        if self._text:
            if self._haystacks is None:
                self._haystacks = [haystack(f) for f in findings]
            haystacks, text = self._haystacks, self._text
            rows = [i for i in rows if text in haystacks[i]]
        column = self._sort_column
        if column < 0:
            return list(rows)
        order = self._orders.get(column)
        if order is None:
            keys = _sort_keys(findings, column)
            # As Qt's sort: ties in the report's order (descending: reversed, below).
            order = self._orders[column] = sorted(range(len(findings)), key=keys.__getitem__)
        if isinstance(rows, range):
            ordered = list(order)
        else:
            keep = bytearray(len(findings))
            for i in rows:
                keep[i] = 1
            ordered = list(compress(order, map(keep.__getitem__, order)))
        if self._sort_order == Qt.SortOrder.DescendingOrder:
            ordered.reverse()
        return ordered

    def finding(self, row: int) -> Finding:
        shown = self._shown
        return self._findings[row if shown is None else shown[row]]

    def row_count(self) -> int:
        return len(self._findings) if self._shown is None else len(self._shown)

    @inert_tooltips
    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not self._row_in_range(index):
            return None
        f = self.finding(index.row())
        known, value = _common_role(f, role)
        if known:
            return value
        column = index.column()
        if role == Qt.ItemDataRole.DecorationRole and column == FindingColumn.Severity:
            return severity_icon(f.severity)
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text_of(f, column)
        return None

    @staticmethod
    def _text_of(f: Finding, column: int) -> str:
        if column == FindingColumn.Severity:
            return f.severity
        if column == FindingColumn.Code:
            return f.code
        if column == FindingColumn.Entry:
            return entry_label(f)
        if column == FindingColumn.Message:
            return f.message
        if column == FindingColumn.Hint:
            return f.hint
        return ""


SEVERITY_FILTERS: dict[str, frozenset[str] | None] = {
    "All severities": None,
    "Errors": frozenset({"error"}),
    "Errors and warnings": frozenset({"error", "warning"}),
    "Warnings": frozenset({"warning"}),
    "Info": frozenset({"info"}),
}


class FindingsFilterModel(QIdentityProxyModel):
    """What the dock's table shows: the severity choice and free text over code, entry,
    message and hint, passed on to its `FindingsModel` (which filters and sorts; a header
    click's sort reaches it through the proxy)."""

    def __init__(self) -> None:
        super().__init__()
        self._severities: frozenset[str] | None = None
        self._text = ""

    def set_severities(self, label: str) -> None:
        self._severities = SEVERITY_FILTERS[label]
        self._apply()

    def set_text(self, text: str) -> None:
        self._text = text
        self._apply()

    def _apply(self) -> None:
        source = self.sourceModel()
        if isinstance(source, FindingsModel):
            source.set_filter(self._severities, self._text)


class EntryFindingsModel(QAbstractListModel):
    """The findings of the entry shown in the form: message (hint in the tooltip)."""

    def __init__(self) -> None:
        super().__init__()
        self._findings: tuple[Finding, ...] = ()

    def set_findings(self, findings: Sequence[Finding]) -> None:
        new = tuple(findings)
        if new == self._findings:
            return
        self.beginResetModel()
        self._findings = new
        self.endResetModel()

    def findings(self) -> tuple[Finding, ...]:
        return self._findings

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._findings)

    @inert_tooltips
    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._findings):
            return None
        f = self._findings[index.row()]
        known, value = _common_role(f, role)
        if known:
            return value
        if role == Qt.ItemDataRole.DisplayRole:
            where = f" ({f.field})" if f.field else ""
            return f"{f.message}{where}  [{f.code}]"
        if role == Qt.ItemDataRole.DecorationRole:
            return severity_icon(f.severity)
        return None
