"""Applying a Distiller + Cartographer result to a map, exactly as Ax does.

Order (TS `AxAgentContextMap.update()` + `applyUpdatePayload`; axllm
`_agent_evolve_context_map`): skip when frozen; score the tags against the items of the
current text; normalise the operations; apply them to the text; evict over budget;
`steps + 1`. Ax drops anything it cannot use without a word; this module drops the same
things but says which and why (`dropped`, `ignored_tags`, `notes`), for the viewer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from axmem_gui.core.contextmap.budget import evict_to_budget
from axmem_gui.core.contextmap.state import ContextMapState
from axmem_gui.core.contextmap.text import (
    SECTIONS,
    collapse_blank_lines,
    format_item_id,
    header_text,
    js_trim,
    match_item_line,
    normalize_text,
    parse_map,
    section_by_name,
    section_for_name,
)
from axmem_gui.core.errors import InputError

#: Keys of the two model outputs Ax feeds to `applyUpdatePayload`.
PAYLOAD_KEYS = ("diagnosis", "itemTags", "cacheCandidates", "operations")
TAG_DELTAS: Mapping[str, int] = {"helpful": 1, "harmful": -1, "stale": -1, "neutral": 0}


@dataclass(frozen=True)
class AddOperation:
    section: str
    content: str

    def to_json(self) -> dict[str, str]:
        return {"type": "ADD", "section": self.section, "content": self.content}


@dataclass(frozen=True)
class DeleteOperation:
    item_id: str

    def to_json(self) -> dict[str, str]:
        return {"type": "DELETE", "itemId": self.item_id}


@dataclass(frozen=True)
class ReplaceOperation:
    item_id: str
    content: str

    def to_json(self) -> dict[str, str]:
        return {"type": "REPLACE", "itemId": self.item_id, "content": self.content}


Operation = AddOperation | DeleteOperation | ReplaceOperation


@dataclass(frozen=True)
class AppliedOperation:
    """An operation Ax applied: its position in the input, and the item it touched
    (for an ADD, the id it was given)."""

    index: int
    operation: Operation
    item_id: str


@dataclass(frozen=True)
class DroppedOperation:
    index: int
    raw: object
    reason: str


@dataclass(frozen=True)
class IgnoredTag:
    item_id: str
    tag: object
    reason: str


class UpdateStatus(StrEnum):
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    SKIPPED = "skipped"


@dataclass(frozen=True)
class UpdateResult:
    before: ContextMapState
    state: ContextMapState
    status: UpdateStatus
    skip_reason: str | None = None
    diagnosis: str | None = None
    applied: tuple[AppliedOperation, ...] = ()
    evicted: tuple[str, ...] = ()
    dropped: tuple[DroppedOperation, ...] = ()
    ignored_tags: tuple[IgnoredTag, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        """Ax's `changed`: the text differs (score-only updates are `unchanged`)."""
        return self.status is UpdateStatus.UPDATED

    @property
    def step(self) -> int:
        return self.state.steps

    @property
    def operations(self) -> tuple[Operation, ...]:
        """The applied, normalised operations, as Ax's result lists them."""
        return tuple(a.operation for a in self.applied)

    @property
    def added_ids(self) -> tuple[str, ...]:
        return tuple(a.item_id for a in self.applied if isinstance(a.operation, AddOperation))


# --- payload -------------------------------------------------------------------------------


def update_payload_from_json_value(value: object, source: str) -> Mapping[str, object]:
    """Check that a file holds an update (`{"itemTags"?, "operations"?, ...}`), not something else.

    Contents are not validated further: Ax ignores what it cannot use, and so does
    `apply_update` (reporting it).
    """
    if not isinstance(value, dict):
        raise InputError(f"{source}: expected an update object with 'itemTags' and/or 'operations'")
    if value and not any(key in value for key in PAYLOAD_KEYS):
        keys = ", ".join(repr(k) for k in list(value)[:5])
        raise InputError(
            f"{source}: not a context-map update (no 'itemTags' or 'operations'; found {keys})"
        )
    return value


# --- scores --------------------------------------------------------------------------------


def update_scores(
    scores: Mapping[str, float], tags: object, item_ids: frozenset[str]
) -> tuple[dict[str, float], tuple[IgnoredTag, ...], tuple[str, ...]]:
    """Ax `updateScores`: helpful +1, harmful/stale -1, neutral sets 0 if absent."""
    updated = dict(scores)
    if tags is None:
        return updated, (), ()
    if not isinstance(tags, dict):
        return updated, (), ("itemTags is not an object; ignored",)
    ignored: list[IgnoredTag] = []
    for item_id, tag in tags.items():
        if item_id not in item_ids:
            ignored.append(IgnoredTag(item_id, tag, f"no item '{item_id}' in the map"))
            continue
        if not isinstance(tag, str):
            ignored.append(IgnoredTag(item_id, tag, "tag is not a string"))
            continue
        normalized = js_trim(tag).lower()
        if normalized not in TAG_DELTAS:
            ignored.append(
                IgnoredTag(item_id, tag, "unknown tag (helpful, harmful, stale or neutral)")
            )
            continue
        updated[item_id] = updated.get(item_id, 0) + TAG_DELTAS[normalized]
    return updated, tuple(ignored), ()


# --- operations ----------------------------------------------------------------------------


def _string_field(raw: Mapping[str, object], key: str) -> str | None:
    value = raw.get(key)
    return value if isinstance(value, str) else None


def _item_id_of(raw: Mapping[str, object]) -> str:
    # TS: a string `itemId` wins (even when blank), else `item_id`.
    camel = _string_field(raw, "itemId")
    if camel is not None:
        return js_trim(camel)
    snake = _string_field(raw, "item_id")
    return js_trim(snake) if snake is not None else ""


def _normalize_one(raw: object) -> Operation | str:
    """The normalised operation, or why Ax drops it."""
    if not isinstance(raw, dict):
        return "not an object"
    type_field = _string_field(raw, "type")
    op_type = js_trim(type_field).upper() if type_field is not None else ""
    content_field = _string_field(raw, "content")
    content = js_trim(content_field) if content_field is not None else ""
    if op_type == "ADD":
        section_field = _string_field(raw, "section") or ""
        section = section_for_name(section_field)
        if section is None:
            return f"ADD: unknown section {section_field!r}"
        if not content:
            return "ADD: empty content"
        return AddOperation(section.name, content)
    if op_type in ("DELETE", "REPLACE"):
        item_id = _item_id_of(raw)
        if not item_id:
            return f"{op_type}: no item_id/itemId"
        if op_type == "DELETE":
            return DeleteOperation(item_id)
        if not content:
            return "REPLACE: empty content"
        return ReplaceOperation(item_id, content)
    if type_field is None:
        return "no 'type'"
    return f"unknown type {type_field!r} (ADD, DELETE or REPLACE)"


def normalize_operations(
    raw: object,
) -> tuple[tuple[tuple[int, Operation], ...], tuple[DroppedOperation, ...], tuple[str, ...]]:
    """Ax `normalizeOperations`, keeping each operation's index and each drop's reason."""
    if raw is None:
        return (), (), ()
    if not isinstance(raw, list):
        return (), (), ("operations is not an array; ignored",)
    kept: list[tuple[int, Operation]] = []
    dropped: list[DroppedOperation] = []
    for index, entry in enumerate(raw):
        result = _normalize_one(entry)
        if isinstance(result, str):
            dropped.append(DroppedOperation(index, entry, result))
        else:
            kept.append((index, result))
    return tuple(kept), tuple(dropped), ()


def apply_operations(
    text: str, operations: Sequence[tuple[int, Operation]]
) -> tuple[str, tuple[AppliedOperation, ...], tuple[DroppedOperation, ...]]:
    """Ax `applyOperations` on normalised operations.

    DELETE/REPLACE must name an item of `text` (not one added in the same batch). ADDs get
    consecutive fresh ids and land at the end of their section's first block, or in a new
    `## TITLE` block appended in canonical order. The text is returned untouched when there
    is nothing to apply (no blank-line collapsing either).
    """
    if not operations:
        return text, (), ()
    parsed = parse_map(text)
    existing = parsed.item_ids
    next_number = parsed.next_item_number
    deletes: set[str] = set()
    replaces: dict[str, str] = {}
    pending_adds: list[tuple[str, str]] = []  # (section name, line)
    applied: list[AppliedOperation] = []
    dropped: list[DroppedOperation] = []

    for index, operation in operations:
        if isinstance(operation, AddOperation):
            section = section_by_name(operation.section)
            new_id = format_item_id(section, next_number)
            next_number += 1
            pending_adds.append((section.name, f"[{new_id}] {operation.content}"))
            applied.append(AppliedOperation(index, operation, new_id))
            continue
        if operation.item_id not in existing:
            kind = "DELETE" if isinstance(operation, DeleteOperation) else "REPLACE"
            reason = f"{kind}: no item '{operation.item_id}' in the map"
            dropped.append(DroppedOperation(index, operation.to_json(), reason))
            continue
        if isinstance(operation, DeleteOperation):
            deletes.add(operation.item_id)
        else:
            replaces[operation.item_id] = operation.content
        applied.append(AppliedOperation(index, operation, operation.item_id))

    out: list[str] = []

    def flush_adds(section_name: str | None) -> None:
        nonlocal pending_adds
        if section_name is None:
            return
        out.extend(line for name, line in pending_adds if name == section_name)
        pending_adds = [(name, line) for name, line in pending_adds if name != section_name]

    current: str | None = None
    for line in text.split("\n"):
        title = header_text(line)
        if title is not None:
            flush_adds(current)
            if out and out[-1] != "":
                out.append("")
            matched = section_for_name(title)
            current = matched.name if matched else None
            out.append(line)
            continue
        match = match_item_line(line)
        if match is not None:
            item_id = match[0]
            if item_id in deletes:
                continue
            if item_id in replaces:
                out.append(f"[{item_id}] {replaces[item_id]}")
                continue
        out.append(line)
    flush_adds(current)
    for section in SECTIONS:
        lines = [line for name, line in pending_adds if name == section.name]
        if not lines:
            continue
        if out and out[-1] != "":
            out.append("")
        out.append(f"## {section.title}")
        out.extend(lines)
    return collapse_blank_lines("\n".join(out)), tuple(applied), tuple(dropped)


# --- the whole update ----------------------------------------------------------------------


def apply_update(state: ContextMapState, payload: Mapping[str, object]) -> UpdateResult:
    """One context-map update, as Ax runs it after a successful forward.

    `payload` holds the Distiller's `itemTags` (and `diagnosis`) and the Cartographer's
    `operations`; `cacheCandidates` never changes the map. A frozen map is `skipped` and
    left exactly as it was.
    """
    if state.frozen:
        return UpdateResult(
            before=state,
            state=state,
            status=UpdateStatus.SKIPPED,
            skip_reason="evolve_steps",
        )
    text = normalize_text(state.text)
    item_ids = parse_map(text).item_ids
    scores, ignored_tags, tag_notes = update_scores(state.scores, payload.get("itemTags"), item_ids)
    raw_operations = payload.get("operations")
    operations, dropped_early, op_notes = normalize_operations(raw_operations)
    applied_text, applied, dropped_late = apply_operations(text, operations)
    if isinstance(raw_operations, list):
        # Report what the model sent, not our normalised form of it.
        dropped_late = tuple(replace(d, raw=raw_operations[d.index]) for d in dropped_late)
    final_text, evicted = evict_to_budget(applied_text, scores, state.max_chars)
    new_state = replace(state, text=final_text, scores=scores, steps=state.steps + 1)
    changed = final_text != text
    raw_diagnosis = payload.get("diagnosis")
    return UpdateResult(
        before=state,
        state=new_state,
        status=UpdateStatus.UPDATED if changed else UpdateStatus.UNCHANGED,
        diagnosis=raw_diagnosis if isinstance(raw_diagnosis, str) else None,
        applied=applied,
        evicted=evicted,
        dropped=tuple(sorted(dropped_early + dropped_late, key=lambda d: d.index)),
        ignored_tags=ignored_tags,
        notes=tag_notes + op_notes,
    )


def update_result_to_json(
    result: UpdateResult, state_value: Mapping[str, object]
) -> dict[str, object]:
    """The result for `--result` and the viewer: Ax's onUpdate fields plus what was ignored.

    `state_value` is the new state already written in the caller's chosen shape.
    """
    out: dict[str, object] = {
        "status": result.status.value,
        "step": result.step,
        "changed": result.changed,
    }
    if result.skip_reason is not None:
        out["skipReason"] = result.skip_reason
    if result.diagnosis is not None:
        out["diagnosis"] = result.diagnosis
    out["operations"] = [op.to_json() for op in result.operations]
    out["addedItemIds"] = list(result.added_ids)
    out["evicted"] = list(result.evicted)
    out["dropped"] = [
        {"index": d.index, "operation": d.raw, "reason": d.reason} for d in result.dropped
    ]
    out["ignoredTags"] = [
        {"itemId": t.item_id, "tag": t.tag, "reason": t.reason} for t in result.ignored_tags
    ]
    out["notes"] = list(result.notes)
    out["state"] = dict(state_value)
    return out
