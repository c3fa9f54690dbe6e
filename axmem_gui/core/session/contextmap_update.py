"""What a context-map update did, read from the two recorded exchanges and the map states.

axllm applies the Distiller/Cartographer replies itself and exposes no update result, so the
session reconstructs it: the Distiller's diagnosis, item tags and cache candidates, the
Cartographer's proposed operations (both parsed from the model replies), and the items that
actually changed (from the map text before and after).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from axmem_gui.core import jsontext
from axmem_gui.core.contextmap import apply_update, stored_map_from_json_value
from axmem_gui.core.errors import InputError
from axmem_gui.core.session.stages import MAP_CARTOGRAPHER, MAP_DISTILLER

_ITEM = re.compile(r"^\[([a-z]{2}-\d+)\]\s?(.*)$")
_DISTILLER_KEYS = ("diagnosis", "itemTags", "cacheCandidates")
#: Keys an update record has had since evictions were recorded; older files lack them.
EVICTION_KEYS = ("evicted", "added_evicted", "budget")
_CARTOGRAPHER_KEYS = ("operations",)


def map_items(text: str) -> dict[str, str]:
    """`[id] content` lines of a context-map text, by id (headers/descriptions skipped)."""
    items: dict[str, str] = {}
    for line in text.splitlines():
        match = _ITEM.match(line.strip())
        if match:
            items[match.group(1)] = match.group(2)
    return items


def response_fields(response: Mapping[str, Any] | None, keys: Sequence[str]) -> dict[str, Any]:
    """Output fields of a plain AxGen reply: `key: value` lines (JSON values parsed), or
    the params of a structured-output function call."""
    if not isinstance(response, Mapping):
        return {}
    results = response.get("results")
    first = results[0] if isinstance(results, list) and results else {}
    if not isinstance(first, Mapping):
        return {}
    calls = first.get("function_calls")
    if isinstance(calls, list) and calls:
        fn = calls[0].get("function") if isinstance(calls[0], Mapping) else None
        params = fn.get("params") if isinstance(fn, Mapping) else None
        if isinstance(params, str):
            params = _json_or_text(params)
        if isinstance(params, Mapping):
            return {k: params[k] for k in keys if k in params}
    content = first.get("content")
    if not isinstance(content, str):
        return {}
    stripped = content.strip()
    if stripped.startswith("{"):
        parsed = _json_or_text(stripped)
        if isinstance(parsed, Mapping):
            return {k: parsed[k] for k in keys if k in parsed}
    return _field_lines(content, keys)


def _field_lines(text: str, keys: Sequence[str]) -> dict[str, Any]:
    pattern = re.compile(r"^(" + "|".join(re.escape(k) for k in keys) + r")\s*:\s?(.*)$")
    found: dict[str, list[str]] = {}
    current: str | None = None
    for line in text.split("\n"):
        match = pattern.match(line)
        if match:
            current = match.group(1)
            found[current] = [match.group(2)]
        elif current is not None:
            found[current].append(line)
    out: dict[str, Any] = {}
    for key, parts in found.items():
        raw = "\n".join(parts).strip()
        out[key] = raw if key == "diagnosis" else _json_or_text(raw)
    return out


def _json_or_text(raw: str) -> Any:
    try:
        return jsontext.parse(raw)
    except ValueError:
        return raw


def _last_exchange(exchanges: Sequence[Mapping[str, Any]], stage: str) -> Mapping[str, Any] | None:
    found = None
    for ex in exchanges:
        if ex.get("stage") == stage:
            found = ex
    return found


def describe_update(
    exchanges: Sequence[Mapping[str, Any]],
    before: Mapping[str, Any] | None,
    after: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """The update record of one forward (`exchanges` = that forward's exchanges)."""
    if before is None and after is None:
        return {"status": "none"}
    distiller = _last_exchange(exchanges, MAP_DISTILLER)
    cartographer = _last_exchange(exchanges, MAP_CARTOGRAPHER)
    reflection = response_fields(distiller.get("response") if distiller else None, _DISTILLER_KEYS)
    proposal = response_fields(
        cartographer.get("response") if cartographer else None, _CARTOGRAPHER_KEYS
    )
    before_text = str((before or {}).get("text", ""))
    after_text = str((after or {}).get("text", ""))
    old, new = map_items(before_text), map_items(after_text)
    steps_before = (before or {}).get("steps", 0)
    steps_after = (after or {}).get("steps", 0)
    if distiller is None and cartographer is None:
        status = "skipped"
    elif steps_after == steps_before:
        status = "failed"
    elif before_text == after_text:
        status = "unchanged"
    else:
        status = "updated"
    errors = [
        str((ex.get("error") or {}).get("message"))
        for ex in (distiller, cartographer)
        if ex is not None and ex.get("error")
    ]
    evictions = (
        _evictions(before, reflection, proposal) if status in ("updated", "unchanged") else {}
    )
    return {
        "status": status,
        "step": steps_after,
        "diagnosis": reflection.get("diagnosis"),
        "item_tags": reflection.get("itemTags"),
        "cache_candidates": reflection.get("cacheCandidates"),
        "operations": proposal.get("operations"),
        "distiller_call": distiller.get("index") if distiller else None,
        "cartographer_call": cartographer.get("index") if cartographer else None,
        "added": sorted(set(new) - set(old)),
        "removed": sorted(set(old) - set(new)),
        "changed": sorted(k for k in set(old) & set(new) if old[k] != new[k]),
        "scores": _scores(after),
        "errors": errors,
        "evicted": evictions.get("evicted", []),
        "added_evicted": evictions.get("added_evicted", []),
        "budget": evictions.get("budget"),
    }


def _scores(after: Mapping[str, Any] | None) -> dict[str, Any]:
    """The map's item scores, when the recorded state holds an object of them."""
    scores = after.get("scores") if isinstance(after, Mapping) else None
    return dict(scores) if isinstance(scores, Mapping) else {}


def _evictions(
    before: Mapping[str, Any] | None,
    reflection: Mapping[str, Any],
    proposal: Mapping[str, Any],
) -> dict[str, Any]:
    """Which items the update evicted to fit `maxChars`, found by applying the recorded
    Distiller/Cartographer replies with Ax's own update rules (core.contextmap): an item
    added and evicted at once appears in both `evicted` and `added_evicted`."""
    if not isinstance(before, Mapping):
        return {}
    try:
        state = stored_map_from_json_value(dict(before), "context map before the update").state
    except InputError:
        return {}
    payload = {"itemTags": reflection.get("itemTags"), "operations": proposal.get("operations")}
    result = apply_update(state, payload)
    added = set(result.added_ids)
    return {
        "evicted": list(result.evicted),
        "added_evicted": [i for i in result.evicted if i in added],
        "budget": {"maxChars": state.max_chars, "chars_after": result.state.chars},
    }
