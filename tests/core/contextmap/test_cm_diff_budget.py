"""Structural diff, budget figures, eviction order and the reading summary."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from axmem_gui.core.contextmap import (
    ContextMapState,
    apply_update,
    budget_of,
    diff_maps,
    diff_to_json,
    eviction_order,
    map_summary_json,
    parse_map,
    pending_evictions,
    render_diff,
    render_summary,
)

BEFORE = ContextMapState.from_text(
    "## CONTEXT UNDERSTANDING\n(what it is)\n[cu-00001] incidents, one per line\n"
    "[cu-00002] services: search, checkout\n"
    "## DOMAIN CONSTANTS\n[dc-00003] SEV1 is worst\n"
)


def test_diff_finds_every_kind_of_change() -> None:
    after = replace(
        ContextMapState.from_text(
            "## CONTEXT UNDERSTANDING\n(what it is, revised)\n"
            "[cu-00001] incidents: <id> | <sev> | <service>\n"
            "## PARSING SCHEMA\n[cu-00002] services: search, checkout\n"
            "[ps-00004] pipe separated\n"
        ),
        scores={"cu-00001": 1, "dc-00003": -1},
        steps=3,
    )
    diff = diff_maps(replace(BEFORE, scores={"dc-00003": 0}, steps=2), after)
    assert [i.id for i in diff.added] == ["ps-00004"]
    assert [i.id for i in diff.removed] == ["dc-00003"]
    assert [(c.item_id, c.before.content, c.after.content) for c in diff.replaced] == [
        ("cu-00001", "incidents, one per line", "incidents: <id> | <sev> | <service>")
    ]
    assert [(c.item_id, c.before.section, c.after.section) for c in diff.moved] == [
        ("cu-00002", "context_understanding", "parsing_schema")
    ]
    assert [(s.item_id, s.before, s.after) for s in diff.rescored] == [
        ("cu-00001", None, 1),
        ("dc-00003", 0, -1),
    ]
    assert diff.steps == (2, 3)
    assert diff.layout_changed
    assert not diff.is_empty

    as_json: dict[str, Any] = diff_to_json(diff)
    assert as_json["moved"] == [
        {"id": "cu-00002", "before": "context_understanding", "after": "parsing_schema"}
    ]
    assert as_json["rescored"][0] == {"id": "cu-00001", "before": None, "after": 1}
    assert as_json["empty"] is False

    text = render_diff(diff)
    assert "steps: 2 -> 3\n" in text
    assert "+ [ps-00004] (parsing_schema) pipe separated\n" in text
    assert "- [dc-00003] (domain_constants) SEV1 is worst\n" in text
    assert "~ [cu-00001] (context_understanding)\n    was: incidents, one per line\n" in text
    assert "> [cu-00002] moved context_understanding -> parsing_schema\n" in text
    assert "* cu-00001: score - -> 1\n" in text
    assert "* dc-00003: score 0 -> -1\n" in text


def test_diff_of_a_map_with_itself_is_empty() -> None:
    diff = diff_maps(BEFORE, BEFORE)
    assert diff.is_empty
    assert render_diff(diff).endswith("no changes\n")


@settings(max_examples=100, deadline=None)
@given(
    ops=st.lists(
        st.sampled_from(
            [
                {"type": "ADD", "section": "reusable_results", "content": "r"},
                {"type": "ADD", "section": "context_understanding", "content": "u"},
                {"type": "DELETE", "item_id": "cu-00001"},
                {"type": "REPLACE", "item_id": "cu-00002", "content": "changed"},
                {"type": "REPLACE", "item_id": "dc-00003", "content": "SEV1 is worst"},
            ]
        ),
        max_size=5,
    ),
    max_chars=st.integers(50, 400),
)
def test_diff_agrees_with_the_update_result(ops: list[dict[str, str]], max_chars: int) -> None:
    before = replace(BEFORE, max_chars=max_chars)
    result = apply_update(before, {"operations": ops})
    diff = diff_maps(before, result.state)
    added_and_kept = {i for i in result.added_ids if i not in result.evicted}
    assert {i.id for i in diff.added} == added_and_kept
    deleted = {a.item_id for a in result.applied if a.operation.to_json()["type"] == "DELETE"}
    before_ids = {i.id for i in parse_map(before.text).items}
    assert {i.id for i in diff.removed} == (deleted | set(result.evicted)) & before_ids
    assert diff.steps == (before.steps, before.steps + 1)


def test_budget_and_eviction_order() -> None:
    state = replace(BEFORE, scores={"cu-00002": 3, "dc-00003": -2})
    budget = budget_of(state)
    assert budget.chars == len(state.text)
    assert budget.fits and budget.remaining == 4000 - budget.chars and budget.over_by == 0
    order = eviction_order(state.text, state.scores)
    assert [(c.item.id, c.score, c.age) for c in order] == [
        ("dc-00003", -2, 3),
        ("cu-00001", 0, 1),
        ("cu-00002", 3, 2),
    ]
    assert pending_evictions(state) == ()
    tight = replace(state, max_chars=budget.chars - 1)
    assert budget_of(tight).over_by == 1 and not budget_of(tight).fits
    assert pending_evictions(tight) == ("dc-00003",)
    # What pending_evictions predicts is what an empty update does.
    assert apply_update(tight, {}).evicted == ("dc-00003",)


def test_summary_json_and_text() -> None:
    state = replace(BEFORE, scores={"cu-00001": 2, "gone-00009": -1}, steps=4, max_chars=120)
    summary: dict[str, Any] = map_summary_json(state)
    sections = {s["name"]: s for s in summary["sections"]}
    assert sections["context_understanding"]["items"] == [
        {"id": "cu-00001", "content": "incidents, one per line", "score": 2, "scored": True},
        {"id": "cu-00002", "content": "services: search, checkout", "score": 0, "scored": False},
    ]
    assert sections["context_roadmap"]["present"] is False
    assert summary["orphanScores"] == {"gone-00009": -1}
    assert summary["nextItemNumber"] == 4
    assert summary["budget"] == {
        "chars": len(state.text),
        "maxChars": 120,
        "remaining": 0,
        "overBy": len(state.text) - 120,
    }
    assert summary["evictionOrder"] == ["cu-00002", "dc-00003", "cu-00001"]
    assert summary["pendingEvictions"] == ["cu-00002"]
    text = render_summary(state)
    assert text.startswith(f"context map: {len(state.text)}/120 chars (UTF-16), steps 4")
    assert "  [cu-00001] score 2: incidents, one per line\n" in text
    assert "## CONTEXT ROADMAP [cr] (no header)\n" in text
    assert "scores kept for items no longer in the map: gone-00009\n" in text
    assert "eviction order (first goes first): cu-00002, dc-00003, cu-00001\n" in text
