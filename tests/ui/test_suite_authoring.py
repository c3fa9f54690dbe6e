"""Suites authored in the GUI: a new user creates a suite, adds a case from the bench, runs
it and sees it pass, without touching a file; then every suite and case action, undoable.
The real dialogs are filled in and accepted (only their modal `exec` is bypassed)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt

from axmem_gui.core.suites import SuiteCase
from axmem_gui.ui.bench.feature import BENCH
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.retrieval.feature import RETRIEVAL
from axmem_gui.ui.suites.dialogs import CaseDialog, SuiteDialog
from axmem_gui.ui.suites.feature import SUITES
from axmem_gui.ui.suites.page import EMPTY_TEXT, SuitesPage
from tests.helpers.present import present
from tests.helpers.store import raw


def suites_page(window: MainWindow) -> SuitesPage:
    page = window.feature(SUITES).page
    assert isinstance(page, SuitesPage)
    return page


def fill_suite_dialog(monkeypatch: pytest.MonkeyPatch, qtbot: Any, name: str) -> None:
    def ask(cls: type, parent: Any, title: str, current: str = "", description: str = "") -> Any:
        dialog = SuiteDialog(parent, title, current, description)
        qtbot.addWidget(dialog)
        dialog.name_edit.setText(name)
        dialog.description_edit.setText("Checks I care about")
        dialog.buttons.accepted.emit()
        assert dialog.result() == 1, dialog.problem.text()
        return dialog.values()

    monkeypatch.setattr(SuiteDialog, "ask", classmethod(ask))


def accept_case_dialog(
    monkeypatch: pytest.MonkeyPatch, qtbot: Any, suite: str | None = None, **fields: str
) -> list[CaseDialog]:
    seen: list[CaseDialog] = []

    def ask(cls: type, parent: Any, title: str, case: Any = None, suites: Any = None,
            current: str = "") -> Any:  # fmt: skip
        dialog = CaseDialog(parent, title, case, suites, current)
        qtbot.addWidget(dialog)
        seen.append(dialog)
        if suite is not None and dialog.suite_combo is not None:
            dialog.suite_combo.setCurrentText(suite)
        for attr, value in fields.items():
            getattr(dialog, attr).setText(value)
        dialog.buttons.accepted.emit()
        if dialog.result() != 1:
            return None
        return dialog.suite_name(), dialog.case()

    monkeypatch.setattr(CaseDialog, "ask", classmethod(ask))
    return seen


def wait_run(page: SuitesPage, qtbot: Any) -> None:
    qtbot.waitUntil(
        lambda: not page.runner.running and not page.progress.isVisible(), timeout=10_000
    )


def empty_the_workspace_suites(window: MainWindow) -> None:
    ws = window.controller.workspace
    for name in raw(ws).suites.list():
        raw(ws).suites.delete(name)
    window.controller.notify_changed("suites")


def test_a_new_user_creates_a_suite_adds_a_bench_case_runs_it_and_it_passes(
    window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty_the_workspace_suites(window)
    page = suites_page(window)
    window.show_section("suites")
    assert page.stack.currentWidget() is page.empty and "New suite" in EMPTY_TEXT
    # 1. New suite, from the empty state's button.
    fill_suite_dialog(monkeypatch, qtbot, "Release questions")
    page.empty_new_button.click()
    assert raw(window.controller.workspace).suites.list() == ["Release questions"]
    assert page.stack.currentWidget() is not page.empty
    assert page.current_name() == "Release questions"
    # 2. A bench query, kept as a case with "Add as case…".
    bench = window.feature(BENCH).panel
    state = window.feature(RETRIEVAL).state
    qtbot.waitUntil(lambda: state.ready, timeout=10_000)
    bench.set_searches(["how do I ship a release"])
    bench.run_button.click()
    assert bench.result is not None and bench.result.rows
    returned = list(bench.result.result_ids)
    dialogs = accept_case_dialog(monkeypatch, qtbot)
    assert bench.add_case_button.isEnabled()
    bench.add_case_button.click()
    [dialog] = dialogs
    assert dialog.suite_name() == "Release questions"
    assert dialog.include_edit.text() == ", ".join(returned)
    [suite] = window.controller.workspace.suites.all()
    assert [c.searches for c in suite.cases] == [("how do I ship a release",)]
    # 3. Run it: it passes.
    window.show_section("suites")
    page.run_button.click()
    wait_run(page, qtbot)
    outcome = page.outcomes["Release questions"]
    assert outcome.result.all_passed and outcome.result.summary.total == 1
    assert page.cases_model.status(0) == "pass"
    assert "1/1 passed" in page.summary_label.text()


def test_suite_and_case_actions_are_undoable(
    window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = suites_page(window)
    ws = window.controller.workspace
    window.show_section("suites")
    original = {s.name: s for s in ws.suites.all()}
    name = page.current_name()
    assert name is not None
    stack = window.undo_stack
    # Duplicate, rename the copy, delete the original: each one undo step.
    assert page.duplicate_suite()
    copy_name = f"{name} copy"
    assert page.current_name() == copy_name and set(raw(ws).suites.list()) == {*original, copy_name}
    fill_suite_dialog(monkeypatch, qtbot, "Renamed copy")
    assert page.edit_suite()
    assert "Renamed copy" in raw(ws).suites.list() and copy_name not in raw(ws).suites.list()
    page.select(name)
    page.list_view.setFocus()
    qtbot.keyClick(page.list_view, Qt.Key.Key_Delete)
    assert name not in raw(ws).suites.list()
    stack.undo()
    assert name in raw(ws).suites.list()
    # Cases: new, edit, duplicate, delete.
    page.select(name)
    cases_before = len(original[name].cases)
    page.cases_view.setFocus()
    # The dialog refuses a case without searches and names the field.
    refused = accept_case_dialog(monkeypatch, qtbot, name_edit="no searches",
                                 include_edit="x")  # fmt: skip
    assert not page.new_case()
    assert "searches" in refused[0].problem.text()

    def new_case_dialog(cls: type, parent: Any, title: str, *rest: Any) -> Any:
        dialog = CaseDialog(parent, title)
        qtbot.addWidget(dialog)
        dialog.set_case(SuiteCase("rollback", "discover", ("rollback",), ("release-checklist",)))
        dialog.buttons.accepted.emit()
        assert dialog.result() == 1, dialog.problem.text()
        return dialog.suite_name(), dialog.case()

    monkeypatch.setattr(CaseDialog, "ask", classmethod(new_case_dialog))
    assert page.new_case()
    after_new = ws.suites.all()
    suite = next(s for s in after_new if s.name == name)
    assert len(suite.cases) == cases_before + 1 and suite.cases[-1].name == "rollback"
    assert present(page.current_case()).name == "rollback"
    assert page.duplicate_case()
    assert present(page.current_case()).name == "rollback copy"
    qtbot.keyClick(page.cases_view, Qt.Key.Key_Delete)
    suite = next(s for s in ws.suites.all() if s.name == name)
    assert "rollback copy" not in [c.name for c in suite.cases]
    # Undo everything back to where we started.
    while stack.canUndo():
        stack.undo()
    assert {s.name: s for s in ws.suites.all()} == original
    while stack.canRedo():
        stack.redo()
    final = {s.name for s in ws.suites.all()}
    assert final == {*original, "Renamed copy"}
    suite = next(s for s in ws.suites.all() if s.name == name)
    assert [c.name for c in suite.cases][-1] == "rollback"


def test_a_suite_changed_elsewhere_is_not_overwritten_by_undo(
    window: MainWindow, qtbot: Any
) -> None:
    page = suites_page(window)
    ws = window.controller.workspace
    window.show_section("suites")
    name = page.current_name()
    assert name is not None and page.duplicate_suite()
    copy_name = page.current_name()
    assert copy_name is not None
    # Another program edits the copy.
    data = raw(ws).suites.get(copy_name)
    assert data is not None
    raw(ws).suites.save(copy_name, {**data, "description": "changed by the CLI"})
    messages: list[str] = []
    page.message.connect(messages.append)
    window.undo_stack.undo()
    assert copy_name in raw(ws).suites.list()  # not deleted over the other program's edit
    assert any("changed elsewhere" in m for m in messages)
