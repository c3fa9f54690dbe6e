"""Applying updates: scores, operations, eviction, steps, frozen maps, reporting."""

from __future__ import annotations

from dataclasses import replace

from axmem_gui.core.contextmap import (
    INITIAL_TEXT,
    AddOperation,
    ContextMapState,
    DeleteOperation,
    ReplaceOperation,
    UpdateStatus,
    apply_update,
    parse_map,
    update_result_to_json,
    utf16_length,
)

LAYOUT = "One incident per line: <id> | <severity> | <service> | <note>"
SEVERITY = "Severity levels: SEV1 (worst) .. SEV3"
RECORDS = "Records: <id> | <severity> | <service> | <note>, one per line"
INC2 = "INC-2 is the only SEV1 incident (checkout)."


def items_of(state: ContextMapState) -> list[tuple[str, str, str]]:
    return [(i.id, i.section, i.content) for i in parse_map(state.text).items]


def two_item_map(**changes: object) -> ContextMapState:
    """The documented TS run: ps-00001 and dc-00002 added to the template, maxChars 700."""
    first = apply_update(
        ContextMapState(max_chars=700),
        {
            "operations": [
                {"type": "ADD", "section": "parsing_schema", "content": LAYOUT},
                {"type": "add", "section": "DOMAIN CONSTANTS", "content": SEVERITY},
            ]
        },
    )
    return replace(first.state, **changes)  # type: ignore[arg-type]


def test_adds_land_at_the_end_of_their_section_with_fresh_ids() -> None:
    state = two_item_map()
    assert state.steps == 1
    assert items_of(state) == [
        ("dc-00002", "domain_constants", SEVERITY),
        ("ps-00001", "parsing_schema", LAYOUT),
    ]
    # Blank line before the item (after the description), blank line before the next header.
    assert (
        "output field requirements defined by the context.)\n\n[dc-00002] "
        + SEVERITY
        + "\n\n## PARSING SCHEMA\n"
    ) in state.text
    assert utf16_length(state.text) == 681


def test_documented_ts_second_update_replaces_adds_and_evicts_the_stale_item() -> None:
    state = two_item_map()
    result = apply_update(
        state,
        {
            "itemTags": {"ps-00001": "helpful", "dc-00002": "stale"},
            "operations": [
                {"type": "REPLACE", "item_id": "ps-00001", "content": RECORDS},
                {"type": "ADD", "section": "reusable_results", "content": INC2},
            ],
        },
    )
    assert result.status is UpdateStatus.UPDATED
    assert result.evicted == ("dc-00002",)
    assert dict(result.state.scores) == {"ps-00001": 1, "dc-00002": -1}  # evicted score kept
    assert result.state.steps == 2
    assert utf16_length(result.state.text) == 687  # the TS run printed 687
    assert [i[0] for i in items_of(result.state)] == ["ps-00001", "rr-00003"]
    assert result.operations == (
        ReplaceOperation("ps-00001", RECORDS),
        AddOperation("reusable_results", INC2),
    )
    assert result.added_ids == ("rr-00003",)


def test_tag_scoring_rules() -> None:
    state = replace(two_item_map(), scores={"dc-00002": 5})
    result = apply_update(
        state,
        {
            "itemTags": {
                "ps-00001": " NEUTRAL ",  # absent -> set to 0
                "dc-00002": "neutral",  # present -> unchanged
                "zz-00009": "helpful",  # unknown id
            }
        },
    )
    assert dict(result.state.scores) == {"dc-00002": 5, "ps-00001": 0}
    assert [(t.item_id, t.reason) for t in result.ignored_tags] == [
        ("zz-00009", "no item 'zz-00009' in the map")
    ]
    result = apply_update(
        result.state,
        {"itemTags": {"ps-00001": "Harmful", "dc-00002": "great", "dc-00003": 1}},
    )
    assert dict(result.state.scores) == {"dc-00002": 5, "ps-00001": -1}
    assert len(result.ignored_tags) == 2


def test_score_only_update_is_unchanged_but_counts_a_step() -> None:
    state = two_item_map()
    result = apply_update(state, {"itemTags": {"ps-00001": "helpful"}, "operations": []})
    assert result.status is UpdateStatus.UNCHANGED
    assert not result.changed
    assert result.state.text == state.text
    assert result.state.steps == state.steps + 1
    assert dict(result.state.scores) == {"ps-00001": 1}
    empty = apply_update(state, {})
    assert empty.status is UpdateStatus.UNCHANGED and empty.state.steps == state.steps + 1


def test_invalid_operations_are_dropped_with_reasons() -> None:
    state = two_item_map()
    raw = [
        {"type": "ADD", "section": "nonsense", "content": "x"},
        {"type": "ADD", "section": "parsing_schema", "content": "   "},
        {"type": "ADD", "content": "no section"},
        {"type": "DELETE"},
        {"type": "DELETE", "item_id": "zz-00009"},
        {"type": "REPLACE", "item_id": "ps-00001"},
        {"type": "MOVE", "item_id": "ps-00001"},
        {"item_id": "ps-00001"},
        "DELETE ps-00001",
        {"type": "REPLACE", "itemId": "", "item_id": "ps-00001", "content": "camel wins"},
    ]
    result = apply_update(state, {"operations": raw})
    assert result.applied == ()
    assert result.status is UpdateStatus.UNCHANGED
    assert [(d.index, d.reason) for d in result.dropped] == [
        (0, "ADD: unknown section 'nonsense'"),
        (1, "ADD: empty content"),
        (2, "ADD: unknown section ''"),
        (3, "DELETE: no item_id/itemId"),
        (4, "DELETE: no item 'zz-00009' in the map"),
        (5, "REPLACE: empty content"),
        (6, "unknown type 'MOVE' (ADD, DELETE or REPLACE)"),
        (7, "no 'type'"),
        (8, "not an object"),
        (9, "REPLACE: no item_id/itemId"),
    ]
    assert result.dropped[4].raw == raw[4]
    assert apply_update(state, {"operations": {"type": "ADD"}}).notes == (
        "operations is not an array; ignored",
    )


def test_replace_and_delete_accept_both_key_spellings() -> None:
    state = two_item_map()
    result = apply_update(
        state,
        {
            "operations": [
                {"type": "replace", "itemId": " ps-00001 ", "content": "  new layout  "},
                {"type": "Delete", "item_id": "dc-00002"},
            ]
        },
    )
    assert items_of(result.state) == [("ps-00001", "parsing_schema", "new layout")]
    assert result.operations == (
        ReplaceOperation("ps-00001", "new layout"),
        DeleteOperation("dc-00002"),
    )
    out = update_result_to_json(result, {"text": result.state.text})
    assert out["operations"] == [
        {"type": "REPLACE", "itemId": "ps-00001", "content": "new layout"},
        {"type": "DELETE", "itemId": "dc-00002"},
    ]


def test_operations_only_see_items_from_before_the_update() -> None:
    # An id added in the same batch cannot be deleted or replaced by a later operation.
    state = ContextMapState.from_text("## CONTEXT UNDERSTANDING\n[cu-00001] a")
    result = apply_update(
        state,
        {
            "operations": [
                {"type": "ADD", "section": "cu".join(["context_", "nderstanding"]), "content": "x"},
                {"type": "ADD", "section": "context understanding", "content": "b"},
                {"type": "DELETE", "item_id": "cu-00002"},
                {"type": "DELETE", "item_id": "cu-00001"},
                {"type": "REPLACE", "item_id": "cu-00001", "content": "never shown"},
            ]
        },
    )
    assert items_of(result.state) == [("cu-00002", "context_understanding", "b")]
    assert [d.index for d in result.dropped] == [0, 2]
    # DELETE and REPLACE of one id are both "applied"; the delete wins in the text.
    assert len(result.applied) == 3


def test_add_into_a_missing_section_appends_it_in_canonical_order() -> None:
    state = ContextMapState.from_text("## ERROR PATTERNS\n[ep-00004] retries hide timeouts")
    result = apply_update(
        state,
        {
            "operations": [
                {"type": "ADD", "section": "reusable_results", "content": "r"},
                {"type": "ADD", "section": "Context Roadmap", "content": "c"},
                {"type": "ADD", "section": "error-patterns", "content": "e"},
                {"type": "ADD", "section": "reusable_results", "content": "r2"},
            ]
        },
    )
    assert result.state.text == (
        # The stored text ends in "\n", so the new item follows that blank last line.
        "## ERROR PATTERNS\n[ep-00004] retries hide timeouts\n\n[ep-00007] e\n\n"
        "## CONTEXT ROADMAP\n[cr-00006] c\n\n"
        "## REUSABLE RESULTS\n[rr-00005] r\n[rr-00008] r2\n"
    )


def test_adds_go_to_the_first_block_of_a_repeated_section_before_unknown_headers() -> None:
    text = "## Reusable Results\n[rr-00001] a\n## Scratch\nnote\n## reusable-results\n[rr-00002] b"
    result = apply_update(
        ContextMapState.from_text(text),
        {"operations": [{"type": "ADD", "section": "reusable_results", "content": "c"}]},
    )
    assert result.state.text == (
        "## Reusable Results\n[rr-00001] a\n[rr-00003] c\n\n## Scratch\nnote\n\n"
        "## reusable-results\n[rr-00002] b\n"
    )


def test_eviction_order_lowest_score_then_oldest_then_text_order() -> None:
    text = (
        "## CONTEXT UNDERSTANDING\n"
        "[cu-00004] four\n[cu-00002] two\n[cu-00003] three\n[x] no number\n[cu-00001] one"
    )
    state = ContextMapState(
        text=text + "\n", scores={"cu-00001": 2, "cu-00003": -1, "x": 0}, max_chars=10_000
    )
    base = utf16_length(state.text)
    # Over budget by one character: exactly one item must go, the lowest score.
    result = apply_update(replace(state, max_chars=base - 1), {})
    assert result.evicted == ("cu-00003",)
    # Force everything out: the order is score, then id number (no number counts as 0).
    result = apply_update(replace(state, max_chars=1), {})
    assert result.evicted == ("cu-00003", "x", "cu-00002", "cu-00004", "cu-00001")
    assert result.state.text == "## CONTEXT UNDERSTANDING\n"
    assert dict(result.state.scores) == dict(state.scores)


def test_eviction_ties_on_score_and_number_keep_text_order() -> None:
    text = "## A\n[cu-00007] first\n[dc-00007] second\n[ps-00007] third\n"
    result = apply_update(ContextMapState(text=text, max_chars=1), {})
    assert result.evicted == ("cu-00007", "dc-00007", "ps-00007")


def test_budget_below_the_template_evicts_everything_and_stays_over() -> None:
    state = two_item_map(max_chars=100)
    result = apply_update(state, {})
    assert set(result.evicted) == {"ps-00001", "dc-00002"}
    assert result.state.text == INITIAL_TEXT
    assert result.status is UpdateStatus.UPDATED


def test_frozen_map_is_skipped_and_left_alone() -> None:
    state = two_item_map(infinite_evolve=False, evolve_steps=1)  # steps == 1 already
    assert state.frozen
    result = apply_update(
        state,
        {
            "itemTags": {"ps-00001": "helpful"},
            "operations": [{"type": "DELETE", "item_id": "ps-00001"}],
        },
    )
    assert result.status is UpdateStatus.SKIPPED
    assert result.skip_reason == "evolve_steps"
    assert result.state is state
    assert result.applied == () and not result.changed and result.step == 1
    still_open = apply_update(replace(state, evolve_steps=2), {"itemTags": {"ps-00001": "helpful"}})
    assert still_open.status is UpdateStatus.UNCHANGED
    assert still_open.state.steps == 2
    assert still_open.state.frozen


def test_unnormalised_text_is_normalised_first_and_that_alone_is_not_a_change() -> None:
    state = ContextMapState(text="\n\n## CONTEXT UNDERSTANDING\n[cu-00001] a   \n\n\n")
    result = apply_update(state, {})
    assert result.state.text == "## CONTEXT UNDERSTANDING\n[cu-00001] a\n"
    assert result.status is UpdateStatus.UNCHANGED
    blank = apply_update(ContextMapState(text="   "), {})
    assert blank.state.text == INITIAL_TEXT


def test_result_json_shape() -> None:
    result = apply_update(
        two_item_map(),
        {
            "diagnosis": "reused the layout",
            "cacheCandidates": [{"section": "x"}],
            "itemTags": {"nope": "helpful"},
            "operations": [{"type": "ADD", "section": "cu", "content": "x"}],
        },
    )
    out = update_result_to_json(result, {"steps": result.state.steps})
    assert out["status"] == "unchanged"
    assert out["step"] == 2
    assert out["diagnosis"] == "reused the layout"
    assert out["operations"] == [] and out["evicted"] == []
    assert out["dropped"] == [
        {
            "index": 0,
            "operation": {"type": "ADD", "section": "cu", "content": "x"},
            "reason": "ADD: unknown section 'cu'",
        }
    ]
    assert out["ignoredTags"] == [
        {"itemId": "nope", "tag": "helpful", "reason": "no item 'nope' in the map"}
    ]
    assert out["state"] == {"steps": 2}
    assert "skipReason" not in out
