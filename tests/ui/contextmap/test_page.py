"""The context map page: timeline, slider, diff, budget gauge, editing and files."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from axmem_gui.core.contextmap import (
    MapShape,
    UpdateStatus,
    apply_update,
    axllm_state_value,
    budget_of,
    eviction_order,
    parse_map,
    pending_evictions,
)
from axmem_gui.services import contextmaps as svc
from axmem_gui.services.workspace import init_workspace, open_workspace
from axmem_gui.ui.contextmap import ContextMapPage
from axmem_gui.ui.contextmap.dialogs import (
    AddItemDialog,
    EvolutionDialog,
    EvolutionSettings,
    ExportSnapshotDialog,
    ImportRequest,
    ImportSnapshotDialog,
)
from axmem_gui.ui.contextmap.editing import DRAFT_KEY, Draft
from axmem_gui.ui.contextmap.map_model import COL_SCORE, COL_TEXT, MapRole
from axmem_gui.ui.contextmap.page import EMPTY_TEXT
from axmem_gui.ui.controller import WorkspaceController
from axmem_gui.ui.dialogs import ErrorDialog
from tests.helpers.present import present
from tests.helpers.store import raw
from tests.ui.contextmap.conftest import PageEnv
from tests.ui.contextmap.maps import AGENT, OTHER_AGENT, UPDATE_2, store_history


def _labels(page: ContextMapPage) -> list[str]:
    model = page.timeline_model
    return [str(model.index(r, 1).data()) for r in range(model.rowCount())]


def _scores(page: ContextMapPage) -> dict[str, object]:
    return {r.item_id: r.score for r in page.map_model.item_rows() if not r.removed}


@pytest.fixture
def no_error_dialogs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    shown: list[str] = []
    monkeypatch.setattr(
        ErrorDialog, "show", classmethod(lambda cls, parent, title, msg: shown.append(msg))
    )
    return shown


# --- viewing -----------------------------------------------------------------------------


def test_timeline_lists_snapshots_in_order_and_slider_moves(env: PageEnv) -> None:
    page = env.page
    assert page.agent == AGENT
    assert _labels(page) == ["before forward 1", "after forward 1", "after forward 2"]
    assert page.current_row() == 2  # the newest is shown first
    assert page.slider.maximum() == 2 and page.slider.value() == 2
    page.slider.setValue(0)
    assert page.current_key() == svc.snapshot_key(env.history[0].pk)
    assert page.slider_label.text() == "1 / 3"
    assert _scores(page) == {}
    page.select_row(1)
    assert page.slider.value() == 1


def test_selecting_shows_items_scores_and_the_update(env: PageEnv) -> None:
    page = env.page
    page.select_row(2)
    state = env.history[2].state
    assert _scores(page) == {"cu-00001": -1, "rr-00002": 1, "ep-00003": None}
    assert {k: state.scores.get(k) for k in _scores(page)} == _scores(page)
    details = page.details.toPlainText()
    assert "Diagnosis: cu-00001 was too narrow; the guide tip helped." in details
    assert "REPLACE cu-00001: Requests concern releases and pages" in details
    assert "ADD to error_patterns: Staging proxy times out at 30 s" in details
    assert "step 2" in page.settings_label.text()
    page.select_row(0)
    assert "No update recorded" in page.details.toPlainText()


def test_diff_highlights_added_and_replaced_items(env: PageEnv) -> None:
    page = env.page
    page.select_row(2)
    assert not page.diff_label.isVisibleTo(page)
    assert all(not changes for changes in page.item_changes().values())
    page.diff_button.setChecked(True)
    changes = page.item_changes()
    assert changes["ep-00003"] == ["added"]
    assert changes["cu-00001"] == ["replaced", "rescored"]
    assert changes["rr-00002"] == ["rescored"]
    index = page.item_index("cu-00001")
    assert index.data(MapRole.BeforeContent) == "Requests concern releases"
    assert "was: Requests concern releases" in str(index.data(Qt.ItemDataRole.ToolTipRole))
    assert page.diff_label.isVisibleTo(page)
    assert "+1 added" in page.diff_label.text() and "~1 replaced" in page.diff_label.text()

    # Against the first snapshot instead: everything is new.
    page.compare_combo.setCurrentIndex(
        page.compare_combo.findData(svc.snapshot_key(env.history[0].pk))
    )
    changes = page.item_changes()
    assert {k: v for k, v in changes.items()} == {
        "cu-00001": ["added"],
        "rr-00002": ["added"],
        "ep-00003": ["added"],
    }
    # Backwards (newer chosen): the items added since show as removed rows.
    page.compare_combo.setCurrentIndex(
        page.compare_combo.findData(svc.snapshot_key(env.history[2].pk))
    )
    page.select_row(1)
    assert page.item_changes()["ep-00003"] == ["removed"]


def test_budget_gauge_equals_core_budget(env: PageEnv) -> None:
    page = env.page
    for row, stored in enumerate(env.history):
        page.select_row(row)
        budget = budget_of(stored.state)
        assert page.gauge.budget == budget
        assert page.gauge.value() == budget.chars
        assert page.gauge.maximum() == budget.max_chars
        assert page.gauge.text().startswith(f"{budget.chars:,} / {budget.max_chars:,} chars")
        assert page.gauge.property("level") == "ok"


def test_next_to_evict_marks_equal_core_order(env: PageEnv) -> None:
    page = env.page
    page.select_row(2)
    state = env.history[2].state
    order = [c.item.id for c in eviction_order(state.text, state.scores)]
    assert page.marked_ids() == order[:1]
    assert page.next_out_label.text() == f"next out: {order[0]}"
    ranks = {r.item_id: r.evict_rank for r in page.map_model.item_rows()}
    assert ranks == {item_id: n + 1 for n, item_id in enumerate(order)}

    # A snapshot over budget: the marks are exactly what the next update evicts.
    tight = replace(state, max_chars=state.chars - 30)
    pk = raw(env.ws).contextmaps.add(AGENT, axllm_state_value(tight), label="tight")
    env.controller.notify_changed("contextmaps")
    page.reload(svc.snapshot_key(pk))
    pending = pending_evictions(tight)
    assert pending and sorted(page.marked_ids()) == sorted(pending)
    assert page.gauge.property("level") == "over"
    assert "over by 30" in page.gauge.text()
    assert page.next_out_label.text() == "the next update evicts: " + ", ".join(pending)


def test_agents_switch_and_empty_agent(env: PageEnv) -> None:
    store_history(raw(env.ws), agent=OTHER_AGENT, session_id="t-1")
    fresh = {"name": "fresh", "signature": "q:string -> a:string", "contextMap": {"maxChars": 900}}
    raw(env.ws).agents.save("fresh", fresh)
    env.page.reload()
    combo = env.page.agent_combo
    assert [combo.itemData(i) for i in range(combo.count())] == ["fresh", AGENT, OTHER_AGENT]
    env.page.select_agent(OTHER_AGENT)
    assert env.page.agent == OTHER_AGENT and len(_labels(env.page)) == 3
    env.page.select_agent("fresh")
    assert _labels(env.page) == []
    assert env.page.center_stack.currentWidget() is env.page.no_snapshots
    assert "fresh" in env.page.no_snapshots.text()


def test_empty_workspace_says_what_to_do(qtbot: QtBot, tmp_path: Path) -> None:
    controller = WorkspaceController(init_workspace(tmp_path / "e.axmem"))
    try:
        from PySide6.QtGui import QUndoStack

        page = ContextMapPage(controller, QUndoStack())
        qtbot.addWidget(page)
        assert page.stack.currentWidget() is page.empty
        assert page.empty.text() == EMPTY_TEXT
        assert "Import snapshot" in page.empty.text()
    finally:
        controller.close()


# --- editing -----------------------------------------------------------------------------


def test_edit_add_delete_score_with_undo_redo(
    env: PageEnv, monkeypatch: pytest.MonkeyPatch, no_error_dialogs: list[str]
) -> None:
    page, stack = env.page, env.stack
    page.select_row(2)
    base = replace(env.history[2].state, evolve_steps=0)  # as the axllm dict reads back

    assert page.edit_item_text("rr-00002", "Load the guide, then recall owners")
    assert page.current_key() == DRAFT_KEY
    assert _labels(page)[-1] == "edited (unsaved)"
    draft = page.editor.draft
    assert draft is not None and draft.base.pk == env.history[2].pk
    assert present(parse_map(draft.stored.state.text).item("rr-00002")).content == (
        "Load the guide, then recall owners"
    )

    monkeypatch.setattr(
        AddItemDialog,
        "ask",
        classmethod(lambda cls, parent, section: ("domain_constants", "SLO 99.9")),
    )
    assert page.add_item()
    assert "dc-00004" in _scores(page)
    assert present(page.selected_item()).item_id == "dc-00004"

    assert page.select_item("cu-00001")
    assert page.delete_selected()
    assert "cu-00001" not in _scores(page)

    assert page.select_item("rr-00002")
    assert page.bump_score(1)
    assert _scores(page)["rr-00002"] == 2
    assert page.select_item("rr-00002")
    assert page.clear_score()
    assert _scores(page)["rr-00002"] is None

    edited = page.editor.draft
    assert edited is not None and len(edited.edits) == 5
    assert raw(env.ws).contextmaps.count() == 3  # nothing stored yet
    for _ in range(5):
        stack.undo()
    assert page.editor.draft is None
    assert page.current_key() == svc.snapshot_key(env.history[2].pk)
    assert _scores(page) == {"cu-00001": -1, "rr-00002": 1, "ep-00003": None}
    for _ in range(5):
        stack.redo()
    assert page.editor.draft is not None and page.editor.draft.stored == edited.stored
    assert page.current_key() == DRAFT_KEY

    assert page.save()
    assert page.editor.draft is None
    saved = svc.timeline(env.ws, AGENT)[-1]
    assert saved.label == svc.EDITED_LABEL and saved.stored.state == edited.stored.state
    assert page.current_key() == saved.key
    assert "Edited by hand" in page.details.toPlainText()
    # History untouched; the base is what "previous" now compares against.
    assert svc.timeline(env.ws, AGENT)[2].stored.state == base
    page.diff_button.setChecked(True)
    assert page.item_changes()["dc-00004"] == ["added"]
    assert page.item_changes()["cu-00001"] == ["removed"]
    assert not no_error_dialogs


def test_editing_in_the_tree_pushes_a_command(env: PageEnv, qtbot: QtBot) -> None:
    page = env.page
    page.select_row(1)
    index = page.item_index("cu-00001", COL_TEXT)
    assert page.map_model.setData(index, "Typed in the tree")
    qtbot.waitUntil(lambda: page.editor.draft is not None)
    assert page.item_index("cu-00001", COL_TEXT).data() == "Typed in the tree"
    score = page.item_index("cu-00001", COL_SCORE)
    assert page.map_model.setData(score, -2.0)
    qtbot.waitUntil(lambda: _scores(page).get("cu-00001") == -2)
    assert env.stack.count() == 2
    env.stack.undo()
    assert _scores(page).get("cu-00001") is None


def test_bad_edit_is_reported_not_applied(env: PageEnv, no_error_dialogs: list[str]) -> None:
    page = env.page
    assert not page.edit_item_text("cu-00001", "   ")
    assert no_error_dialogs and "must not be empty" in no_error_dialogs[0]
    assert page.editor.draft is None and env.stack.count() == 0


def test_freeze_and_budget_settings(env: PageEnv, monkeypatch: pytest.MonkeyPatch) -> None:
    page = env.page
    page.select_row(2)
    monkeypatch.setattr(
        EvolutionDialog,
        "ask",
        classmethod(lambda cls, parent, state: EvolutionSettings(False, state.steps, 2000)),
    )
    assert page.edit_evolution()
    state = page.current_state()
    assert state is not None and state.frozen and state.max_chars == 2000
    assert "frozen" in page.settings_label.text()
    assert page.gauge.maximum() == 2000
    # Ax would now skip the update entirely.
    assert apply_update(state, UPDATE_2).status is UpdateStatus.SKIPPED
    assert "frozen at evolveSteps 2" in present(page.editor.draft).edits[-1]
    env.stack.undo()
    assert page.current_state() == replace(env.history[2].state, evolve_steps=0)


def test_read_only_workspace_can_edit_but_not_save(qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "ro.axmem"
    with init_workspace(path) as ws:
        store_history(raw(ws))
    controller = WorkspaceController(open_workspace(path, read_only=True))
    try:
        from PySide6.QtGui import QUndoStack

        page = ContextMapPage(controller, QUndoStack())
        qtbot.addWidget(page)
        assert page.edit_item_text("cu-00001", "changed")
        assert page.discard_action.isEnabled() and not page.save_action.isEnabled()
    finally:
        controller.close()


# --- files -------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [MapShape.TS_SNAPSHOT, MapShape.AXLLM])
def test_export_then_import_round_trip(
    env: PageEnv,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    shape: MapShape,
    no_error_dialogs: list[str],
) -> None:
    page = env.page
    page.select_row(2)
    page.edit_item_text("cu-00001", "Edited before export")
    draft = page.editor.draft
    assert isinstance(draft, Draft)
    target = tmp_path / f"export-{shape.value}.json"
    monkeypatch.setattr(
        ExportSnapshotDialog, "ask", classmethod(lambda cls, parent, name, cur: (target, shape))
    )
    assert page.export_snapshot()
    value = json.loads(target.read_text(encoding="utf-8"))
    assert value["text"] == draft.stored.state.text
    assert ("version" in value) is (shape is MapShape.TS_SNAPSHOT)

    monkeypatch.setattr(
        ImportSnapshotDialog,
        "ask",
        classmethod(lambda cls, parent, start, agents, current: ImportRequest(target, "imported")),
    )
    assert page.import_snapshot()
    assert page.agent == "imported"
    entry = page.current_source()
    assert entry is not None and not isinstance(entry, Draft)
    assert entry.label == svc.IMPORTED_LABEL and entry.stored.shape is shape
    expected = draft.stored.state
    if shape is MapShape.TS_SNAPSHOT:
        expected = replace(expected, evolve_steps=None)
    assert entry.stored.state == expected
    assert not no_error_dialogs


def test_import_error_names_the_file(
    env: PageEnv, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, no_error_dialogs: list[str]
) -> None:
    bad = tmp_path / "broken.json"
    bad.write_text("{not json", encoding="utf-8")
    monkeypatch.setattr(
        ImportSnapshotDialog,
        "ask",
        classmethod(lambda cls, parent, start, agents, current: ImportRequest(bad, AGENT)),
    )
    assert not env.page.import_snapshot()
    assert no_error_dialogs and "broken.json: not valid JSON" in no_error_dialogs[0]
    assert raw(env.ws).contextmaps.count() == 3


def test_raw_text_shows_the_exact_map(env: PageEnv) -> None:
    page = env.page
    page.select_row(2)
    page.raw_button.setChecked(True)
    assert page.center_stack.currentWidget() is page.raw_text
    assert page.raw_text.toPlainText() == env.history[2].state.text
    page.select_row(1)
    assert page.raw_text.toPlainText() == env.history[1].state.text
    page.raw_button.setChecked(False)
    assert page.center_stack.currentWidget() is page.tree
