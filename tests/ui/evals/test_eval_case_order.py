"""Cases of an eval set are reordered on the Evals page (issue #30, a try-out: cases could
not be reordered). Up / Down and Alt+Up / Alt+Down in the case list move the selected case
through `EvalService.move_case`: one revision-checked write, one undo step, the selection
follows the case; a set changed elsewhere meanwhile is refused, not reordered."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import Qt

from axmem_gui.services.workspace import open_workspace
from axmem_gui.ui.evals import EVALS, EvalsFeature
from axmem_gui.ui.main_window import MainWindow
from tests.ui.conftest import WindowFactory

SET = "ops-triggers"


def _feature(window: MainWindow) -> EvalsFeature:
    window.show_section("evals")
    feature: EvalsFeature = window.feature(EVALS)
    assert feature.selected_set() == SET
    return feature


def _stored(window: MainWindow) -> list[str]:
    return [c.name for c in window.controller.workspace.evals.get_set(SET).cases]


def _shown(feature: EvalsFeature) -> list[str]:
    cases = feature.page.case_list
    return [cases.item(i).text() for i in range(cases.count())]


def _selected(feature: EvalsFeature) -> str | None:
    _set, case = feature.current()
    return None if case is None else case.name


def test_up_and_down_move_the_case_in_one_undo_step_and_the_selection_follows(
    window: MainWindow,
) -> None:
    feature = _feature(window)
    first, second, third = _stored(window)
    feature.page.case_list.setCurrentRow(0)
    assert not feature.move_up_action.isEnabled() and feature.move_down_action.isEnabled()
    revision = window.controller.workspace.evals.revision_of(SET)
    steps = window.undo_stack.count()
    feature.move_down_action.trigger()
    assert _stored(window) == _shown(feature) == [second, first, third]
    assert window.controller.workspace.evals.revision_of(SET) == (revision or 0) + 1  # one write
    assert _selected(feature) == first and feature.page.case_list.currentRow() == 1
    assert window.undo_stack.count() == steps + 1
    assert window.undo_stack.undoText() == f"Move case '{first}' down in eval set '{SET}'"
    feature.move_down_action.trigger()
    assert _stored(window) == [second, third, first] and _selected(feature) == first
    assert not feature.move_down_action.isEnabled() and feature.move_up_action.isEnabled()
    window.undo_stack.undo()
    window.undo_stack.undo()
    assert _stored(window) == _shown(feature) == [first, second, third]
    assert _selected(feature) == first
    window.undo_stack.redo()
    assert _stored(window) == [second, first, third] and _selected(feature) == first
    feature.move_up_action.trigger()
    assert _stored(window) == [first, second, third]


def test_alt_up_and_alt_down_in_the_case_list(qtbot: Any, window: MainWindow) -> None:
    feature = _feature(window)
    first, second, third = _stored(window)
    cases = feature.page.case_list
    cases.setCurrentRow(1)
    window.activateWindow()
    cases.setFocus()
    qtbot.waitUntil(cases.hasFocus)
    qtbot.keyClick(cases, Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)
    assert _stored(window) == [second, first, third] and _selected(feature) == second
    qtbot.keyClick(cases, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    qtbot.keyClick(cases, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    assert _stored(window) == [first, third, second] and _selected(feature) == second
    qtbot.keyClick(cases, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)  # the last: stays
    assert _stored(window) == [first, third, second]
    qtbot.keyClick(cases, Qt.Key.Key_Up)  # a plain arrow only moves the selection
    assert _stored(window) == [first, third, second] and _selected(feature) == third


def test_a_set_changed_elsewhere_is_not_reordered(window: MainWindow, sample_path: Any) -> None:
    feature = _feature(window)
    first, second, third = _stored(window)
    feature.page.case_list.setCurrentRow(0)
    feature.move_down_action.trigger()
    with open_workspace(sample_path) as cli:  # another program (`axmem eval add --replace`)
        theirs = replace(cli.evals.get_set(SET), description="changed by the CLI")
        cli.evals.save_set(theirs)
    window.undo_stack.undo()
    assert "was changed elsewhere" in feature.page.status.text()
    assert window.controller.workspace.evals.get_set(SET) == theirs
    assert [c.name for c in theirs.cases] == [second, first, third]
    # The page shows the store again; a move from a stale view is refused too.
    with open_workspace(sample_path) as cli:
        cli.evals.move_case(SET, third, 0)
    feature.page.case_list.setCurrentRow(0)
    assert not feature.authoring.move_case(1)
    assert _stored(window) == [third, second, first]


def test_a_read_only_workspace_moves_nothing(make_window: WindowFactory) -> None:
    feature = _feature(make_window(read_only=True))
    feature.page.case_list.setCurrentRow(1)
    assert not feature.move_up_action.isEnabled() and not feature.move_down_action.isEnabled()
