"""Context-map use cases against a real workspace file: timeline, edits, import/export."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from axmem_gui.core.contextmap import (
    ContextMapState,
    MapShape,
    StoredContextMap,
    UpdateStatus,
    apply_update,
    axllm_state_value,
    normalize_text,
    parse_map,
    stored_map_from_json_value,
    ts_snapshot_value,
)
from axmem_gui.core.errors import InputError
from axmem_gui.core.session.map_records import MapUpdate
from axmem_gui.core.session.model import SessionAgent
from axmem_gui.services import contextmaps as svc
from axmem_gui.services.sessions import SessionService
from axmem_gui.services.workspace import OpenWorkspace, init_workspace
from tests.helpers.present import present
from tests.helpers.session_docs import make_forward, make_session
from tests.helpers.store import raw
from tests.ui.contextmap.maps import AGENT, OTHER_AGENT, UPDATE_2, history, store_history


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[OpenWorkspace]:
    workspace = init_workspace(tmp_path / "maps.axmem")
    yield workspace
    workspace.close()


def _stored(state: ContextMapState, shape: MapShape = MapShape.AXLLM) -> StoredContextMap:
    return StoredContextMap(state, shape)


# --- timeline ----------------------------------------------------------------------------


def test_timeline_orders_sessions_then_loose_snapshots(ws: OpenWorkspace, tmp_path: Path) -> None:
    # The later session is stored first: order follows when sessions ran, not insertion.
    late = store_history(raw(ws), session_id="run-2", created_at="2026-03-01T09:00:00.000Z")
    early = store_history(raw(ws), session_id="run-1", created_at="2026-02-01T09:00:00.000Z")
    store_history(raw(ws), agent=OTHER_AGENT, session_id="t-1")
    snapshot_file = tmp_path / "loose.json"
    snapshot_file.write_text(json.dumps(ts_snapshot_value(history()[1][1])), encoding="utf-8")
    loose = svc.import_snapshot(ws, AGENT, snapshot_file)

    entries = svc.timeline(ws, AGENT)
    assert [e.pk for e in entries] == [s.pk for s in early] + [s.pk for s in late] + [loose]
    assert [e.label for e in entries[:3]] == [
        "before forward 1",
        "after forward 1",
        "after forward 2",
    ]
    assert [e.step for e in entries[:3]] == [0, 1, 2]
    assert [e.chars for e in entries[:3]] == [s.state.chars for s in early]
    assert entries[0].session_name == "ops run run-1"
    assert entries[-1].session_id is None and entries[-1].label == svc.IMPORTED_LABEL
    assert all(e.agent == AGENT for e in entries)
    assert [e.pk for e in svc.timeline(ws, OTHER_AGENT)] == [
        s.pk for s in raw(ws).contextmaps.list(OTHER_AGENT)
    ]


def test_session_without_snapshot_rows_still_shows(ws: OpenWorkspace) -> None:
    # A session imported as a file: its map snapshots live only in the document.
    states = history()
    maps = [axllm_state_value(state) for _, state, _ in states]
    updates = [MapUpdate(status="updated", diagnosis=d) for d in ("first", "second")]
    session = make_session(
        "imported-run",
        name="imported run",
        created_at="2026-04-01T00:00:00.000Z",
        agent=SessionAgent(name=AGENT, signature="q:string -> a:string", config=None),
        forwards=tuple(
            make_forward(
                i,
                context_map_before=maps[i],
                context_map_after=maps[i + 1],
                context_map_update=updates[i],
            )
            for i in range(2)
        ),
    )
    SessionService(raw(ws)).save(session)
    assert AGENT in svc.map_agents(ws)
    entries = svc.timeline(ws, AGENT)
    assert [e.label for e in entries] == ["before forward 1", "after forward 1", "after forward 2"]
    assert all(e.pk is None and e.session_id == "imported-run" for e in entries)
    # Read back as axllm dicts (which always carry evolveSteps).
    assert [e.stored.state for e in entries] == [replace(s, evolve_steps=0) for _, s, _ in states]
    assert entries[2].update == {"status": "updated", "diagnosis": "second"}


def test_map_agents_come_from_snapshots_configs_and_sessions(ws: OpenWorkspace) -> None:
    store_history(raw(ws), agent="b-agent")
    signature = "q:string -> a:string"
    raw(ws).agents.save(
        "a-config", {"name": "a-config", "signature": signature, "contextMap": {"maxChars": 900}}
    )
    raw(ws).agents.save("no-map", {"name": "no-map", "signature": signature, "contextMap": None})
    assert svc.map_agents(ws) == ["a-config", "b-agent"]


def test_previous_follows_the_base_of_an_edit(ws: OpenWorkspace) -> None:
    stored = store_history(raw(ws))
    entries = svc.timeline(ws, AGENT)
    edited = svc.edit_item_text(entries[1].stored, "cu-00001", "changed by hand")
    pk = svc.save_edited(ws, AGENT, edited, entries[1], ["edited the text of cu-00001"])
    entries = svc.timeline(ws, AGENT)
    assert entries[-1].pk == pk and entries[-1].label == svc.EDITED_LABEL
    assert svc.previous_key(entries, len(entries) - 1) == svc.snapshot_key(stored[1].pk)
    assert svc.previous_key(entries, 2) == svc.snapshot_key(stored[1].pk)
    assert svc.previous_key(entries, 0) is None
    # Saved in the shape of its base, with the axllm keys.
    snap = raw(ws).contextmaps.get(pk)
    assert snap is not None and snap.session_id is None
    assert list(snap.state) == list(axllm_state_value(edited.state))


# --- describing updates ------------------------------------------------------------------


def test_describe_update_shows_diagnosis_tags_and_operations(ws: OpenWorkspace) -> None:
    store_history(raw(ws))
    entry = svc.timeline(ws, AGENT)[2]
    text = "\n".join(svc.describe_update(entry.update))
    assert "Diagnosis: cu-00001 was too narrow; the guide tip helped." in text
    assert "REPLACE cu-00001: Requests concern releases and pages" in text
    assert "ADD to error_patterns: Staging proxy times out at 30 s" in text
    assert "added ep-00003" in text
    session_style = {
        "status": "updated",
        "diagnosis": "d",
        "item_tags": {"cr-00002": "helpful"},
        "operations": [{"type": "ADD", "section": "reusable_results", "content": "x"}],
        "added": ["rr-00003"],
        "changed": ["cr-00002"],
    }
    lines = svc.describe_update(session_style)
    assert "Item tags: cr-00002 helpful" in lines
    assert "Result: added rr-00003; changed cr-00002" in lines
    assert svc.describe_update(None)[0].startswith("No update recorded")


# --- edits -------------------------------------------------------------------------------


def test_edits_write_exactly_what_ax_operations_write() -> None:
    state = history()[2][1]
    stored = _stored(state)
    # The same REPLACE through a real update (minus its step and scoring) gives the same text.
    replaced = svc.edit_item_text(stored, "rr-00002", "Load the guide, then recall owners")
    via_ax = apply_update(
        state,
        {
            "operations": [
                {
                    "type": "REPLACE",
                    "itemId": "rr-00002",
                    "content": "Load the guide, then recall owners",
                }
            ]
        },
    )
    assert replaced.state.text == via_ax.state.text
    assert replaced.state.scores == state.scores and replaced.state.steps == state.steps

    added, new_id = svc.add_item(stored, "DOMAIN CONSTANTS", "EU window is 06:00-08:00 UTC")
    assert new_id == "dc-00004"
    item = parse_map(added.state.text).item(new_id)
    assert item is not None and item.section == "domain_constants"
    assert (
        added.state.text
        == apply_update(
            state,
            {
                "operations": [
                    {
                        "type": "ADD",
                        "section": "domain_constants",
                        "content": "EU window is 06:00-08:00 UTC",
                    }
                ]
            },
        ).state.text
    )

    deleted = svc.delete_item(stored, "cu-00001")
    assert "cu-00001" not in parse_map(deleted.state.text).item_ids
    assert "cu-00001" not in deleted.state.scores  # a later ADD must not inherit it

    scored = svc.set_score(stored, "ep-00003", 2.0)
    assert scored.state.scores["ep-00003"] == 2 and scored.state.text == state.text
    cleared = svc.set_score(scored, "rr-00002", None)
    assert "rr-00002" not in cleared.state.scores


def test_edit_input_is_checked() -> None:
    stored = _stored(history()[2][1])
    joined = svc.edit_item_text(stored, "cu-00001", "two\nlines\r\nhere")
    assert present(parse_map(joined.state.text).item("cu-00001")).content == "two lines here"
    with pytest.raises(InputError, match="must not be empty"):
        svc.edit_item_text(stored, "cu-00001", "  \n ")
    with pytest.raises(InputError, match="must not be empty"):
        svc.add_item(stored, "error_patterns", "\ufeff\u3000")  # JavaScript whitespace
    with pytest.raises(InputError, match="no item 'zz-1'"):
        svc.delete_item(stored, "zz-1")
    with pytest.raises(InputError, match="unknown section"):
        svc.add_item(stored, "nowhere", "x")
    with pytest.raises(InputError, match="maxChars"):
        svc.set_max_chars(stored, 0)
    with pytest.raises(InputError, match="evolveSteps"):
        svc.set_evolution(stored, False, None)


def test_freezing_stops_ax_updates() -> None:
    state = history()[2][1]
    frozen = svc.set_evolution(_stored(state), False, state.steps)
    assert frozen.state.frozen
    result = apply_update(frozen.state, UPDATE_2)
    assert result.status is UpdateStatus.SKIPPED and result.state == frozen.state
    later = svc.set_evolution(_stored(state), False, state.steps + 1)
    assert not later.state.frozen
    assert apply_update(later.state, UPDATE_2).state.frozen
    thawed = svc.set_evolution(frozen, True, None)
    assert thawed.state.infinite_evolve and thawed.state.evolve_steps is None


# --- files -------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [MapShape.TS_SNAPSHOT, MapShape.AXLLM])
def test_export_then_import_round_trips(ws: OpenWorkspace, tmp_path: Path, shape: MapShape) -> None:
    state = replace(history()[2][1], infinite_evolve=False, evolve_steps=5)
    path = tmp_path / f"{shape.value}.json"
    svc.export_snapshot(_stored(state), shape, path)
    value = json.loads(path.read_text(encoding="utf-8"))
    assert ("version" in value) is (shape is MapShape.TS_SNAPSHOT)
    back = svc.read_snapshot_file(path)
    assert back.shape is shape and back.state == state
    pk = svc.import_snapshot(ws, AGENT, path)
    entry = svc.timeline(ws, AGENT)[-1]
    assert entry.pk == pk and entry.stored.state == state and entry.stored.shape is shape
    assert "Imported from" in svc.describe_update(entry.update)[0]


def test_ts_export_of_an_evolving_map_omits_evolve_steps(tmp_path: Path) -> None:
    # axllm writes evolveSteps 0 even while evolving; a TS snapshot then has none.
    stored = StoredContextMap(replace(history()[1][1], evolve_steps=0), MapShape.AXLLM)
    path = tmp_path / "ts.json"
    svc.export_snapshot(stored, MapShape.TS_SNAPSHOT, path)
    value = json.loads(path.read_text(encoding="utf-8"))
    assert "evolveSteps" not in value and value["infiniteEvolve"] is True
    assert value == ts_snapshot_value(replace(stored.state, evolve_steps=None))


def test_axllm_export_keeps_unknown_keys(tmp_path: Path) -> None:
    source = tmp_path / "in.json"
    source.write_text(
        json.dumps({"text": "## CONTEXT ROADMAP\n[cr-1] a\n", "custom": {"x": 1}, "steps": 3}),
        encoding="utf-8",
    )
    stored = svc.read_snapshot_file(source)
    out = tmp_path / "out.json"
    svc.export_snapshot(stored, MapShape.AXLLM, out)
    value = json.loads(out.read_text(encoding="utf-8"))
    assert value["custom"] == {"x": 1} and value["steps"] == 3


def test_bad_import_names_the_file_and_writes_nothing(ws: OpenWorkspace, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"version": 1, "text": "x", "maxChars": -3}), encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.json: field 'maxChars' must be a positive"):
        svc.import_snapshot(ws, AGENT, bad)
    with pytest.raises(InputError, match="not found"):
        svc.import_snapshot(ws, AGENT, tmp_path / "missing.json")
    assert raw(ws).contextmaps.count() == 0


def test_export_to_a_missing_folder_fails_cleanly(tmp_path: Path) -> None:
    target = tmp_path / "no-such-dir" / "map.json"
    with pytest.raises(InputError, match="no-such-dir: folder not found"):
        svc.export_snapshot(_stored(history()[0][1]), MapShape.AXLLM, target)
    assert not target.parent.exists()


def test_plain_text_import_starts_a_fresh_map(ws: OpenWorkspace, tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("## REUSABLE RESULTS\n[rr-00001] keep\n\n", encoding="utf-8")
    svc.import_snapshot(ws, "text-agent", path)
    (entry,) = svc.timeline(ws, "text-agent")
    assert entry.stored.state.text == "## REUSABLE RESULTS\n[rr-00001] keep\n"
    assert entry.stored.shape is MapShape.TS_SNAPSHOT and entry.step == 0


# --- any sequence of edits keeps a map Ax reads the same way ------------------------------

_SECTION_NAMES = [
    "context_roadmap",
    "context_understanding",
    "domain_constants",
    "parsing_schema",
    "reusable_results",
    "error_patterns",
]
_edit = st.one_of(
    st.tuples(st.just("add"), st.sampled_from(_SECTION_NAMES), st.text(min_size=1, max_size=30)),
    st.tuples(st.just("edit"), st.integers(0, 20), st.text(min_size=1, max_size=30)),
    st.tuples(st.just("delete"), st.integers(0, 20)),
    st.tuples(st.just("score"), st.integers(0, 20), st.one_of(st.none(), st.integers(-5, 5))),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_edit, max_size=12))
def test_edit_sequences_keep_the_map_well_formed(edits: list[tuple[object, ...]]) -> None:
    stored = stored_map_from_json_value(axllm_state_value(history()[2][1]), "recorded")
    for edit in edits:
        ids = [item.id for item in parse_map(stored.state.text).items]
        try:
            if edit[0] == "add":
                stored, new_id = svc.add_item(stored, str(edit[1]), str(edit[2]))
                assert new_id in parse_map(stored.state.text).item_ids
                continue
            if not ids:
                continue
            item_id = ids[int(edit[1]) % len(ids)]  # type: ignore[call-overload]
            if edit[0] == "edit":
                stored = svc.edit_item_text(stored, item_id, str(edit[2]))
            elif edit[0] == "delete":
                stored = svc.delete_item(stored, item_id)
                assert item_id not in parse_map(stored.state.text).item_ids
            else:
                score = edit[2]
                stored = svc.set_score(stored, item_id, score)  # type: ignore[arg-type]
                assert stored.state.scores.get(item_id) == score
        except InputError as exc:
            # Only blank text is refused (after line breaks become spaces).
            assert "must not be empty" in str(exc)
            continue
        text = stored.state.text
        assert normalize_text(text) == text
        # Every item is still one `[id] content` line Ax parses back to the same ids.
        assert parse_map(text).duplicate_ids == ()
        assert set(stored.state.scores) <= parse_map(text).item_ids | {"cu-00001", "rr-00002"}
        # Reading the stored value back gives the same state (what Save writes).
        again = stored_map_from_json_value(stored.to_json_value(), "edited")
        assert again.state == stored.state
