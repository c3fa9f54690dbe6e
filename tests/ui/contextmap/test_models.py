"""The tree and timeline models: consistency (qtmodeltester), diff marks, eviction marks."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QModelIndex, Qt
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from axmem_gui.core.contextmap import (
    ContextMapState,
    apply_update,
    eviction_order,
    pending_evictions,
)
from axmem_gui.services import contextmaps as svc
from axmem_gui.services.workspace import init_workspace
from axmem_gui.ui.contextmap.map_model import COL_SCORE, COL_TEXT, MapRole, MapTreeModel
from axmem_gui.ui.contextmap.rows import Change, build_rows, next_to_evict
from axmem_gui.ui.contextmap.timeline_model import TimelineModel, TimelineRole
from tests.ui.contextmap.maps import AGENT, history, store_history


def _items(model: MapTreeModel) -> dict[str, QModelIndex]:
    out = {}
    for s in range(model.rowCount()):
        section = model.index(s, 0)
        for r in range(model.rowCount(section)):
            index = model.index(r, 0, section)
            out[str(index.data(MapRole.ItemId))] = index
    return out


def test_map_model_is_consistent_with_and_without_diff(qtmodeltester: ModelTester) -> None:
    (_, start, _), (_, first, _), (_, second, _) = history()
    model = MapTreeModel()
    model.set_editable(True)
    model.set_map(second, first)
    qtmodeltester.check(model)
    model = MapTreeModel()
    model.set_map(start)
    qtmodeltester.check(model)
    assert model.rowCount() == 6 and not _items(model)


def test_sections_hold_items_with_scores() -> None:
    state = history()[2][1]
    model = MapTreeModel()
    model.set_map(state)
    titles = [str(model.index(r, 0).data()) for r in range(model.rowCount())]
    assert titles[1] == "CONTEXT UNDERSTANDING  (1)"
    items = _items(model)
    assert set(items) == {"cu-00001", "rr-00002", "ep-00003"}
    assert items["cu-00001"].parent().data(MapRole.SectionName) == "context_understanding"
    for item_id, index in items.items():
        assert index.data(MapRole.Score) == state.scores.get(item_id)
        score_cell = index.siblingAtColumn(COL_SCORE)
        assert score_cell.data() == str(int(state.scores.get(item_id, 0)))
    assert items["ep-00003"].siblingAtColumn(COL_TEXT).data() == "Staging proxy times out at 30 s"


def test_diff_marks_added_replaced_rescored_and_removed() -> None:
    (_, _, _), (_, first, _), (_, second, _) = history()
    rows = {r.item_id: r for s in build_rows(second, first) for r in s.items}
    assert rows["ep-00003"].changes == {Change.ADDED}
    assert rows["cu-00001"].changes == {Change.REPLACED, Change.RESCORED}
    assert rows["cu-00001"].before_content == "Requests concern releases"
    assert rows["rr-00002"].changes == {Change.RESCORED}
    assert rows["rr-00002"].before_score is None and rows["rr-00002"].score == 1
    # Backwards: the newer item shows as removed, in its old section.
    back = {r.item_id: r for s in build_rows(first, second) for r in s.items}
    assert back["ep-00003"].removed and back["ep-00003"].section == "error_patterns"


def test_moved_item_is_marked() -> None:
    before = ContextMapState.from_text("## CONTEXT ROADMAP\n[x-00001] a\n\n## ERROR PATTERNS\n")
    after = ContextMapState.from_text("## CONTEXT ROADMAP\n\n## ERROR PATTERNS\n[x-00001] a\n")
    (row,) = [r for s in build_rows(after, before) for r in s.items]
    assert row.changes == {Change.MOVED} and row.before_section == "context_roadmap"


def test_eviction_marks_equal_core_order() -> None:
    state = history()[2][1]
    rows = [r for s in build_rows(state) for r in s.items]
    order = [c.item.id for c in eviction_order(state.text, state.scores)]
    assert {r.item_id: r.evict_rank for r in rows} == {i: n + 1 for n, i in enumerate(order)}
    assert [r.item_id for r in rows if r.evict_next] == [order[0]] == ["cu-00001"]
    # Over budget: exactly the ids the next update evicts are marked, as pending.
    tight = replace(state, max_chars=state.chars - 40)
    pending = pending_evictions(tight)
    assert pending and next_to_evict(tight) == pending
    marked = [r.item_id for s in build_rows(tight) for r in s.items if r.evict_next]
    assert sorted(marked) == sorted(pending)
    assert all(r.pending_evict for s in build_rows(tight) for r in s.items if r.evict_next)
    # ...and they are what Ax really evicts on the next (empty) update.
    assert apply_update(tight, {}).evicted == pending


def test_edits_in_the_view_become_requests(qtbot: QtBot) -> None:
    model = MapTreeModel()
    model.set_map(history()[2][1])
    index = model.index_of_item("rr-00002", COL_TEXT)
    assert not model.flags(index) & Qt.ItemFlag.ItemIsEditable
    model.set_editable(True)
    assert model.flags(index) & Qt.ItemFlag.ItemIsEditable
    with qtbot.waitSignal(model.text_edit_requested) as text_signal:
        assert model.setData(index, "new words")
    assert text_signal.args == ["rr-00002", "new words"]
    with qtbot.waitSignal(model.score_edit_requested) as score_signal:
        assert model.setData(index.siblingAtColumn(COL_SCORE), 3.0)
    assert score_signal.args == ["rr-00002", 3.0]
    # Unchanged values are not edits; removed rows are not editable.
    assert not model.setData(index, "Load the guide with discover")
    model.set_map(history()[1][1], history()[2][1])
    removed = _items(model)["ep-00003"].siblingAtColumn(COL_TEXT)
    assert removed.data(MapRole.Changes) == ["removed"]
    assert not model.flags(removed) & Qt.ItemFlag.ItemIsEditable
    assert not model.setData(removed, "x")
    assert not model.index_of_item("ep-00003").isValid()


def test_timeline_model_is_consistent(qtmodeltester: ModelTester, tmp_path: Path) -> None:
    with init_workspace(tmp_path / "t.axmem") as ws:
        stored = store_history(ws)
        entries = svc.timeline(ws, AGENT)
    model = TimelineModel()
    model.set_rows(entries, None)
    qtmodeltester.check(model)
    assert [model.index(r, 1).data() for r in range(3)] == [s.label for s in stored]
    assert [model.index(r, 2).data() for r in range(3)] == ["0", "1", "2"]
    assert model.index(2, 3).data() == f"{stored[2].state.chars:,}"
    assert model.index(0, 0).data(TimelineRole.Key) == svc.snapshot_key(stored[0].pk)
