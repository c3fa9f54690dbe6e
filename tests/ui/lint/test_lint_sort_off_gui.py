"""The Lint dock sorts a big report off the GUI thread: a header click, and a new report
while a column is sorted, make the column's order on the task runner (sorting 111,000
messages took 100-240 ms on the GUI thread at each first click); the header shows the
sort of the rows shown meanwhile, and the order is the one Qt's sort gave."""

from __future__ import annotations

import random

import pytest
from PySide6.QtCore import QPersistentModelIndex, QPoint, Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from axmem_gui.core.lint import Finding
from axmem_gui.ui.lint import ordering
from axmem_gui.ui.lint.model import FindingRole, FindingsModel
from axmem_gui.ui.lint.ordering import FindingColumn
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.tasks import Job
from tests.ui.conftest import calls_on_gui_thread
from tests.ui.lint.test_lint_gui import WAIT_MS, feature, wait_for_lint

ODD = (
    Finding("info", "b", "memory", "\U0001f350", "\U0001f350 pear", "z"),
    Finding("warning", "b", "memory", "\ue000", "\ue000 private", "z"),
    Finding("error", "a", "skill", "x\ud800", "lone \ud800 surrogate", "y"),
    Finding("warning", "A", "skill", "B", "", ""),
)


def big_report(count: int, seed: int) -> tuple[Finding, ...]:
    """`count` findings with many equal messages (ties keep report order), in no order."""
    rng = random.Random(seed)
    words = ("alpha", "Beta", "gamma", "ÄÖ", "delta", "zeta", "\ue001x", "\U0001f600y")
    made = [
        Finding(
            rng.choice(("error", "warning", "info")),
            rng.choice(("id-not-searchable", "description-empty", "duplicate-id")),
            rng.choice(("skill", "memory")),
            f"e{rng.randrange(count)}",
            " ".join(rng.choice(words) for _ in range(rng.randrange(1, 3))),
            "hint",
        )
        for _ in range(count)
    ]
    return (*made[: count // 2], *ODD, *made[count // 2 :])


def qt_text_order(findings: tuple[Finding, ...], descending: bool) -> list[Finding]:
    """Messages as Qt orders text (UTF-16 code units), ties in report order; descending:
    all of it reversed, as Qt's sort does."""
    positions = sorted(
        range(len(findings)),
        key=lambda i: findings[i].message.encode("utf-16-be", "surrogatepass"),
    )
    if descending:
        positions.reverse()
    return [findings[i] for i in positions]


def test_a_header_click_on_a_big_report_sorts_it_off_the_gui_thread(
    window: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    wait_for_lint(qtbot, window)
    lint = feature(window)
    lint.show_dock()
    view = lint.view
    model, table = view.model, view.table
    header = table.horizontalHeader()
    qtbot.waitExposed(table)
    sorted_on = calls_on_gui_thread(monkeypatch, ordering, "_sort_keys")
    big = big_report(6000, seed=16)
    model.set_findings(big)
    assert view.proxy.rowCount() == len(big)
    table.setCurrentIndex(view.proxy.index(7, FindingColumn.Code))
    current = view.finding_at(7)

    def shown() -> list[Finding]:
        return [view.finding_at(r) for r in range(view.proxy.rowCount())]

    def click(column: int) -> None:
        x = header.sectionViewportPosition(column) + header.sectionSize(column) // 2
        QTest.mouseClick(
            header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, header.height() // 2)
        )

    click(FindingColumn.Message)
    # Until the order lands: the rows as they were, and the header says so.
    meanwhile = (header.sortIndicatorSection(), shown()[:50], view.state_label.text())
    qtbot.waitUntil(lambda: header.sortIndicatorSection() == FindingColumn.Message, timeout=WAIT_MS)
    assert sorted_on == [False], "the first sort of a big report ran on the GUI thread"
    assert len(big) > FindingsModel.GUI_SORT_MAX
    assert meanwhile == (-1, list(big[:50]), "sorting by message…")
    assert header.sortIndicatorSection() == FindingColumn.Message
    assert header.sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
    assert shown() == qt_text_order(big, descending=False)
    assert "sorting" not in view.state_label.text()
    # The current row stays on its finding.
    assert view.finding_at(table.currentIndex().row()) is current

    # Turned around: the order is kept, nothing sorted again.
    click(FindingColumn.Message)
    assert header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
    assert shown() == qt_text_order(big, descending=True)
    assert sorted_on == [False]

    # A new report while sorted: shown once its order is made, by a job.
    new = (*big[:100], *big[101:], Finding("error", "x", "skill", "new", "aaa", "h"))
    model.set_findings(new)
    assert shown() == qt_text_order(big, descending=True)  # still the shown report's rows
    qtbot.waitUntil(lambda: not model.sorting(), timeout=WAIT_MS)
    assert sorted_on == [False, False]
    assert shown() == qt_text_order(new, descending=True)
    assert header.sortIndicatorSection() == FindingColumn.Message

    # Another column, then back to one asked for before its order landed.
    model.sort(FindingColumn.Entry, Qt.SortOrder.AscendingOrder)
    assert model.sorting() and model.sort_column() == FindingColumn.Message
    model.sort(FindingColumn.Message, Qt.SortOrder.DescendingOrder)
    assert not model.sorting()
    assert header.sortIndicatorSection() == FindingColumn.Message
    assert shown() == qt_text_order(new, descending=True)
    assert all(on is False for on in sorted_on)


def test_rows_kept_by_the_view_follow_their_findings_through_a_sort() -> None:
    """Persistent indexes (the current row, the selection's corners) are moved to where
    their findings went: a few looked up one by one, many in one pass."""
    findings = big_report(3000, seed=3)
    for count in (2, 12):
        model = FindingsModel()
        model.set_findings(findings)
        rows = random.Random(count).sample(range(len(findings)), count)
        kept = [QPersistentModelIndex(model.index(r, 1)) for r in rows]
        model.sort(FindingColumn.Message, Qt.SortOrder.DescendingOrder)
        model.set_filter(frozenset({"error", "warning"}), "")
        for row, index in zip(rows, kept, strict=True):
            if findings[row].severity == "info":
                assert not index.isValid()
            else:
                assert index.isValid() and index.column() == 1
                assert index.data(FindingRole.Finding) is findings[row]


def test_a_big_reports_filter_text_is_made_off_the_gui_thread_and_kept_across_edits(
    window: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the text filter looks in (code, entry, message, hint of each finding: ~90 ms
    at 111,000 findings) is made by a job once the filter box gets the focus, so the
    first keystroke does not make it; a report after an edit makes it only for the
    findings that changed, even while a filter is on."""
    wait_for_lint(qtbot, window)
    lint = feature(window)
    lint.show_dock()
    model = lint.view.model
    made_on = calls_on_gui_thread(monkeypatch, ordering, "haystack")
    big = big_report(6000, seed=3)
    model.set_findings(big)
    assert model._haystacks is None  # (not made before the filter is wanted: memory)
    qtbot.waitExposed(lint.view.filter_edit)
    lint.view.filter_edit.setFocus()
    qtbot.waitUntil(lambda: model._haystacks is not None, timeout=WAIT_MS)
    assert made_on and not any(made_on)  # all of them, on a worker
    made_on.clear()
    lint.view.proxy.set_text("gamma")
    assert made_on == []
    want = [f for f in big if "gamma" in ordering.haystack(f)]
    made_on.clear()
    assert [model.finding(r) for r in range(model.row_count())] == want
    # an edit: one entry's findings change (one changed, one added); the filter still on
    changed = Finding("error", "duplicate-id", "skill", "e1", "Gamma ray", "hint")
    after = (*big[:10], changed, ODD[0], *big[11:])
    model.set_findings(after)
    assert len(made_on) == 2 and all(made_on)  # the changed one and the added one
    for report in (after, (*after[:5], *after[6:3000], ODD[1], *after[3000:-1])):
        model.set_findings(report)  # (changes far apart: what lies between is made again)
        assert model._haystacks == [ordering.haystack(f) for f in report]
        assert [model.finding(r) for r in range(model.row_count())] == [
            f for f in report if "gamma" in ordering.haystack(f)
        ]


def test_a_sort_asked_for_while_a_lint_runs_waits_for_its_report(
    window: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A header clicked during a re-lint: sorting the report about to be replaced beside
    the lint job shared the GIL three ways with the GUI thread (gaps of 100-280 ms). The
    sort waits, and sorts the new report when it lands."""
    wait_for_lint(qtbot, window)
    lint = feature(window)
    model = lint.view.model
    jobs: list[tuple[int, int]] = []
    make_job = ordering.column_order_job

    def counted_job(findings: tuple[Finding, ...], column: int) -> Job:
        jobs.append((len(findings), column))
        return make_job(findings, column)

    monkeypatch.setattr(ordering, "column_order_job", counted_job)
    old, new = big_report(5000, seed=4), big_report(5200, seed=5)
    model.set_findings(old)
    lint.linter.running_changed.emit(True)  # as when a lint starts
    model.sort(FindingColumn.Message, Qt.SortOrder.AscendingOrder)
    assert jobs == [] and model.sorting()
    assert model.sort_column() == -1  # the rows as they were
    model.set_findings(new)  # the lint's report
    lint.linter.running_changed.emit(False)
    assert jobs == [(len(new), FindingColumn.Message)]  # the new report's, only
    qtbot.waitUntil(lambda: not model.sorting(), timeout=WAIT_MS)
    assert model.sort_column() == FindingColumn.Message
    shown = [model.finding(r) for r in range(model.row_count())]
    assert shown == qt_text_order(new, descending=False)


def test_a_sort_under_way_when_a_lint_starts_is_stopped_until_its_report(
    window: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    wait_for_lint(qtbot, window)
    lint = feature(window)
    model = lint.view.model
    old, new = big_report(5000, seed=6), big_report(5100, seed=7)
    model.set_findings(old)
    model.sort(FindingColumn.Hint, Qt.SortOrder.AscendingOrder)
    job = model._job
    assert job is not None  # under way
    lint.linter.running_changed.emit(True)
    assert model._job is None and model.sorting()
    model.set_findings(new)
    lint.linter.running_changed.emit(False)
    qtbot.waitUntil(lambda: not model.sorting(), timeout=WAIT_MS)
    assert model.sort_column() == FindingColumn.Hint
    assert [model.finding(r) for r in range(model.row_count())] == [
        new[i]
        for i in sorted(
            range(len(new)), key=lambda i: new[i].hint.encode("utf-16-be", "surrogatepass")
        )
    ]
