"""Differential tests: our update == the installed axllm's update, on random maps and updates.

The generated text avoids the three corners where axllm's port differs from TS and where we
follow TS (see the package docstring): CR/U+2028/U+2029 inside an item line,
U+001C..U+001F/U+0085/U+FEFF inside a section name, and id numbers beyond 2**53.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from axmem_gui.core.contextmap import apply_update, stored_map_from_json_value
from tests.core.contextmap.axllm_reference import axllm_apply, axllm_evolve

SECTION_SPELLINGS = [
    "context_roadmap",
    "CONTEXT UNDERSTANDING",
    "Domain-Constants",
    "parsing schema:",
    "  reusable  results ",
    "error_patterns",
    "Error Patterns",
    "context-understanding",
]
SLUGS = ["cr", "cu", "dc", "ps", "rr", "ep", "zz"]
CONTENT_ALPHABET = "ab Z]-[é😀\t#(.)"

contents = st.text(alphabet=CONTENT_ALPHABET, max_size=40)
numbers = st.integers(min_value=0, max_value=120)


@st.composite
def item_ids(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return draw(st.sampled_from(["x", "cu-1x", "a-b-3", "cu-", "[", "cu-0"]))
    number = draw(numbers)
    slug = draw(st.sampled_from(SLUGS))
    return f"{slug}-{number:05d}" if kind < 7 else f"{slug}-{number}"


@st.composite
def map_lines(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 9))
    if kind <= 1:
        hashes = "#" * draw(st.integers(2, 4))
        title = draw(st.sampled_from([*SECTION_SPELLINGS, "Notes", "", "cu"]))
        return (
            f"{draw(st.sampled_from(['', ' ']))}{hashes}{draw(st.sampled_from(['', ' ']))}{title}"
        )
    if kind <= 6:
        lead = draw(st.sampled_from(["", " ", "\t"]))
        sep = draw(st.sampled_from(["", " ", "  "]))
        return f"{lead}[{draw(item_ids())}]{sep}{draw(contents)}"
    if kind == 7:
        return draw(st.sampled_from(["", "", "  ", "\t"]))
    return draw(st.sampled_from(["(what goes here)", "# single hash", "plain words", "[]"]))


@st.composite
def map_texts(draw: st.DrawFn) -> str:
    body = "\n".join(draw(st.lists(map_lines(), max_size=14)))
    return (
        draw(st.sampled_from(["", " \n", "\n\n"]))
        + body
        + draw(st.sampled_from(["", "\n", " \n\n"]))
    )


def ids_in(text: str) -> list[str]:
    found = []
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith("[") and "]" in stripped:
            found.append(stripped[1 : stripped.index("]")])
    return found


@st.composite
def context_maps(draw: st.DrawFn) -> dict[str, Any]:
    text = draw(map_texts())
    ids = ids_in(text) or ["cu-00001"]
    # Budgets around the text's own length, so eviction happens often but not always.
    budget = draw(st.one_of(st.just(4000), st.integers(-120, 80).map(lambda d: len(text) + d)))
    cm: dict[str, Any] = {
        "text": text,
        "steps": draw(st.integers(0, 4)),
        "scores": draw(
            st.dictionaries(st.sampled_from(ids), st.integers(-3, 3), max_size=len(ids))
        ),
        "maxChars": max(1, budget),
        "infiniteEvolve": draw(st.sampled_from([True, True, True, True, False])),
        "evolveSteps": draw(st.integers(0, 5)),
    }
    if draw(st.booleans()):
        cm["next_id"] = draw(st.integers(0, 9))
    if draw(st.booleans()):
        cm["note"] = "kept by axllm"
    return cm


@st.composite
def well_formed_operations(draw: st.DrawFn, ids: list[str]) -> dict[str, object]:
    op_type = draw(st.sampled_from(["ADD", "ADD", "DELETE", "REPLACE", "add", "Replace"]))
    if op_type.upper() == "ADD":
        section = draw(st.sampled_from(SECTION_SPELLINGS))
        return {"type": op_type, "section": section, "content": draw(contents) + "x"}
    target = draw(st.sampled_from(ids)) if ids else "cu-00001"
    key = draw(st.sampled_from(["item_id", "itemId"]))
    op: dict[str, object] = {"type": op_type, key: target}
    if op_type.upper() == "REPLACE":
        op["content"] = draw(contents) + "y"
    return op


@st.composite
def odd_operations(draw: st.DrawFn, ids: list[str]) -> object:
    kind = draw(st.integers(0, 12))
    target = draw(st.sampled_from([*ids, "zz-00099", "", "  "]) if ids else st.just("cu-00001"))
    if kind == 0:
        return draw(st.sampled_from(["ADD", 3, None, ["ADD"]]))
    op_type = draw(
        st.sampled_from(
            ["ADD", "add", " Add ", "DELETE", "delete", "REPLACE", "Replace", "MOVE", None, 7]
        )
    )
    op: dict[str, object] = {} if op_type is None else {"type": op_type}
    if draw(st.booleans()):
        op["section"] = draw(st.sampled_from([*SECTION_SPELLINGS, "nonsense", "", 5]))
    if draw(st.integers(0, 4)):
        op["content"] = draw(contents | st.sampled_from(["  ", "x\ny", "", 12]))
    id_key = draw(st.sampled_from(["item_id", "itemId", "both", "none"]))
    if id_key in ("item_id", "both"):
        op["item_id"] = target
    if id_key in ("itemId", "both"):
        op["itemId"] = draw(st.sampled_from([target, "", 9]))
    return op


def operations(ids: list[str]) -> st.SearchStrategy[object]:
    return st.one_of(well_formed_operations(ids), well_formed_operations(ids), odd_operations(ids))


@st.composite
def updates(draw: st.DrawFn, ids: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    distiller: dict[str, Any] = {}
    if draw(st.booleans()):
        distiller["diagnosis"] = "learned something"
    if draw(st.integers(0, 3)):
        tag_ids = st.sampled_from([*ids, *ids, "zz-00042"]) if ids else st.just("zz-00042")
        tags = st.sampled_from(
            ["helpful", "harmful", "stale", "neutral", " Helpful ", "NEUTRAL", "meh"]
        )
        distiller["itemTags"] = draw(st.dictionaries(tag_ids, tags, max_size=6))
    cartographer: dict[str, Any] = {}
    if draw(st.integers(0, 4)):
        cartographer["operations"] = draw(st.lists(operations(ids), max_size=6))
    return distiller, cartographer


def ours(cm: dict[str, Any], payload: dict[str, Any]) -> dict[str, object]:
    stored = stored_map_from_json_value(cm, "generated")
    return stored.with_state(apply_update(stored.state, payload).state).to_json_value()


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_apply_matches_axllm_helpers(data: st.DataObject) -> None:
    cm = data.draw(context_maps())
    distiller, cartographer = data.draw(updates(ids_in(cm["text"])))
    payload = {**distiller, **cartographer}
    # Inputs AxGen would not pass through: non-object tags, non-array operations.
    if data.draw(st.integers(0, 9)) == 0:
        payload["itemTags"] = data.draw(st.sampled_from([["helpful"], "helpful", 3, None]))
    if data.draw(st.integers(0, 9)) == 0:
        payload["operations"] = data.draw(st.sampled_from([{"type": "ADD"}, "ADD", None]))
    expected = axllm_apply(cm, payload)
    actual = ours(cm, payload)
    assert actual == expected
    assert list(actual) == list(expected)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_apply_matches_axllm_agent_evolve(data: st.DataObject) -> None:
    cm = data.draw(context_maps())
    distiller, cartographer = data.draw(updates(ids_in(cm["text"])))
    expected, calls = axllm_evolve(cm, distiller, cartographer)
    stored = stored_map_from_json_value(cm, "generated")
    result = apply_update(stored.state, {**distiller, **cartographer})
    assert stored.with_state(result.state).to_json_value() == expected
    # A frozen map makes no model call in axllm and is `skipped` here.
    assert (calls == 0) == (result.status.value == "skipped")


@pytest.mark.slow
@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_apply_matches_axllm_helpers_long(data: st.DataObject) -> None:
    test_apply_matches_axllm_helpers.hypothesis.inner_test(data)  # type: ignore[attr-defined]


def test_known_port_divergences_follow_ts() -> None:
    """Where axllm's Python port parts from TS, we do what TS does (and say so here, so a
    future axllm that changes either way shows up)."""
    cm = {"text": "## CONTEXT UNDERSTANDING\n[cu-00001] a\rb\n[cu-00002] c", "maxChars": 4000}
    payload = {
        "itemTags": {"cu-00001": "helpful"},
        "operations": [
            {"type": "ADD", "section": "reusable\x1cresults", "content": "python whitespace"},
            {"type": "ADD", "section": "reusable\ufeffresults", "content": "js whitespace"},
        ],
    }
    theirs = axllm_apply(cm, payload)
    mine = ours(cm, payload)
    # JS `.` does not match CR: in TS that line is no item, so its tag is ignored.
    assert theirs["scores"] == {"cu-00001": 1}
    assert mine["scores"] == {}
    # JS `\s` has U+FEFF but not U+001C; Python's `\s` is the other way round.
    assert "python whitespace" in theirs["text"] and "js whitespace" not in theirs["text"]
    assert "js whitespace" in str(mine["text"]) and "python whitespace" not in str(mine["text"])
