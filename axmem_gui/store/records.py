"""Typed rows returned by the repositories."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.jsout import json_dumps


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
    return json.loads(text)


@dataclass(frozen=True)
class EntryMeta:
    revision: int
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class StoredSkill:
    skill: Skill
    meta: EntryMeta


@dataclass(frozen=True)
class StoredMemory:
    memory: Memory
    meta: EntryMeta


@dataclass(frozen=True)
class Revision:
    """One change to an entry: the full value before and after (None = absent)."""

    pk: int
    kind: str
    entry_id: str
    revision: int
    op: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    at: str
    batch: str | None


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


def skill_from_value(value: dict[str, Any]) -> Skill:
    return Skill(
        id=value["id"],
        name=value["name"],
        description=value.get("description", ""),
        content=value.get("content", ""),
        tags=tuple(value.get("tags", ())),
        extra=dict(value.get("extra") or {}),
    )


def memory_from_value(value: dict[str, Any]) -> Memory:
    return Memory(
        id=value["id"], content=value.get("content", ""), tags=tuple(value.get("tags", ()))
    )
