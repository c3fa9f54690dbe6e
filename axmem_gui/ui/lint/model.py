"""Qt models over lint findings: the workspace table (dock) and one entry's list (form)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import IntEnum
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QPersistentModelIndex,
    QRegularExpression,
    QSortFilterProxyModel,
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
    #: What a column sorts by (severity sorts error < warning < info, not by name).
    SortKey = Qt.ItemDataRole.UserRole + 6
    #: What the filter matches: the severity, NUL, then code, entry, message and hint in
    #: lower case (see `FindingsFilterModel`).
    FilterText = Qt.ItemDataRole.UserRole + 7


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


#: A surrogate in a Python string is a lone one; Qt's expressions match no text holding
#: one, so both sides read it as U+FFFD.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _matchable(text: str) -> str:
    return text if text.isascii() else _LONE_SURROGATE.sub("\ufffd", text)


def filter_text(f: Finding) -> str:
    """What the dock's filter looks in: the severity, NUL, and the lower-cased text of
    code, entry, message and hint (the text filter matches only after the NUL)."""
    haystack = f"{f.code}\n{entry_label(f)}\n{f.message}\n{f.hint}".lower()
    return f"{f.severity}\0" + _matchable(haystack)


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


class FindingsModel(HeaderedTableModel):
    """Every finding of the workspace, in the report's order."""

    headers = HEADERS

    def __init__(self) -> None:
        super().__init__()
        self._findings: tuple[Finding, ...] = ()

    def set_findings(self, findings: Sequence[Finding]) -> None:
        """Show `findings`. Only the rows that differ are removed and inserted: after an
        edit most of 100,000 findings are the same objects, and a reset made the filter
        proxy look at every row again on the GUI thread."""
        new = tuple(findings)
        old = self._findings
        if not old or not new:
            self.beginResetModel()
            self._findings = new
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

    def finding(self, row: int) -> Finding:
        return self._findings[row]

    def row_count(self) -> int:
        return len(self._findings)

    @inert_tooltips
    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not self._row_in_range(index):
            return None
        f = self._findings[index.row()]
        known, value = _common_role(f, role)
        if known:
            return value
        column = index.column()
        if role == Qt.ItemDataRole.DecorationRole and column == FindingColumn.Severity:
            return severity_icon(f.severity)
        if role == FindingRole.FilterText:
            return filter_text(f)
        if role == FindingRole.SortKey:
            if column == FindingColumn.Severity:
                return SEVERITY_ORDER[f.severity] * 1_000_000 + index.row()
            return self._text(f, column)
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(f, column)
        return None

    @staticmethod
    def _text(f: Finding, column: int) -> str:
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


class FindingsFilterModel(QSortFilterProxyModel):
    """Severity choice plus free text over code, entry, message and hint.

    The filter is Qt's own (a regular expression over `FindingRole.FilterText`), never a
    Python `filterAcceptsRow`: Qt would call that once per row each time the findings
    change, 100,000 calls on the GUI thread even when nothing filters. With nothing to
    filter the expression is empty and Qt accepts every row without asking the model."""

    def __init__(self) -> None:
        super().__init__()
        self._severities: frozenset[str] | None = None
        self._text = ""
        self.setSortRole(FindingRole.SortKey)
        self.setFilterRole(FindingRole.FilterText)
        self.setFilterKeyColumn(0)

    def set_severities(self, label: str) -> None:
        self._severities = SEVERITY_FILTERS[label]
        self._apply()

    def set_text(self, text: str) -> None:
        self._text = text.strip().lower()
        self._apply()

    def _apply(self) -> None:
        self.setFilterRegularExpression(
            filter_pattern(self._severities, self._text)
        )


def filter_pattern(severities: frozenset[str] | None, text: str) -> QRegularExpression:
    """The expression over `filter_text` that holds when the finding's severity is one of
    `severities` (None: any) and `text` (lower case) occurs in its code, entry, message or
    hint; empty when nothing filters."""
    if severities is None and not text:
        return QRegularExpression()
    head = (
        "[^\\x00]*"
        if severities is None
        else "(?:" + "|".join(sorted(map(QRegularExpression.escape, severities))) + ")"
    )
    pattern = "\\A" + head + "\\x00"
    if text:
        pattern += ".*" + QRegularExpression.escape(_matchable(text))
    return QRegularExpression(
        pattern, QRegularExpression.PatternOption.DotMatchesEverythingOption
    )


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
