"""Eval sets authored on the Evals page (issue #30: evals were written only as JSON through
the CLI, and results were a text pane). The real dialogs are typed into and saved; what
they write is read back through the evals service the CLI uses; every change is one undo
step; a set changed elsewhere meanwhile is refused, not overwritten."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QDialogButtonBox

from axmem_gui.ui.evals import EVALS, EvalsFeature
from axmem_gui.ui.evals.dialogs import EvalCaseDialog, EvalSetDialog
from axmem_gui.ui.form_dialog import FormDialog
from axmem_gui.ui.main_window import MainWindow

Filler = Callable[[Any], None]
#: The pollers of the running test (kept alive until it ends).
_timers: list[QTimer] = []


def answer_dialogs(*fillers: Filler) -> list[str]:
    """Answer the modal dialogs the next action opens: each filler in turn gets the dialog
    shown then (the same one again when its Save was refused). Returns the problem line
    the dialog showed after each filler (filled in as they run)."""
    queue = list(fillers)
    shown: list[str] = []
    timer = QTimer()
    timer.setInterval(5)  # polls for the dialog; no test waits on it

    def poll() -> None:
        dialog = QApplication.activeModalWidget()
        if not queue or not isinstance(dialog, FormDialog) or not dialog.isVisible():
            return
        try:
            queue.pop(0)(dialog)
        except BaseException:
            queue.clear()
            timer.stop()
            dialog.reject()  # (a failed filler must not leave the test waiting on it)
            raise
        shown.append(dialog.problem.text() if dialog.isVisible() else "")
        if not queue:
            timer.stop()

    timer.timeout.connect(poll)
    timer.start()
    _timers[:] = [timer]
    return shown


def save(dialog: FormDialog) -> None:
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()


def set_form(qtbot: Any, name: str, agent: str = "ops-assistant") -> Filler:
    def fill(dialog: Any) -> None:
        assert isinstance(dialog, EvalSetDialog)
        dialog.name_edit.clear()
        qtbot.keyClicks(dialog.name_edit, name)
        dialog.agent_combo.setCurrentText(agent)
        save(dialog)

    return fill


def case_form(qtbot: Any, name: str, request: str, skills: str, memories: str = "") -> Filler:
    def fill(dialog: Any) -> None:
        assert isinstance(dialog, EvalCaseDialog)
        for edit, text in (
            (dialog.name_edit, name),
            (next(iter(dialog.input_edits.values())).text, request),  # the agent's one input
            (dialog.lists[("skills", "load")], skills),
            (dialog.lists[("memories", "load")], memories),
        ):
            edit.clear()
            if text:
                qtbot.keyClicks(edit, text)
        save(dialog)

    return fill


def _feature(window: MainWindow) -> EvalsFeature:
    window.show_section("evals")
    feature: EvalsFeature = window.feature(EVALS)
    return feature


def test_a_new_set_and_its_first_case_are_written_through_the_service_and_undone(  # type: ignore[no-untyped-def]
    qtbot, window: MainWindow
) -> None:
    feature = _feature(window)
    answer_dialogs(
        set_form(qtbot, "db-triggers"),
        case_form(qtbot, "restore a backup", "How do I restore last night's backup?",
                  "rollback-procedure", "release-owner"),
    )  # fmt: skip
    assert feature.new_set_action.isEnabled()
    feature.new_set_action.trigger()
    evals = window.controller.workspace.evals
    stored = evals.get_set("db-triggers")
    assert stored.agent == "ops-assistant"
    [case] = stored.cases
    agent_input = evals.agent_inputs("ops-assistant")[0]
    assert case.inputs == {agent_input: "How do I restore last night's backup?"}
    assert case.skills.load == ("rollback-procedure",) and case.memories.load == ("release-owner",)
    assert evals.problems(stored) == []  # it runs as saved
    assert feature.selected_set() == "db-triggers"
    assert [
        feature.page.case_list.item(i).text() for i in range(feature.page.case_list.count())
    ] == ["restore a backup"]
    window.undo_stack.undo()
    assert "db-triggers" not in evals.names()
    window.undo_stack.redo()
    assert evals.get_set("db-triggers") == stored


def test_the_case_dialog_shows_what_a_run_would_refuse_and_saves_once_fixed(  # type: ignore[no-untyped-def]
    qtbot, window: MainWindow
) -> None:
    feature = _feature(window)
    before = window.controller.workspace.evals.get_set("ops-triggers")
    problems = answer_dialogs(
        case_form(qtbot, "typo", "Where is the runbook?", "rollback-procdure"),
        case_form(qtbot, "typo", "Where is the runbook?", "rollback-procedure"),
    )
    feature.new_case_action.trigger()
    # Save was refused the first time (the dialog stayed open, saying why), then saved.
    assert problems == ["case 'typo': no skill 'rollback-procdure' in the agent's catalog", ""]
    after = window.controller.workspace.evals.get_set("ops-triggers")
    assert after.cases[:-1] == before.cases
    assert after.cases[-1].skills.load == ("rollback-procedure",)
    window.undo_stack.undo()
    assert window.controller.workspace.evals.get_set("ops-triggers") == before


def test_edit_and_delete_a_case_then_a_set_changed_elsewhere_is_not_overwritten(  # type: ignore[no-untyped-def]
    qtbot, window: MainWindow
) -> None:
    feature = _feature(window)
    evals = window.controller.workspace.evals
    original = evals.get_set("ops-triggers")
    feature.page.case_list.setCurrentRow(0)
    answer_dialogs(
        case_form(qtbot, "ship it", "How do I ship?", "release-checklist", "release-owner"),
    )
    feature.edit_case_action.trigger()
    edited = evals.get_set("ops-triggers")
    assert edited.cases[0].name == "ship it" and edited.cases[1:] == original.cases[1:]
    assert feature.current()[1] is not None and feature.current()[1].name == "ship it"  # type: ignore[union-attr]
    feature.page.case_list.setCurrentRow(1)
    assert feature.delete_case_action.isEnabled()
    feature.delete_case_action.trigger()
    assert [c.name for c in evals.get_set("ops-triggers").cases] == [
        c.name for c in edited.cases if c.name != original.cases[1].name
    ]
    # Another program rewrites the set; undoing the delete now would overwrite it.
    elsewhere = replace(evals.get_set("ops-triggers"), description="changed by the CLI")
    evals.save_set(elsewhere)
    window.undo_stack.undo()
    assert evals.get_set("ops-triggers") == elsewhere
    assert "was changed elsewhere; nothing was changed" in feature.page.status.text()


def test_a_set_with_one_case_keeps_it_and_says_why(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    feature = _feature(window)
    answer_dialogs(
        set_form(qtbot, "solo"),
        case_form(qtbot, "only", "Ship it", "release-checklist"),
    )
    feature.new_set_action.trigger()
    feature.page.case_list.setCurrentRow(0)
    assert not feature.authoring.delete_case()
    assert "a set needs one; delete the set instead" in feature.page.status.text()
    feature.delete_set_action.trigger()
    assert "solo" not in window.controller.workspace.evals.names()


def test_the_set_dialog_refuses_a_taken_name(qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = EvalSetDialog(None, "New eval set", ["ops-assistant"], None, ["ops-triggers"])
    qtbot.addWidget(dialog)
    qtbot.keyClicks(dialog.name_edit, "ops-triggers")
    assert not dialog.checked()
    assert dialog.problem.text() == (
        "an eval set named 'ops-triggers' already exists; choose another name"
    )
    assert dialog.focusWidget() in (None, dialog.name_edit)
