"""The loaded state Ax keeps between turns: Loaded Skills and the merged memories.

Both take raw JSON-like values because Ax validates at ingest time and silently drops what
does not fit (a skill with an empty name, a memory with a non-string content...).

- Skills (`skillsHelpers.ts`): `name` must be a string, trimmed and non-empty; `id` is the
  trimmed id when that is a non-empty string, else the trimmed name; `content` must be a
  string and is kept as is. State is a map keyed by that id: later entries replace
  earlier ones. Rendered in `localeCompare` order of id.
- Memories (`mergeMemoryResults`): an entry needs a string id whose trim is non-empty and
  a string content; the id is trimmed; later wins; result sorted by id (`localeCompare`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from axmem_gui.core.ax.collation import locale_sorted
from axmem_gui.core.ax.jstext import js_trim
from axmem_gui.core.catalog import Memory, Skill


@dataclass(frozen=True)
class LoadedSkill:
    id: str
    name: str
    content: str


@dataclass(frozen=True)
class MemoryEntry:
    id: str
    content: str

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "content": self.content}


def _as_mapping(entry: Any) -> Mapping[str, Any] | None:
    if isinstance(entry, Skill | LoadedSkill):
        return {"id": entry.id, "name": entry.name, "content": entry.content}
    if isinstance(entry, Memory | MemoryEntry):
        return {"id": entry.id, "content": entry.content}
    if isinstance(entry, Mapping):
        return entry
    return None


def normalize_skill_entry(entry: Any) -> LoadedSkill | None:
    """Ax `normalizeSkillEntry`; None when Ax would drop the entry."""
    record = _as_mapping(entry)
    if record is None:
        return None
    raw_name = record.get("name")
    name = js_trim(raw_name) if isinstance(raw_name, str) else ""
    raw_id = record.get("id")
    skill_id = js_trim(raw_id) if isinstance(raw_id, str) and js_trim(raw_id) else name
    content = record.get("content")
    if not skill_id or not name or not isinstance(content, str):
        return None
    return LoadedSkill(skill_id, name, content)


@dataclass(frozen=True)
class LoadedSkills:
    """An immutable snapshot of the Loaded Skills map (insertion order kept)."""

    by_id: tuple[tuple[str, LoadedSkill], ...] = ()

    def ingest(self, entries: Iterable[Any]) -> LoadedSkills:
        """`ingestSkillResults`: a new state with the valid entries set by id."""
        state = dict(self.by_id)
        for entry in entries:
            normalized = normalize_skill_entry(entry)
            if normalized is not None:
                state[normalized.id] = normalized
        return LoadedSkills(tuple(state.items()))

    def __len__(self) -> int:
        return len(self.by_id)

    def sorted(self, code_point: bool = False) -> list[LoadedSkill]:
        """In `localeCompare` order of id (Ax), or by code point (axllm)."""
        skills = (skill for _, skill in self.by_id)
        if code_point:
            return sorted(skills, key=lambda s: s.id)
        return locale_sorted(skills, key=lambda s: s.id)

    def ids(self) -> list[str]:
        return [skill.id for skill in self.sorted()]


def merge_memories(
    existing: Iterable[Any] | None, incoming: Iterable[Any]
) -> tuple[MemoryEntry, ...]:
    """`mergeMemoryResults(existing, incoming)`: valid entries, trimmed ids, later wins,
    sorted by id with localeCompare."""
    merged: dict[str, str] = {}
    for entry in [*(existing or ()), *incoming]:
        record = _as_mapping(entry)
        if record is None:
            continue
        memory_id, content = record.get("id"), record.get("content")
        if not isinstance(memory_id, str) or not js_trim(memory_id):
            continue
        if not isinstance(content, str):
            continue
        merged[js_trim(memory_id)] = content
    ordered = locale_sorted(merged.items(), key=lambda item: item[0])
    return tuple(MemoryEntry(memory_id, content) for memory_id, content in ordered)
