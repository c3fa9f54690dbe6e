"""The lint Qt models over real lint reports."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest
from PySide6.QtCore import QModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtWidgets import QTableView
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from axmem_gui.core.catalog import Catalog, Memory, Skill
from axmem_gui.core.lint import Finding, LintOptions, LintReport, lint_catalog
from axmem_gui.core.settings import clamp_budget
from axmem_gui.ui.lint.model import (
    SEVERITY_FILTERS,
    EntryFindingsModel,
    FindingRole,
    FindingsFilterModel,
    FindingsModel,
)
from axmem_gui.ui.lint.ordering import FindingColumn, entry_label
from axmem_gui.ui.lint.severity import counts_text

CATALOG = Catalog(
    skills=(
        Skill("lookupInvoice", "Lookup invoice", "Find an invoice by number", "Steps."),
        Skill("dup", "", "", ""),
        Skill("dup", "Second", "Other", "x"),
        Skill("release", "Release", "Ship a release", "Tag and publish."),
    ),
    memories=(Memory("2024", "note"),),
)


def report() -> LintReport:
    return lint_catalog(CATALOG, LintOptions(budget_tokens=10))


def test_findings_models_pass_the_model_tester(qtmodeltester: ModelTester) -> None:
    findings = report().findings
    assert {f.severity for f in findings} >= {"error", "warning"}
    model = FindingsModel()
    model.set_findings(findings)
    qtmodeltester.check(model)
    proxy = FindingsFilterModel()
    proxy.setSourceModel(model)
    proxy.set_severities("Errors")
    qtmodeltester.check(proxy)
    assert proxy.rowCount() == sum(1 for f in findings if f.severity == "error")
    entry = EntryFindingsModel()
    entry.set_findings([f for f in findings if f.entry_id == "lookupInvoice"])
    qtmodeltester.check(entry)
    assert entry.rowCount() >= 1


def test_findings_model_columns_and_roles() -> None:
    findings = report().findings
    model = FindingsModel()
    model.set_findings(findings)
    assert model.rowCount() == len(findings)
    for row, f in enumerate(findings):
        assert model.index(row, FindingColumn.Code).data() == f.code
        assert model.index(row, FindingColumn.Entry).data() == entry_label(f)
        assert model.index(row, FindingColumn.Hint).data() == f.hint
        assert model.index(row, 0).data(FindingRole.Finding) is f
        tip = model.index(row, 3).data(Qt.ItemDataRole.ToolTipRole)
        assert f.hint in tip and f.code in tip
        assert not model.index(row, 0).data(Qt.ItemDataRole.DecorationRole).isNull()
    budget = next(f for f in findings if f.code == "index-over-budget")
    assert entry_label(budget) == "catalog"
    assert model.data(QModelIndex()) is None
    assert model.headerData(0, Qt.Orientation.Horizontal) == "Severity"


def test_counts_text_and_budget_clamp() -> None:
    assert counts_text({"error": 2, "warning": 1, "info": 0}) == "2 errors · 1 warning"
    assert counts_text({"error": 0, "warning": 0, "info": 3}) == "3 info"
    assert counts_text({}) == "no findings"
    assert clamp_budget("1500") == 1500
    assert clamp_budget(10) == 50
    assert clamp_budget(None) == 2000
    assert clamp_budget(True) == 2000
    assert clamp_budget("lots") == 2000


def _old_filter(f: Finding, severities: frozenset[str] | None, text: str) -> bool:
    """What the Python `filterAcceptsRow` the dock had accepted."""
    if severities is not None and f.severity not in severities:
        return False
    haystack = f"{f.code}\n{entry_label(f)}\n{f.message}\n{f.hint}".lower()
    return text in haystack


HOSTILE = (
    Finding("error", "id-empty", "skill", "a.b*(", "Id (a.b*( is odd", "Fix \\1 $x"),
    Finding("warning", "x", "memory", "m\ud800", "lone \ud800 surrogate", "hint\nline"),
    Finding("info", "y", "skill", "İstanbul", "ÀÉ ß ǅ", "nul \0 inside"),
    Finding("error", "warning-code", "catalog", None, "error in message", "info"),
)


def test_the_dock_filter_accepts_what_the_python_filter_did() -> None:
    findings = (*report().findings, *HOSTILE)
    model = FindingsModel()
    model.set_findings(findings)
    proxy = FindingsFilterModel()
    proxy.setSourceModel(model)
    texts = ("", "lookup", "LOOKUP", "a.b*(", "\\1", "\ud800", "ß", "i̇stanbul", "\0",
             "error", "warning", "\n", "catalog", "zzz", "  invoice ")
    for label, severities in SEVERITY_FILTERS.items():
        proxy.set_severities(label)
        for text in texts:
            proxy.set_text(text)
            shown = [proxy.index(r, 0).data(FindingRole.Finding) for r in range(proxy.rowCount())]
            wanted = [f for f in findings if _old_filter(f, severities, text.strip().lower())]
            assert shown == wanted, (label, text)


def python_calls(action: Callable[[], object]) -> Counter[str]:
    """The Python functions `action` ran on this thread, with how often each ran."""
    seen: Counter[str] = Counter()

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event == "call":
            seen[frame.f_code.co_qualname] += 1

    sys.setprofile(profile)
    try:
        action()
    finally:
        sys.setprofile(None)
    return seen


def _shown_in_the_dock(qtbot: QtBot, count: int) -> Counter[str]:
    """The Python calls made on this thread while the dock's table shows `count` findings,
    then the same less one."""
    findings = tuple(
        Finding("warning", "id-not-searchable", "memory", f"m{i}", f"message {i}", "hint")
        for i in range(count)
    )
    model = FindingsModel()
    proxy = FindingsFilterModel()
    proxy.setSourceModel(model)
    table = QTableView()
    table.setModel(proxy)
    table.setSortingEnabled(True)
    table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
    qtbot.addWidget(table)
    table.resize(600, 300)
    table.show()

    def show() -> None:
        model.set_findings(findings)
        model.set_findings(findings[:10] + findings[11:])
        table.grab()
        table.sortByColumn(FindingColumn.Message, Qt.SortOrder.DescendingOrder)
        table.sortByColumn(FindingColumn.Severity, Qt.SortOrder.AscendingOrder)
        table.grab()

    calls = python_calls(show)
    assert proxy.rowCount() == count - 1
    return calls


def test_new_findings_are_not_looked_at_row_by_row_on_the_gui_thread(qtbot: QtBot) -> None:
    """Showing 100,000 findings (the dock at 10,000 skills), and sorting them by a column,
    runs Python code only for the rows in sight, not once per finding on the GUI thread (a
    Python `filterAcceptsRow` ran for every finding, even with nothing to filter, and a
    sort asked Python for both rows of every comparison): 4,000 more findings, no more
    calls."""
    few = _shown_in_the_dock(qtbot, 2000)
    many = _shown_in_the_dock(qtbot, 6000)
    grown = {name: many[name] - few[name] for name in many if many[name] - few[name] > 100}
    assert grown == {}


def test_sorting_a_column_orders_rows_as_qt_did(qtbot: QtBot) -> None:
    """The dock's model sorts itself (a Qt sort proxy asked Python for each compared row:
    21 s for 111,000 findings) in Qt's order: text by UTF-16 code units, severity as
    error < warning < info, ties in report order (descending: reversed); filters apply."""
    odd = (
        Finding("info", "b", "memory", "\U0001f350", "\U0001f350 pear", "z"),
        Finding("warning", "b", "memory", "\ue000", "\ue000 private", "z"),
        Finding("error", "a", "skill", "x\ud800", "lone \ud800", "y"),
        Finding("warning", "A", "skill", "B", "", ""),
    )
    findings = (*report().findings, *odd, *report().findings[:3])
    model = FindingsModel()
    model.set_findings(findings)
    proxy = FindingsFilterModel()
    proxy.setSourceModel(model)
    table = QTableView()
    qtbot.addWidget(table)
    table.setModel(proxy)
    table.setSortingEnabled(True)
    plain = FindingsModel()
    plain.set_findings(findings)
    for column in FindingColumn:
        for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
            table.sortByColumn(column, order)
            shown = [proxy.index(r, 0).data(FindingRole.Finding) for r in range(proxy.rowCount())]
            if column == FindingColumn.Severity:
                positions = sorted(
                    range(len(findings)),
                    key=lambda i: ["error", "warning", "info"].index(findings[i].severity),
                )
                if order == Qt.SortOrder.DescendingOrder:
                    positions.reverse()  # as Qt reversed (severity, report position)
                wanted = [findings[i] for i in positions]
            else:  # Qt's own sort, from the report's order
                reference = QSortFilterProxyModel()
                reference.setSourceModel(plain)
                reference.sort(column, order)
                wanted = [
                    reference.index(r, 0).data(FindingRole.Finding)
                    for r in range(reference.rowCount())
                ]
            assert shown == wanted, (column, order)
    proxy.set_severities("Warnings")
    shown = [proxy.index(r, 0).data(FindingRole.Finding) for r in range(proxy.rowCount())]
    assert shown == [f for f in wanted if f.severity == "warning"]
    table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # back to the report's order
    shown = [proxy.index(r, 0).data(FindingRole.Finding) for r in range(proxy.rowCount())]
    assert shown == [f for f in findings if f.severity == "warning"]


def test_turning_a_sorted_column_around_sorts_nothing_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each click on a column's header sorted all findings again (100-240 ms at 111,000
    messages); the column's order is kept per report, a click or a filter walks it."""
    from axmem_gui.ui.lint import ordering

    calls: list[int] = []
    column_order = ordering.column_order

    def counting(*args: Any, **kwargs: Any) -> Any:

        calls.append(1)
        return column_order(*args, **kwargs)

    monkeypatch.setattr(ordering, "column_order", counting)
    findings = report().findings
    model = FindingsModel()
    model.set_findings(findings)
    model.sort(FindingColumn.Message, Qt.SortOrder.AscendingOrder)
    ascending = [model.finding(r) for r in range(model.row_count())]
    model.sort(FindingColumn.Message, Qt.SortOrder.DescendingOrder)
    model.sort(FindingColumn.Message, Qt.SortOrder.AscendingOrder)
    assert [model.finding(r) for r in range(model.row_count())] == ascending
    model.set_filter(frozenset({"warning"}), "")
    assert [model.finding(r) for r in range(model.row_count())] == [
        f for f in ascending if f.severity == "warning"
    ]
    assert len(calls) == 1
    model.set_findings(findings[:-1])  # a new report: sorted again
    assert len(calls) == 2
