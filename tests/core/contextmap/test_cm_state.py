"""State shapes: TS snapshot and axllm context_map, detection, round trips, bad files."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from axmem_gui.core.contextmap import (
    INITIAL_TEXT,
    ContextMapState,
    MapShape,
    apply_update,
    axllm_state_value,
    normalize_text,
    parse_json_text,
    stored_map_from_json_value,
    stored_map_from_text,
    ts_snapshot_value,
)
from axmem_gui.core.errors import InputError

TEXT = "## PARSING SCHEMA\n[ps-00001] One incident per line\n"


def test_ts_snapshot_round_trip_and_shape() -> None:
    snapshot = {
        "version": 1,
        "text": TEXT,
        "scores": {"ps-00001": 1},
        "steps": 2,
        "maxChars": 700,
        "infiniteEvolve": True,
    }
    stored = stored_map_from_json_value(snapshot, "s.json")
    assert stored.shape is MapShape.TS_SNAPSHOT
    assert stored.state == ContextMapState(TEXT, {"ps-00001": 1}, 2, 700, True, None)
    assert stored.to_json_value() == snapshot
    assert list(stored.to_json_value()) == list(snapshot)


def test_ts_snapshot_defaults_and_evolve_steps() -> None:
    stored = stored_map_from_json_value({"version": 1, "text": ""}, "s.json")
    assert stored.state == ContextMapState()
    assert stored.to_json_value() == {
        "version": 1,
        "text": INITIAL_TEXT,
        "scores": {},
        "steps": 0,
        "maxChars": 4000,
        "infiniteEvolve": True,
    }
    frozen = stored_map_from_json_value(
        {"version": 1, "text": TEXT, "infiniteEvolve": False, "evolveSteps": 1, "steps": 1},
        "s.json",
    )
    assert frozen.state.frozen
    assert frozen.to_json_value()["evolveSteps"] == 1
    # TS drops evolveSteps when infiniteEvolve is true.
    dropped = stored_map_from_json_value({"version": 1, "text": TEXT, "evolveSteps": 3}, "s")
    assert "evolveSteps" not in dropped.to_json_value()


def test_axllm_state_round_trip_keeps_order_and_extra_keys_and_drops_next_id() -> None:
    value = {
        "scores": {"ps-00001": 0},
        "text": TEXT,
        "next_id": 7,
        "owner": {"kept": True},
        "steps": 3,
        "maxChars": 1200,
        "infiniteEvolve": False,
        "evolveSteps": 5,
    }
    stored = stored_map_from_json_value(value, "cm.json")
    assert stored.shape is MapShape.AXLLM
    assert stored.state == ContextMapState(TEXT, {"ps-00001": 0}, 3, 1200, False, 5)
    out = stored.to_json_value()
    assert list(out) == [
        "scores",
        "text",
        "owner",
        "steps",
        "maxChars",
        "infiniteEvolve",
        "evolveSteps",
    ]
    assert out["owner"] == {"kept": True}
    updated = stored.with_state(apply_update(stored.state, {}).state).to_json_value()
    assert updated["steps"] == 4 and "next_id" not in updated


def test_axllm_state_fills_missing_keys_in_axllm_order() -> None:
    stored = stored_map_from_json_value({"text": "[cu-1] old id format"}, "cm.json")
    assert stored.shape is MapShape.AXLLM
    assert stored.to_json_value() == {
        "text": "[cu-1] old id format\n",
        "steps": 0,
        "scores": {},
        "maxChars": 4000,
        "infiniteEvolve": True,
        "evolveSteps": 0,
    }


def test_text_and_json_string_make_a_fresh_ts_map() -> None:
    for stored in (
        stored_map_from_text("  " + TEXT + "\n\n"),
        stored_map_from_json_value(TEXT, "x"),
    ):
        assert stored.shape is MapShape.TS_SNAPSHOT
        assert stored.state == ContextMapState(TEXT)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([], "s.json: expected a context map object (TS snapshot or axllm context_map)"),
        (3, "s.json: expected a context map object (TS snapshot or axllm context_map), got a"),
        ({"version": 2, "text": ""}, "s.json: field 'version' must be 1"),
        ({"version": True, "text": ""}, "s.json: field 'version' must be 1"),
        ({"version": 1}, "s.json: field 'text' is missing"),
        ({"steps": 1}, "s.json: field 'text' is missing"),
        ({"context_map": {"text": ""}}, "pass its 'context_map' object instead"),
        ({"text": 5}, "s.json: field 'text' must be a string, got a number"),
        ({"text": "", "maxChars": 0}, "s.json: field 'maxChars' must be a positive integer, got 0"),
        ({"text": "", "maxChars": "4000"}, "field 'maxChars' must be a positive integer"),
        ({"text": "", "steps": -1}, "s.json: field 'steps' must be a non-negative integer"),
        ({"text": "", "steps": 1.5}, "field 'steps' must be a non-negative integer"),
        ({"text": "", "evolveSteps": None}, "field 'evolveSteps' must be a non-negative integer"),
        (
            {"text": "", "infiniteEvolve": "no"},
            "s.json: field 'infiniteEvolve' must be true or false",
        ),
        ({"text": "", "scores": []}, "s.json: field 'scores' must be an object"),
        (
            {"text": "", "scores": {"cu-00001": "1"}},
            "s.json: field 'scores.cu-00001' must be a number",
        ),
        ({"text": "", "scores": {"cu-00001": True}}, "field 'scores.cu-00001' must be a number"),
        (
            {"version": 1, "text": "", "infiniteEvolve": False},
            "s.json: field 'evolveSteps' is required when 'infiniteEvolve' is false",
        ),
    ],
)
def test_bad_state_names_the_field(value: Any, message: str) -> None:
    with pytest.raises(InputError) as info:
        stored_map_from_json_value(value, "s.json")
    assert message in str(info.value)


def test_integral_floats_are_accepted_like_js_numbers() -> None:
    stored = stored_map_from_json_value({"text": "", "maxChars": 700.0, "steps": 2.0}, "s")
    assert stored.state.max_chars == 700 and isinstance(stored.state.max_chars, int)
    assert stored.state.steps == 2


def test_parse_json_text_reports_position() -> None:
    with pytest.raises(InputError, match=r"^u\.json: not valid JSON \(line 2, column 1: "):
        parse_json_text('{"a":\n}', "u.json")


@st.composite
def stored_values(draw: st.DrawFn) -> tuple[MapShape, ContextMapState]:
    shape = draw(st.sampled_from(list(MapShape)))
    infinite = draw(st.booleans())
    # TS never stores evolveSteps next to infiniteEvolve: true.
    ts_infinite = shape is MapShape.TS_SNAPSHOT and infinite
    evolve_steps = None if ts_infinite else draw(st.integers(0, 9))
    state = ContextMapState(
        text=normalize_text(draw(st.text(max_size=60))),
        scores=draw(
            st.dictionaries(st.text(min_size=1, max_size=8), st.integers(-5, 5), max_size=4)
        ),
        steps=draw(st.integers(0, 50)),
        max_chars=draw(st.integers(1, 10_000)),
        infinite_evolve=infinite,
        evolve_steps=evolve_steps,
    )
    return shape, state


@settings(max_examples=150, deadline=None)
@given(case=stored_values())
def test_round_trip_through_json_is_identity(case: tuple[MapShape, ContextMapState]) -> None:
    shape, state = case
    value = ts_snapshot_value(state) if shape is MapShape.TS_SNAPSHOT else axllm_state_value(state)
    reloaded = stored_map_from_json_value(json.loads(json.dumps(value)), "x")
    assert reloaded.shape is shape
    assert reloaded.state == state
    assert reloaded.to_json_value() == value
