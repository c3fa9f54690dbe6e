"""What a context-map update did, read from the two recorded exchanges and the map states.

axllm applies the Distiller/Cartographer replies itself and exposes no update result, so the
session reconstructs it: the Distiller's diagnosis, item tags and cache candidates, the
Cartographer's proposed operations (both parsed from the model replies), and the items that
actually changed (from the map text before and after).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from axmem_gui.core.contextmap import apply_update, stored_map_from_json_value
from axmem_gui.core.errors import InputError
from axmem_gui.core.records import JsonObject, JsonValue
from axmem_gui.core.session.map_records import EVICTION_KEYS, MapUpdate
from axmem_gui.core.session.model import Exchange
from axmem_gui.core.session.payloads import (
    cartographer_operations,
    distiller_reply,
    map_scores,
    map_steps,
    map_text,
)
from axmem_gui.core.session.stages import MAP_CARTOGRAPHER, MAP_DISTILLER

__all__ = ["EVICTION_KEYS", "comparable_update", "describe_update", "map_items"]

_ITEM = re.compile(r"^\[([a-z]{2}-\d+)\]\s?(.*)$")
#: The keys of an update record, in the order they are written.
UPDATE_KEYS = (
    "status",
    "step",
    "diagnosis",
    "item_tags",
    "cache_candidates",
    "operations",
    "distiller_call",
    "cartographer_call",
    "added",
    "removed",
    "changed",
    "scores",
    "errors",
    *EVICTION_KEYS,
)


def map_items(text: str) -> dict[str, str]:
    """`[id] content` lines of a context-map text, by id (headers/descriptions skipped)."""
    items: dict[str, str] = {}
    for line in text.splitlines():
        match = _ITEM.match(line.strip())
        if match:
            items[match.group(1)] = match.group(2)
    return items


def _last_exchange(exchanges: Sequence[Exchange], stage: str) -> Exchange | None:
    found = None
    for ex in exchanges:
        if ex.stage == stage:
            found = ex
    return found


def describe_update(
    exchanges: Sequence[Exchange],
    before: Mapping[str, Any] | None,
    after: Mapping[str, Any] | None,
) -> MapUpdate:
    """The update record of one forward (`exchanges` = that forward's exchanges)."""
    if before is None and after is None:
        return MapUpdate(status="none", key_order=("status",))
    distiller = _last_exchange(exchanges, MAP_DISTILLER)
    cartographer = _last_exchange(exchanges, MAP_CARTOGRAPHER)
    reflection = distiller_reply(distiller.response if distiller else None)
    operations = cartographer_operations(cartographer.response if cartographer else None)
    before_text, after_text = map_text(before), map_text(after)
    old, new = map_items(before_text), map_items(after_text)
    steps_before, steps_after = map_steps(before), map_steps(after)
    if distiller is None and cartographer is None:
        status = "skipped"
    elif steps_after == steps_before:
        status = "failed"
    elif before_text == after_text:
        status = "unchanged"
    else:
        status = "updated"
    errors = tuple(
        ex.error.message
        for ex in (distiller, cartographer)
        if ex is not None and ex.error is not None
    )
    evictions = (
        _evictions(before, reflection.item_tags, operations)
        if status in ("updated", "unchanged")
        else _Evictions()
    )
    return MapUpdate(
        status=status,
        step=steps_after,
        diagnosis=reflection.diagnosis,
        item_tags=reflection.item_tags,
        cache_candidates=reflection.cache_candidates,
        operations=operations,
        distiller_call=distiller.index if distiller else None,
        cartographer_call=cartographer.index if cartographer else None,
        added=tuple(sorted(set(new) - set(old))),
        removed=tuple(sorted(set(old) - set(new))),
        changed=tuple(sorted(k for k in set(old) & set(new) if old[k] != new[k])),
        scores=map_scores(after),
        errors=errors,
        evicted=evictions.evicted,
        added_evicted=evictions.added_evicted,
        budget=evictions.budget,
        key_order=UPDATE_KEYS,
    )


def comparable_update(recorded: MapUpdate | None, recomputed: MapUpdate) -> JsonValue:
    """The recomputed update record as JSON, without the eviction keys when the recorded
    one was written before evictions were recorded (all of them absent)."""
    out = recomputed.to_json()
    if recorded is not None and not recorded.records_evictions:
        return {k: v for k, v in out.items() if k not in EVICTION_KEYS}
    return out


@dataclass(frozen=True, slots=True)
class _Evictions:
    evicted: tuple[str, ...] = ()
    added_evicted: tuple[str, ...] = ()
    budget: JsonObject | None = None


def _evictions(before: Mapping[str, Any] | None, item_tags: Any, operations: Any) -> _Evictions:
    """Which items the update evicted to fit `maxChars`, found by applying the recorded
    Distiller/Cartographer replies with Ax's own update rules (core.contextmap): an item
    added and evicted at once appears in both `evicted` and `added_evicted`."""
    if before is None:
        return _Evictions()
    try:
        state = stored_map_from_json_value(dict(before), "context map before the update").state
    except InputError:
        return _Evictions()
    result = apply_update(state, {"itemTags": item_tags, "operations": operations})
    added = set(result.added_ids)
    return _Evictions(
        evicted=tuple(result.evicted),
        added_evicted=tuple(i for i in result.evicted if i in added),
        budget={"maxChars": state.max_chars, "chars_after": result.state.chars},
    )
