"""Live lint in the real window: the form's panel, the Lint dock, the token budget, the
navigator badge, and how runs are debounced, coalesced and dropped when stale."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, Qt
from pytestqt.qtbot import QtBot

from axmem_gui.core.catalog import Skill
from axmem_gui.core.lint import Finding, LintOptions, LintReport, lint_catalog
from axmem_gui.core.lint.incremental import LintSession
from axmem_gui.core.lint.shared_index import IndexedCatalog, ReadGate
from axmem_gui.core.settings import LINT_BUDGET_KEY as BUDGET_KEY
from axmem_gui.services.workspace import init_workspace
from axmem_gui.store import Workspace
from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.commands import edit_command
from axmem_gui.ui.editor.dialogs import RenameDialog
from axmem_gui.ui.lint.install import LINT, LintFeature, badge_text
from axmem_gui.ui.lint.linter import LintOutcome
from axmem_gui.ui.lint.model import FindingRole
from axmem_gui.ui.lint.severity import counts_text
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.navigator import NavRole
from axmem_gui.ui.retrieval.feature import RETRIEVAL
from tests.helpers.present import present
from tests.helpers.store import raw

WAIT_MS = 15_000


def feature(window: MainWindow) -> LintFeature:
    found = window.feature(LINT)
    assert isinstance(found, LintFeature)
    return found


def settled(window: MainWindow) -> bool:
    linter = feature(window).linter
    return linter.outcome is not None and not linter.running


def wait_for_lint(qtbot: QtBot, window: MainWindow) -> LintOutcome:
    qtbot.waitUntil(lambda: settled(window), timeout=WAIT_MS)
    outcome = feature(window).linter.outcome
    assert outcome is not None
    return outcome


def codes(findings: Iterable[Finding]) -> list[str]:
    return [f.code for f in findings]


def test_panel_shows_a_camel_case_id_and_clears_once_the_id_is_fixed(
    window: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    wait_for_lint(qtbot, window)
    page = window.feature(CATALOG).pages["skills"]
    panel = feature(window).panels["skills"]
    assert page.select_id("postmortemTemplate")
    assert panel.entry_id() == "postmortemTemplate"
    assert codes(panel.findings()) == ["id-not-searchable"]
    assert panel.summary.text() == "1 warning"
    assert "kebab-case" in panel.hint.text()
    assert panel.view.isVisibleTo(panel)

    monkeypatch.setattr(RenameDialog, "ask", classmethod(lambda cls, *a: "postmortem-template"))
    window.feature(CATALOG).rename("skills")
    qtbot.waitUntil(
        lambda: panel.entry_id() == "postmortem-template" and settled(window), timeout=WAIT_MS
    )
    assert panel.findings() == ()
    assert panel.summary.text() == "no findings for this skill"
    assert not panel.view.isVisibleTo(panel)

    window.undo_stack.undo()  # back to the camelCase id: the finding returns
    qtbot.waitUntil(
        lambda: panel.entry_id() == "postmortemTemplate" and codes(panel.findings()) != [],
        timeout=WAIT_MS,
    )
    assert codes(panel.findings()) == ["id-not-searchable"]


def test_panel_follows_typing(window: MainWindow, qtbot: QtBot) -> None:
    wait_for_lint(qtbot, window)
    page = window.feature(CATALOG).pages["skills"]
    panel = feature(window).panels["skills"]
    assert page.select_id("semver-policy")
    assert "stopword-only-description" not in codes(panel.findings())
    form = page.form
    form.description_edit.setFocus()
    form.description_edit.selectAll()
    qtbot.keyClicks(form.description_edit, "help with a new task")
    qtbot.waitUntil(lambda: "stopword-only-description" in codes(panel.findings()), timeout=WAIT_MS)
    finding = next(f for f in panel.findings() if f.code == "stopword-only-description")
    assert finding.field == "description"
    assert "(description)" in panel.model.index(0, 0).data()


def test_dock_lists_the_workspace_findings_and_double_click_jumps_to_the_entry(
    window: MainWindow, qtbot: QtBot
) -> None:
    outcome = wait_for_lint(qtbot, window)
    with Workspace.open(window.controller.path, read_only=True) as ws:
        expected = lint_catalog(raw(ws).catalog(), LintOptions(budget_tokens=2000)).findings
    assert expected  # the sample has findings to show
    view = feature(window).view
    assert outcome.report.findings == expected
    assert [view.finding_at(r) for r in range(view.proxy.rowCount())] == list(expected)
    assert view.counts_label.text() == counts_text(outcome.report.counts())
    assert "checked 16 skills" in view.state_label.text()
    window.show_section("scenarios")

    def double_click(row: int) -> None:
        rect = view.table.visualRect(view.proxy.index(row, 2))
        # A real double-click starts with a press on the same cell.
        qtbot.mouseClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        qtbot.mouseDClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())

    feature(window).show_dock()
    qtbot.waitUntil(lambda: view.table.isVisible(), timeout=WAIT_MS)
    memory_row = next(r for r, f in enumerate(expected) if f.kind == "memory")
    double_click(memory_row)
    assert window.current_section() == "memories"
    memories = window.feature(CATALOG).pages["memories"]
    assert memories.form.entry is not None
    assert memories.form.entry.id == expected[memory_row].entry_id
    assert memories.current_row_id() == expected[memory_row].entry_id

    skill_row = next(r for r, f in enumerate(expected) if f.kind == "skill")
    double_click(skill_row)
    assert window.current_section() == "skills"
    assert window.feature(CATALOG).pages["skills"].current_row_id() == expected[skill_row].entry_id
    panel = feature(window).panels["skills"]
    assert expected[skill_row] in panel.findings()


def test_dock_filters_by_severity_and_text(window: MainWindow, qtbot: QtBot) -> None:
    outcome = wait_for_lint(qtbot, window)
    view = feature(window).view
    findings = outcome.report.findings
    view.severity_combo.setCurrentText("Info")
    assert view.proxy.rowCount() == sum(1 for f in findings if f.severity == "info")
    view.severity_combo.setCurrentText("All severities")
    view.filter_edit.setText("postmortem")
    rows = [view.finding_at(r) for r in range(view.proxy.rowCount())]
    assert rows and all("postmortem" in f"{f.entry_id}{f.message}".lower() for f in rows)
    view.filter_edit.clear()
    # Sorting by severity keeps errors, warnings, info in that order.
    view.table.sortByColumn(0, Qt.SortOrder.DescendingOrder)
    order = [view.proxy.index(r, 0).data(FindingRole.Severity) for r in range(len(findings))]
    assert order == sorted(order, key=["info", "warning", "error"].index)


def test_token_budget_is_kept_in_the_workspace_and_relints(
    window: MainWindow, qtbot: QtBot
) -> None:
    outcome = wait_for_lint(qtbot, window)
    assert "index-over-budget" not in codes(outcome.report.findings)
    view = feature(window).view
    assert view.budget_spin.value() == 2000
    tokens = outcome.report.index_tokens
    view.budget_spin.setValue(max(50, tokens // 2))
    def over_budget() -> bool:
        outcome = feature(window).linter.outcome
        return outcome is not None and "index-over-budget" in codes(outcome.report.findings)

    qtbot.waitUntil(lambda: settled(window) and over_budget(), timeout=WAIT_MS)
    assert "(over)" in view.index_label.text()
    with Workspace.open(window.controller.path, read_only=True) as ws:
        assert raw(ws).settings.get(BUDGET_KEY) == max(50, tokens // 2)


def test_navigator_badge_shows_the_error_count(window: MainWindow, qtbot: QtBot) -> None:
    wait_for_lint(qtbot, window)
    nav = window.nav_model
    row = nav.row_of("skills")
    assert nav.index(row).data(NavRole.Badge) == ""
    ws = window.controller.workspace
    stored = raw(ws).skills.stored("semver-policy")
    assert stored is not None
    session = window.feature(CATALOG).session
    before = stored.entry
    assert isinstance(before, Skill)
    window.undo_stack.push(
        edit_command(
            session, "skills", before, replace(before, name=""), stored.meta.revision, "name"
        )
    )
    qtbot.waitUntil(lambda: nav.index(row).data(NavRole.Badge) == badge_text(1), timeout=WAIT_MS)
    assert badge_text(1) in nav.index(row).data()
    outcome = feature(window).linter.outcome
    assert outcome is not None and "empty-name" in codes(outcome.report.errors)
    window.undo_stack.undo()
    qtbot.waitUntil(lambda: nav.index(row).data(NavRole.Badge) == "", timeout=WAIT_MS)


def test_changes_during_a_run_coalesce_into_one_more_run(
    window: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    wait_for_lint(qtbot, window)
    linter = feature(window).linter
    session = window.feature(CATALOG).session
    # Lint runs started from here on (job ids are shared by every runner of the window,
    # so the pages' and lists' own runners take ids too: count the linter's submits).
    lint_runs: list[int] = []
    submit = linter.runner.submit

    def counting(job: Any, *args: Any, **kwargs: Any) -> Any:
        job_id = submit(job, *args, **kwargs)
        if "lint" in getattr(job, "__qualname__", ""):
            lint_runs.append(job_id)
        return job_id

    monkeypatch.setattr(linter.runner, "submit", counting)
    linter.set_budget_tokens(linter.budget_tokens() + 1)  # new options: a run from scratch
    assert linter.running
    for i in range(10):
        stored = raw(window.controller.workspace).skills.stored("semver-policy")
        assert stored is not None and isinstance(stored.entry, Skill)
        edited = replace(stored.entry, description=f"edit {i}")
        window.undo_stack.push(
            edit_command(
                session, "skills", stored.entry, edited, stored.meta.revision, "description"
            )
        )
        linter.run_now()
    qtbot.waitUntil(
        lambda: settled(window)
        and not window.feature(RETRIEVAL).state.pending
        and not linter._timer.isActive(),
        timeout=WAIT_MS,
    )
    # The first run, and one more for everything that changed while it ran.
    assert len(lint_runs) == 2, lint_runs
    outcome = linter.outcome
    assert outcome is not None and outcome.catalog is not None
    assert outcome.catalog == raw(window.controller.workspace).catalog()  # the last edit
    # Unrelated changes do not lint.
    window.controller.notify_changed("scenarios")
    assert not linter._timer.isActive()


def test_results_for_a_workspace_left_behind_are_dropped(
    window: MainWindow, qtbot: QtBot, tmp_path: Path
) -> None:
    wait_for_lint(qtbot, window)
    linter = feature(window).linter
    seen: list[object] = []
    other = tmp_path / "other.axmem"
    init_workspace(other).close()
    linter.set_budget_tokens(linter.budget_tokens() + 1)  # a run over the sample...
    assert linter.running
    assert window.open_path(other)  # ...that the switch makes stale
    linter.outcome_changed.connect(seen.append)
    qtbot.waitUntil(lambda: settled(window), timeout=WAIT_MS)
    assert window.task_runner.wait(WAIT_MS)
    # The dropped job's thread is done, so any late signal of it is already queued: deliver
    # it (it must not show).
    QCoreApplication.sendPostedEvents()
    QCoreApplication.processEvents()
    outcomes = [o for o in seen if isinstance(o, LintOutcome)]
    assert outcomes and all(o.path == other for o in outcomes)
    assert present(feature(window).linter.outcome).report.skills == 0
    assert feature(window).view.model.rowCount() == 0
    assert feature(window).view.stack.currentWidget() is feature(window).view.empty
    assert window.nav_model.index(0).data(NavRole.Badge) == ""


def test_panel_flags_an_invisible_character_typed_into_a_name(
    window: MainWindow, qtbot: QtBot
) -> None:
    wait_for_lint(qtbot, window)
    page = window.feature(CATALOG).pages["skills"]
    panel = feature(window).panels["skills"]
    assert page.select_id("semver-policy")
    assert "invisible-characters" not in codes(panel.findings())
    form = page.form
    form.name_edit.setFocus()
    form.name_edit.end(False)
    form.name_edit.insert("\u202e")  # as a paste would (QTest cannot type it)
    qtbot.keyClicks(form.name_edit, "x")
    qtbot.waitUntil(lambda: "invisible-characters" in codes(panel.findings()), timeout=WAIT_MS)
    finding = next(f for f in panel.findings() if f.code == "invisible-characters")
    assert finding.field == "name" and "(\\u202e)" in finding.message
    shown = [panel.model.index(row, 0).data() for row in range(panel.model.rowCount())]
    assert any("\\u202e" in text and "\u202e" not in text for text in shown), shown


def test_a_lint_racing_an_edit_reports_the_catalog_it_linted(
    window: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lint borrows the views' search index: while a lint job reads it, an edit is not
    patched in (the retrieval state waits), the job reports the catalog it was lent, and
    the edit is linted by the next run."""
    wait_for_lint(qtbot, window)
    linter = feature(window).linter
    state = window.feature(RETRIEVAL).state
    entered, go = threading.Event(), threading.Event()
    deferred = [0]
    sync = LintSession.sync

    def held_sync(self: LintSession, indexed: IndexedCatalog) -> LintReport:
        entered.set()
        assert go.wait(timeout=60)  # the test lets go (never a timing)
        return sync(self, indexed)

    gate_busy = ReadGate.__dict__["busy"]
    assert isinstance(gate_busy, property) and gate_busy.fget is not None
    busy = gate_busy.fget

    def counted_busy(gate: ReadGate) -> bool:
        value = busy(gate)
        if value and entered.is_set() and not go.is_set():
            deferred[0] += 1
        return bool(value)

    monkeypatch.setattr(LintSession, "sync", held_sync)
    monkeypatch.setattr(ReadGate, "busy", property(counted_busy))
    outcomes: list[LintOutcome] = []
    linter.outcome_changed.connect(lambda o: outcomes.append(o) if o is not None else None)
    session = window.feature(CATALOG).session

    def edit(*, name: str | None = None, description: str | None = None) -> None:
        stored = raw(window.controller.workspace).skills.stored("semver-policy")
        assert stored is not None and isinstance(stored.entry, Skill)
        edited = replace(
            stored.entry,
            name=stored.entry.name if name is None else name,
            description=stored.entry.description if description is None else description,
        )
        window.undo_stack.push(
            edit_command(session, "skills", stored.entry, edited, stored.meta.revision, "x")
        )

    edit(description="Semver rules, first edit")
    qtbot.waitUntil(entered.is_set, timeout=WAIT_MS)  # the lint of edit 1 holds the index
    edit(name="")  # edit 2 races it: an error finding, once linted
    qtbot.waitUntil(lambda: deferred[0] > 0, timeout=WAIT_MS)  # the state waited
    live = state.live.entry("skills", "semver-policy")
    assert isinstance(live, Skill) and live.name != ""
    go.set()
    qtbot.waitUntil(
        lambda: len(outcomes) >= 2 and settled(window) and not state.pending, timeout=WAIT_MS
    )
    options = linter.options()
    first, last = outcomes[0], outcomes[-1]
    assert first.catalog is not None and last.catalog is not None
    linted = {s.id: s for s in first.catalog.skills}["semver-policy"]
    assert linted.description == "Semver rules, first edit" and linted.name != ""
    assert first.report == lint_catalog(first.catalog, options)
    assert "empty-name" not in codes(first.report.errors)
    assert {s.id: s for s in last.catalog.skills}["semver-policy"].name == ""
    assert last.report == lint_catalog(last.catalog, options)
    assert "empty-name" in codes(last.report.errors)
    assert last.catalog == raw(window.controller.workspace).catalog()


def test_long_findings_scroll_and_keep_the_window_within_a_laptop_screen(
    window: MainWindow, qtbot: QtBot
) -> None:
    # 3-4 long warnings made the window's minimum height 769-811 px (taller than a 768 px
    # screen): the findings list grew with every wrapped line and the hint wrapped too.
    from axmem_gui.core.lint import Finding

    wait_for_lint(qtbot, window)
    window.resize(1366, 768)
    page = window.feature(CATALOG).pages["skills"]
    panel = feature(window).panels["skills"]
    assert page.select_id("postmortemTemplate")
    words = " ".join(f"word{i}" for i in range(120))
    found = tuple(
        Finding("warning", f"long-{n}", "skill", "postmortemTemplate", f"{n}: {words}", words)
        for n in range(6)
    )
    panel.show_findings(found)
    assert panel.findings() == found
    # The window's own floor (no findings) is about 703 px; the findings add nothing to it.
    assert window.minimumSizeHint().height() <= 768 - 48
    assert page.form.minimumSizeHint().height() <= 700
    assert panel.minimumSizeHint().height() <= 10 * panel.fontMetrics().lineSpacing()
    # The whole hint is in the tooltip; the list scrolls to the findings below.
    assert panel.hint.full_text() == f"Hint: {words}"
    bar = panel.view.verticalScrollBar()
    assert bar.maximum() > 0
