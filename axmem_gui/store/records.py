"""Typed rows returned by the repositories."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from axmem_gui.core.catalog import NO_EXTRA, Memory, Skill
from axmem_gui.core.catalog_rows import Entry, Revision
from axmem_gui.core.errors import WorkspaceError
from axmem_gui.core.jsout import json_dumps

DAMAGED_HINT = "restore it from a backup (the app keeps one before each upgrade)"


def damaged_value(what: str) -> WorkspaceError:
    """The error for a stored value that cannot be what the app wrote: the file's bytes
    were changed under SQLite's feet (a page that still parses, a value that does not)."""
    return WorkspaceError(f"the workspace file is damaged ({what}); {DAMAGED_HINT}")


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def dumps(value: Any) -> str:
    return json_dumps(value, sort_keys=False, separators=(",", ":"))


#: The JSON columns' usual values, decoded without the parser (reading 100,000 entries
#: decodes 100,000 of them).
_EMPTY_JSON: dict[str, Any] = {"[]": [], "{}": {}}


def loads(text: str | None) -> Any:
    if text is None:
        return None
    empty = _EMPTY_JSON.get(text)
    if empty is not None:
        return type(empty)()  # a new one: callers may keep and change it
    try:
        return json.loads(text)
    except (TypeError, ValueError, RecursionError) as exc:  # ValueError: bad JSON or UTF-8
        raise damaged_value("a stored JSON value does not parse") from exc


@dataclass(frozen=True)
class Document:
    """A named JSON document (scenario, suite, agent config)."""

    name: str
    data: dict[str, Any]
    revision: int
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class SessionSummary:
    id: str
    name: str
    agent: str
    provider: str
    model: str
    status: str
    created_at: str
    exchanges: int

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "agent": self.agent,
            "provider": self.provider,
            "model": self.model,
            "status": self.status,
            "created_at": self.created_at,
            "exchanges": self.exchanges,
        }


@dataclass(frozen=True)
class ContextMapSnapshot:
    pk: int
    agent: str
    session_id: str | None
    label: str
    created_at: str
    state: dict[str, Any]
    update_info: dict[str, Any] | None


def skill_to_row(skill: Skill) -> dict[str, Any]:
    return {
        "id": skill.id,
        "name": skill.name,
        "description": skill.description,
        "content": skill.content,
        "tags": list(skill.tags),
        "extra": dict(skill.extra),
    }


def memory_to_row(memory: Memory) -> dict[str, Any]:
    return {"id": memory.id, "content": memory.content, "tags": list(memory.tags)}


def _text(value: dict[str, Any], key: str, default: str | None = None) -> str:
    return _checked_text(value.get(key, default), key)


def _checked_text(text: object, key: str) -> str:
    if not isinstance(text, str):
        raise damaged_value(f"a stored {key} is not text")
    return text


def _tags(value: dict[str, Any]) -> tuple[str, ...]:
    return _checked_tags(value.get("tags", ()))


def _checked_tags(tags: object) -> tuple[str, ...]:
    if not isinstance(tags, list | tuple) or not all(isinstance(t, str) for t in tags):
        raise damaged_value("stored tags are not a list of text")
    return tuple(tags)


def skill_from_value(value: dict[str, Any]) -> Skill:
    extra = value.get("extra") or {}
    if not isinstance(extra, dict):
        raise damaged_value("a stored skill's extra fields are not an object")
    return Skill(
        id=_text(value, "id"),
        name=_text(value, "name"),
        description=_text(value, "description", ""),
        content=_text(value, "content", ""),
        tags=_tags(value),
        extra=dict(extra) if extra else NO_EXTRA,
    )


def memory_from_value(value: dict[str, Any]) -> Memory:
    return Memory(id=_text(value, "id"), content=_text(value, "content", ""), tags=_tags(value))


def entry_from_value(entry_kind: str, value: object) -> Entry | None:
    """A value the history logged for an entry of `entry_kind` ("skill", "memory")."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise damaged_value("a stored revision is not an object")
    return skill_from_value(value) if entry_kind == "skill" else memory_from_value(value)


def revision_from_row(row: tuple[Any, ...]) -> Revision:
    """A `revisions` row (pk, kind, entry_id, revision, op, before, after, at, batch)."""
    pk, kind, entry_id, revision, op, before, after, at, batch = row
    return Revision(
        pk,
        kind,
        entry_id,
        revision,
        op,
        entry_from_value(kind, loads(before)),
        entry_from_value(kind, loads(after)),
        at,
        batch,
    )


def memory_from_row(entry_id: object, content: object, tags_json: str | None) -> Memory:
    """`memory_from_value` of one row's columns (id, content, tags JSON), without the dict
    between: reading 100,000 memories at every start takes half the time. Checks the
    same things: a damaged row is the same clear error."""
    return Memory(
        _checked_text(entry_id, "id"),
        _checked_text(content, "content"),
        _checked_tags(loads(tags_json) or ()),
    )


def memories_from_rows(rows: Iterable[tuple[Any, Any, Any]]) -> list[Memory]:
    """`memory_from_row` of each row (id, content, tags JSON), read the fast way: the
    tags of a row are decoded and checked once per distinct JSON text (most memories
    have none: `[]`), and a row with a column that is not text is left to
    `memory_from_row`, so a damaged row gives the same error."""
    out: list[Memory] = []
    append = out.append
    tags_of: dict[object, tuple[str, ...]] = {}
    for entry_id, content, tags_json in rows:
        if type(entry_id) is not str or type(content) is not str:
            append(memory_from_row(entry_id, content, tags_json))  # raises
            continue
        tags = tags_of.get(tags_json)
        if tags is None:
            tags = tags_of[tags_json] = _checked_tags(loads(tags_json) or ())
        append(Memory(entry_id, content, tags, NO_EXTRA, ()))
    return out


def skills_from_rows(rows: Iterable[tuple[Any, Any, Any, Any, Any, Any]]) -> list[Skill]:
    """`skill_from_value` of each row (id, name, description, content, tags JSON, extra
    JSON) as the repository reads it, the fast way for the usual row (text columns, no
    extra fields; tags decoded once per distinct JSON text). Any other row is read the
    general way, so a damaged row gives the same error."""
    out: list[Skill] = []
    append = out.append
    tags_of: dict[object, tuple[str, ...]] = {}
    for row in rows:
        entry_id, name, description, content, tags_json, extra_json = row
        if (
            extra_json != "{}"
            or type(entry_id) is not str
            or type(name) is not str
            or type(description) is not str
            or type(content) is not str
        ):
            append(_skill_from_columns(row))
            continue
        tags = tags_of.get(tags_json)
        if tags is None:
            tags = tags_of[tags_json] = _checked_tags(loads(tags_json) or ())
        append(Skill(entry_id, name, description, content, tags, NO_EXTRA))
    return out


def _skill_from_columns(row: tuple[Any, Any, Any, Any, Any, Any]) -> Skill:
    entry_id, name, description, content, tags_json, extra_json = row
    value = {"id": entry_id, "name": name, "description": description, "content": content}
    value["tags"] = loads(tags_json) or []
    value["extra"] = loads(extra_json) or {}
    return skill_from_value(value)
