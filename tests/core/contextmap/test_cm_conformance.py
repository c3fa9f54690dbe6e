"""Ax's cross-language conformance fixtures for the context map, translated to today's format.

The fixtures (tests/fixtures/ax-conformance-contextmap, from the Ax repository) predate two
format changes: ids were unpadded (`cu-2`, now `cu-00002`) and the text always listed all six
headers with no descriptions or blank lines (now only sections that exist or receive an ADD,
trimmed text plus `\\n`). The translation pads ids everywhere and compares items (id, section,
content) in section order, scores and steps. The one budget-sensitive fixture keeps its meaning
by keeping the map over budget by the same number of characters as in the old format.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.core.contextmap import (
    SECTIONS,
    ContextMapState,
    UpdateStatus,
    apply_update,
    axllm_state_value,
    parse_map,
    stored_map_from_json_value,
    utf16_length,
)
from tests.core.contextmap.axllm_reference import axllm_apply

SECTION_ORDER = {s.name: n for n, s in enumerate(SECTIONS)}
_OLD_ID = re.compile(r"\b(cr|cu|dc|ps|rr|ep)-([0-9]{1,4})\b")


FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "ax-conformance-contextmap"


def fixture(name: str) -> dict[str, Any]:
    path = FIXTURES / f"agent-context-map-{name}.json"
    value: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return value


def pad_ids(text: str) -> str:
    return _OLD_ID.sub(lambda m: f"{m.group(1)}-{int(m.group(2)):05d}", text)


def pad_value(value: Any) -> Any:
    return json.loads(pad_ids(json.dumps(value)))


def render_old_format(text: str) -> str:
    """The old renderer: every header, then its items, one per line, no trailing newline."""
    items = parse_map(text).items
    lines = []
    for section in SECTIONS:
        lines.append(f"## {section.title}")
        lines.extend(f"[{i.id}] {i.content}" for i in items if i.section == section.name)
    return "\n".join(lines)


def items_in_section_order(text: str) -> list[tuple[str, str, str]]:
    items = sorted(parse_map(text).items, key=lambda i: SECTION_ORDER[i.section])
    return [(i.id, i.section, i.content) for i in items]


def before_state(fx: dict[str, Any]) -> dict[str, Any]:
    if "restore_runtime_state" in fx:
        return dict(fx["restore_runtime_state"]["context_map"])
    config = fx["options"]["contextMap"]
    return {"text": config["map"], "maxChars": config["maxChars"], "infiniteEvolve": True}


def update_payload(fx: dict[str, Any]) -> dict[str, Any]:
    payload: dict[str, Any] = {}
    for response in fx["responses"]:
        content = json.loads(response["content"])
        if any(key in content for key in ("itemTags", "diagnosis", "operations")):
            payload.update(content)
    return payload


def translated_state(old: dict[str, Any]) -> ContextMapState:
    """The fixture's axllm `context_map` with padded ids and an equivalent budget, loaded
    the way a state file is (legacy `next_id` and all)."""
    translated = pad_value(old)
    # Keep the map exactly as far over (or under) budget as it was in the old format.
    overhead = utf16_length(pad_ids(old["text"]).strip() + "\n") - utf16_length(
        render_old_format(old["text"])
    )
    translated["maxChars"] = old.get("maxChars", 4000) + overhead
    return stored_map_from_json_value(translated, "fixture").state


@pytest.mark.parametrize("name", ["config", "evict", "evolve"])
def test_old_renderer_reproduces_the_fixture_texts(name: str) -> None:
    expected = fixture(name)["expected_exported_state_subset"]["context_map"]["text"]
    assert render_old_format(expected) == expected


@pytest.mark.parametrize("name", ["config", "evict", "evolve"])
def test_update_matches_fixture(name: str) -> None:
    fx = fixture(name)
    state = translated_state(before_state(fx))
    payload = pad_value(update_payload(fx))
    result = apply_update(state, payload)
    expected = fx["expected_exported_state_subset"]["context_map"]
    assert result.status is UpdateStatus.UPDATED
    # Same translated case through the installed axllm: identical state, text included.
    assert axllm_state_value(result.state) == axllm_apply(axllm_state_value(state), payload)
    assert items_in_section_order(result.state.text) == items_in_section_order(
        pad_ids(expected["text"])
    )
    assert dict(result.state.scores) == pad_value(expected["scores"])
    assert result.state.steps == expected["steps"]


def test_evict_fixture_evicts_the_harmful_item() -> None:
    fx = fixture("evict")
    state = translated_state(before_state(fx))
    assert utf16_length(state.text) > state.max_chars  # over budget before the update, too
    result = apply_update(state, pad_value(update_payload(fx)))
    assert result.evicted == ("cu-00001",)
    assert result.applied == ()
    assert utf16_length(result.state.text) <= result.state.max_chars


def test_read_fixture_frozen_map_is_skipped() -> None:
    fx = fixture("read")
    old = before_state(fx)
    state = translated_state(old)
    assert state.frozen
    result = apply_update(
        state, {"operations": [{"type": "ADD", "section": "reusable_results", "content": "x"}]}
    )
    assert result.status is UpdateStatus.SKIPPED
    assert result.state == state
    # The map the prompt shows still has the item the fixture expects in the request.
    assert [i.content for i in parse_map(result.state.text).items] == ["France capital is Paris"]
    assert fx["expected_request_contains"] == ["France capital is Paris"]
