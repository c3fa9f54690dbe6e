"""The update record of a context-map snapshot (`update_info` in the workspace's snapshot
table), read and described for the timeline.

It is JSON of several shapes, written by several paths: a recorded session's update
record (`context_map_update`), `axmem contextmap apply --result` (Ax's camelCase onUpdate
fields), a user's edit (`{"kind": "edit", "basedOn", "edits"}`) and an import
(`{"kind": "import", "source", "shape"}`); a workspace may hold any of them, or something
damaged. This module is its one reader: every field is read defensively, and the rest of
the code asks it instead of looking inside the JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from axmem_gui.core.jsout import json_dumps


def based_on_key(info: Mapping[str, Any] | None) -> str | None:
    """The key of the snapshot an edited snapshot was made from, when known."""
    base = (info or {}).get("basedOn")
    if isinstance(base, Mapping) and isinstance(base.get("key"), str):
        return str(base["key"])
    return None


def _operation_line(op: object) -> str:
    if not isinstance(op, Mapping):
        return f"  (not an operation) {json_dumps(op)}"
    kind = str(op.get("type", "?")).upper()
    item = op.get("itemId", op.get("item_id"))
    content = op.get("content")
    if kind == "ADD":
        return f"  ADD to {op.get('section', '?')}: {content}"
    if kind == "DELETE":
        return f"  DELETE {item}"
    if kind == "REPLACE":
        return f"  REPLACE {item}: {content}"
    return f"  {kind} {json_dumps(dict(op))}"


def _id_list(info: Mapping[str, Any], *keys: str) -> list[str]:
    for key in keys:
        value = info.get(key)
        if isinstance(value, list):
            return [str(v) for v in value]
    return []


def _eviction_lines(info: Mapping[str, Any]) -> list[str]:
    """What the update evicted to fit the budget (added-then-evicted items marked)."""
    evicted = _id_list(info, "evicted")
    if not evicted:
        return []
    added_evicted = set(_id_list(info, "added_evicted"))
    budget = info.get("budget")
    limit = budget.get("maxChars") if isinstance(budget, Mapping) else None
    after = budget.get("chars_after") if isinstance(budget, Mapping) else None
    why = f" to fit maxChars {limit}" if limit is not None else " to fit the budget"
    now = f" (the map is now {after} chars)" if after is not None else ""
    at_once = "  (added by this update and evicted at once)"
    return [f"Evicted{why}{now}:"] + [
        f"  {i}" + (at_once if i in added_evicted else "") for i in evicted
    ]


def describe_update(info: Mapping[str, Any] | None) -> list[str]:
    """What caused a snapshot, in lines: the update's status, diagnosis, item tags and
    operations (from a recorded session, `axmem contextmap apply --result`, an edit or an
    import)."""
    if not info:
        return ["No update recorded for this snapshot (the map as it was)."]
    lines: list[str] = []
    kind = info.get("kind")
    if kind == "edit":
        base = info.get("basedOn")
        label = base.get("label") if isinstance(base, Mapping) else None
        lines.append(f"Edited by hand from “{label or 'a snapshot'}”:")
        lines += [f"  {edit}" for edit in info.get("edits") or []]
        return lines
    if kind == "import":
        lines.append(f"Imported from {info.get('source', 'a file')} ({info.get('shape', '?')}).")
        return lines
    status = info.get("status")
    if status:
        step = info.get("step")
        lines.append(f"Status: {status}" + (f" (step {step})" if step is not None else ""))
    if info.get("skipReason"):
        lines.append(f"Skipped: {info['skipReason']}")
    lines += _eviction_lines(info)
    diagnosis = info.get("diagnosis")
    if isinstance(diagnosis, str) and diagnosis.strip():
        lines.append(f"Diagnosis: {diagnosis.strip()}")
    tags = info.get("item_tags", info.get("itemTags"))
    if isinstance(tags, Mapping) and tags:
        lines.append("Item tags: " + ", ".join(f"{k} {v}" for k, v in tags.items()))
    evicted = _id_list(info, "evicted")
    removed = [i for i in _id_list(info, "removed") if i not in evicted]
    effects = [
        ("added", _id_list(info, "added", "addedItemIds")),
        ("removed", removed),
        ("changed", _id_list(info, "changed")),
    ]
    shown = [f"{name} {', '.join(ids)}" for name, ids in effects if ids]
    if shown:
        lines.append("Result: " + "; ".join(shown))
    operations = info.get("operations")
    if isinstance(operations, list):
        lines.append(f"Operations ({len(operations)}):" if operations else "Operations: none")
        lines += [_operation_line(op) for op in operations]
    dropped = info.get("dropped")
    if isinstance(dropped, list) and dropped:
        lines.append("Dropped by Ax:")
        lines += [f"  #{d.get('index')}: {d.get('reason')}" for d in dropped if isinstance(d, dict)]
    errors = info.get("errors")
    if isinstance(errors, list) and errors:
        lines += [f"Error: {e}" for e in errors]
    return lines or ["No details recorded for this update."]
