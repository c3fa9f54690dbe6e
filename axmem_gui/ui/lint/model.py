"""Qt models over lint findings: the workspace table (dock) and one entry's list (form).

What the table filters and sorts by (each finding's filter text, each column's order) is
made by `ui.lint.ordering`'s functions, here or in a job on the task runner."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from enum import IntEnum
from itertools import compress
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QIdentityProxyModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)

from axmem_gui.core.chunked_sort import RUN
from axmem_gui.core.lint import Finding
from axmem_gui.ui.inert_text import inert_tooltips
from axmem_gui.ui.lint import ordering
from axmem_gui.ui.lint.ordering import FindingColumn, entry_label
from axmem_gui.ui.lint.severity import severity_icon
from axmem_gui.ui.table_model import HeaderedTableModel
from axmem_gui.ui.tasks import TaskRunner

_Index = QModelIndex | QPersistentModelIndex


class FindingRole(IntEnum):
    Finding = Qt.ItemDataRole.UserRole + 1
    Severity = Qt.ItemDataRole.UserRole + 2
    Kind = Qt.ItemDataRole.UserRole + 3
    EntryId = Qt.ItemDataRole.UserRole + 4
    Code = Qt.ItemDataRole.UserRole + 5


HEADERS = ("Severity", "Code", "Entry", "Message", "Hint")


def tooltip(f: Finding) -> str:
    lines = [f"{f.severity}: {f.message}", f"Hint: {f.hint}"]
    if f.field:
        lines.append(f"Field: {f.field}")
    if f.related:
        lines.append("Related: " + ", ".join(f"'{r}'" for r in f.related))
    lines.append(f"[{f.code}]")
    return "\n".join(lines)


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


class FindingsModel(HeaderedTableModel):
    """Every finding of the workspace, in the report's order, or those the dock's filter
    keeps, in the order of the column it sorts by.

    Filtering and sorting are done here, over Python lists, not by a Qt sort/filter proxy:
    that one asks the model for each row's data through a Python call (sorting 111,000
    findings by a column took 21 s on the GUI thread, each filter keystroke 0.9 s).

    A column's order is made once per report and kept. For more than `GUI_SORT_MAX`
    findings it is made by a job on `runner` (sorting 111,000 messages took 100-240 ms on
    the GUI thread): until it lands, the rows stay as they are and `sort_column` /
    `sort_order` still say how they are sorted, `sorting()` is true, and a new report
    waits to be shown in the order asked for. `sort_state_changed` tells each change."""

    headers = HEADERS
    #: Findings sorted on the GUI thread at most (a few ms); more are sorted by a job.
    GUI_SORT_MAX = 2048
    #: The sort shown, or the one waiting for its order, changed.
    sort_state_changed = Signal()

    def __init__(self, runner: TaskRunner | None = None) -> None:
        super().__init__()
        self._runner = runner
        self._findings: tuple[Finding, ...] = ()
        #: Positions in `_findings` of the rows shown, in order; None: all, report order.
        self._shown: list[int] | None = None
        self._severities: frozenset[str] | None = None
        self._text = ""
        #: The sort shown (-1: the report's order).
        self._sort_column = -1
        self._sort_order = Qt.SortOrder.AscendingOrder
        #: The sort last asked for: shown, or waiting for its column's order.
        self._wanted: tuple[int, Qt.SortOrder] = (-1, Qt.SortOrder.AscendingOrder)
        #: `ordering.haystack` of each finding, made on the first text filter of a report.
        self._haystacks: list[str] | None = None
        #: column -> every finding's position in the column's ascending order (ties in
        #: report order), made on the first sort by it: a click that turns the order
        #: around, or a filter, then only walks it.
        self._orders: dict[int, tuple[int, ...]] = {}
        #: A report waiting for the order of the wanted column, and the orders made of it.
        self._next: tuple[Finding, ...] | None = None
        self._next_orders: dict[int, tuple[int, ...]] = {}
        #: The sort job and what it sorts: (findings, column).
        self._job: int | None = None
        self._job_of: tuple[tuple[Finding, ...], int] | None = None
        #: Sorts wait while held (`hold_jobs`): the one asked for meanwhile.
        self._held = False
        self._held_request: tuple[tuple[Finding, ...], int] | None = None
        #: Whether the text filter was ever about to be used (see `prepare_filter`).
        self._filter_used = False
        #: The job making the haystacks of a big report, and that report.
        self._hay_job: int | None = None
        self._hay_of: tuple[Finding, ...] | None = None
        if runner is not None:
            runner.finished.connect(self._on_job_finished)
            runner.failed.connect(self._on_job_failed)
            runner.cancelled.connect(self._on_job_cancelled)

    # the sort, as shown and as asked for -------------------------------------------
    def sort_column(self) -> int:
        """The column the rows shown are sorted by (-1: the report's order)."""
        return self._sort_column

    def sort_order(self) -> Qt.SortOrder:
        return self._sort_order

    def wanted_sort(self) -> tuple[int, Qt.SortOrder]:
        """The sort last asked for (shown, or waiting for its order: `sorting()`)."""
        return self._wanted

    def sorting(self) -> bool:
        """Whether a column's order is being made off the GUI thread (or waits to be)."""
        return self._job is not None or self._held_request is not None

    def hold_jobs(self, hold: bool) -> None:
        """While held (a lint runs: its report will replace this one, and a sort beside
        it shared the GIL three ways with the GUI thread, which then waited 100-280 ms),
        a sort asked for is not started, and one under way is stopped; it starts once
        released, if still wanted."""
        self._held = hold
        if hold and self._job is not None and self._job_of is not None:
            running = self._job_of  # stopped too: it waits with the others
            self._drop_job()
            self._held_request = running
            return
        request, self._held_request = self._held_request, None
        if not hold and request is not None:
            findings, column = request
            if (findings is self._next or findings is self._findings) and (
                column == self._wanted[0]
            ):
                self._request(findings, column)
            self.sort_state_changed.emit()

    def set_findings(self, findings: Sequence[Finding]) -> None:
        """Show `findings`. With nothing filtered or sorted, only the rows that differ are
        removed and inserted: after an edit most of 100,000 findings are the same objects.
        Sorted by a column, a big report is shown once its order is made."""
        new = tuple(findings)
        self._next, self._next_orders = None, {}
        if new is self._findings:  # the same report again: its orders stand
            self._apply_wanted()
            return
        column = self._wanted[0]
        if column >= 0 and self._deferred(new):
            self._next = new
            self._request(new, column)
            self.sort_state_changed.emit()
            return
        self._show(new, {})

    def _show(self, new: tuple[Finding, ...], orders: dict[int, tuple[int, ...]]) -> None:
        """Show the report `new` in the wanted sort (`orders`: the orders made of it)."""
        self._drop_job()
        old = self._findings
        # what changed: the same findings before and after it (most, after an edit)
        span = ordering.changed_rows(old, new) if old and new else None
        self._haystacks = self._spliced_haystacks(old, new, span)
        self._orders = orders
        shown_sort = (self._sort_column, self._sort_order)
        self._sort_column, self._sort_order = self._wanted
        if self._narrowed() or span is None:
            self.beginResetModel()
            self._findings = new
            self._shown = self._select()
            self.endResetModel()
        else:
            start, old_end, new_end = span
            if old_end > start:
                self.beginRemoveRows(QModelIndex(), start, old_end - 1)
                self._findings = old[:start] + old[old_end:]
                self.endRemoveRows()
            if new_end > start:
                self.beginInsertRows(QModelIndex(), start, new_end - 1)
                self._findings = new
                self.endInsertRows()
            self._findings = new
        if shown_sort != self._wanted:
            self.sort_state_changed.emit()
        if self._filter_used:
            self._prepare_haystacks()

    def _spliced_haystacks(
        self,
        old: tuple[Finding, ...],
        new: tuple[Finding, ...],
        span: tuple[int, int, int] | None,
    ) -> list[str] | None:
        """The haystacks of `new` from those of `old`, when there are (`span`: what
        changed, `ordering.changed_rows`): only the findings that changed get theirs made
        (111,000 took ~90 ms)."""
        known = self._haystacks
        if known is None or span is None or len(known) != len(old):
            return None
        start, old_end, new_end = span
        return [*known[:start], *ordering.haystacks_of(new[start:new_end]), *known[old_end:]]

    def prepare_filter(self) -> None:
        """The user is about to filter by text (the filter box got the focus): have a job
        make a big report's haystacks now, and each new report's from now on, so that no
        keystroke makes them on the GUI thread. (Not before: 111,000 of them hold ~40 MB.)"""
        self._filter_used = True
        self._prepare_haystacks()

    def _prepare_haystacks(self) -> None:
        findings = self._findings
        if self._haystacks is not None or not self._deferred(findings):
            return
        if self._hay_job is not None and self._hay_of is findings:
            return
        assert self._runner is not None
        if self._hay_job is not None:
            self._runner.cancel(self._hay_job)
        self._hay_of = findings
        self._hay_job = self._runner.submit(ordering.haystacks_job(findings))

    def set_filter(self, severities: frozenset[str] | None, text: str) -> None:
        """Keep the findings of one of `severities` (None: any) whose code, entry, message
        or hint holds `text` (matched in lower case)."""
        self._severities, self._text = severities, text.strip().lower()
        self._reselect()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Rows by `column` (severity: error, warning, info), ties in report order
        (descending: all of it reversed, as Qt's sort does); -1: the report's order. A
        column not sorted yet, of more than `GUI_SORT_MAX` findings, is sorted by a job:
        the rows change when it lands."""
        if (column, order) == self._wanted:
            return  # (a header click asks twice)
        self._wanted = (column, order)
        self._apply_wanted()

    def _apply_wanted(self) -> None:
        """Show the wanted sort if its order is at hand (or cheap), else have it made."""
        column, order = self._wanted
        if self._next is not None:  # a report waits for its order: this column's now
            if column < 0 or column in self._next_orders:
                self._show_next()
            else:
                self._request(self._next, column)
        elif column >= 0 and column not in self._orders and self._deferred(self._findings):
            self._request(self._findings, column)
        else:
            self._drop_job()
            if (column, order) != (self._sort_column, self._sort_order):
                self._sort_column, self._sort_order = column, order
                self._reselect()
        self.sort_state_changed.emit()

    def _deferred(self, findings: tuple[Finding, ...]) -> bool:
        """Whether sorting `findings` is a job."""
        return self._runner is not None and len(findings) > self.GUI_SORT_MAX

    def _request(self, findings: tuple[Finding, ...], column: int) -> None:
        """Have a job make `column`'s order of `findings` (unless one does already)."""
        if (
            self._job is not None
            and self._job_of is not None
            and self._job_of[0] is findings
            and self._job_of[1] == column
        ):
            return
        self._drop_job()
        if self._held:
            self._held_request = (findings, column)
            return
        assert self._runner is not None
        self._job_of = (findings, column)
        self._job = self._runner.submit(ordering.column_order_job(findings, column))

    def _drop_job(self) -> None:
        if self._job is not None and self._runner is not None:
            self._runner.cancel(self._job)
        self._job, self._job_of = None, None
        self._held_request = None

    def _show_next(self) -> None:
        new, orders = self._next, self._next_orders
        assert new is not None
        self._next, self._next_orders = None, {}
        self._show(new, orders)

    def _settle_here(self) -> None:
        """Show what was asked for, its order made here if missing (a sort job failed)."""
        if self._next is not None:
            self._show_next()
        elif (self._sort_column, self._sort_order) != self._wanted:
            self._sort_column, self._sort_order = self._wanted
            self._reselect()
        self.sort_state_changed.emit()

    def _on_job_finished(self, job_id: int, result: object) -> None:
        if job_id == self._hay_job:
            if self._hay_of is self._findings and self._haystacks is None:
                assert isinstance(result, list)
                self._haystacks = result
            self._hay_job, self._hay_of = None, None
            return
        if job_id != self._job or self._job_of is None or not isinstance(result, tuple):
            return
        findings, column = self._job_of
        self._job, self._job_of = None, None
        if findings is self._next:
            self._next_orders[column] = result
        elif findings is self._findings:
            self._orders[column] = result
        self._apply_wanted()

    def _on_job_failed(self, job_id: int, message: str) -> None:
        del message  # (a bug: sorted here instead, where it shows)
        if job_id == self._hay_job:  # (made here when first needed)
            self._hay_job, self._hay_of = None, None
            return
        if job_id == self._job:
            self._job, self._job_of = None, None
            self._settle_here()

    def _on_job_cancelled(self, job_id: int) -> None:
        if job_id == self._hay_job:
            self._hay_job, self._hay_of = None, None
            return
        # Cancelled by someone else (the runner's `cancel_all`): asked again.
        if job_id == self._job and self._job_of is not None:
            findings, column = self._job_of
            self._job, self._job_of = None, None
            self._request(findings, column)

    def _narrowed(self) -> bool:
        return self._severities is not None or bool(self._text) or self._sort_column >= 0

    def _reselect(self) -> None:
        self.layoutAboutToBeChanged.emit()
        before = self.persistentIndexList()
        positions = [self._position(i.row()) for i in before]
        self._shown = self._select()
        if before:
            rows = self._rows_of(positions)
            after = [
                self.index(rows[p], i.column()) if p in rows else QModelIndex()
                for i, p in zip(before, positions, strict=True)
            ]
            self.changePersistentIndexList(before, after)
        self.layoutChanged.emit()

    def _position(self, row: int) -> int:
        shown = self._shown
        return row if shown is None else shown[row]

    def _rows_of(self, positions: Sequence[int]) -> dict[int, int]:
        """{position in the report: its row now} of `positions` still shown (a few: the
        current row and the selection's corners; looked up in C, not by a Python walk
        over every row)."""
        shown = self._shown
        if shown is None:
            return {p: p for p in positions}
        wanted = set(positions)
        rows: dict[int, int] = {}
        if len(wanted) <= 4:
            for p in wanted:
                with contextlib.suppress(ValueError):  # (not shown now)
                    rows[p] = shown.index(p)
            return rows
        for start in range(0, len(shown), RUN):
            part = shown[start : start + RUN]
            for row in compress(range(start, start + len(part)), map(wanted.__contains__, part)):
                rows[shown[row]] = row
        return rows

    def _select(self) -> list[int] | None:
        if not self._narrowed():
            return None
        findings = self._findings
        rows: list[int] | range = range(len(findings))
        if self._severities is not None:
            wanted = self._severities
            rows = [i for i in rows if findings[i].severity in wanted]
        if self._text:
            if self._haystacks is None:  # (a small report, or its job has not landed)
                self._haystacks = ordering.haystacks_of(findings)
            haystacks, text = self._haystacks, self._text
            rows = [i for i in rows if text in haystacks[i]]
        column = self._sort_column
        if column < 0:
            return list(rows)
        order = self._orders.get(column)
        if order is None:  # (few findings, or no runner: made here)
            order = self._orders[column] = ordering.column_order(findings, column)
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

