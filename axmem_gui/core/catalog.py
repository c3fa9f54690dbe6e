"""Catalog entries (skills and memories) and the reader for Ax catalog JSON.

The entry types keep strings exactly as given (no trimming): Ax renders ids, names and
content verbatim, so any normalisation here would make the preview lie.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from axmem_gui.core import jsontext
from axmem_gui.core.errors import InputError
from axmem_gui.core.jsontext import type_name


@dataclass(frozen=True)
class Skill:
    """One `AxAgentCatalogSkill` plus the studio's own tags."""

    id: str
    name: str
    description: str = ""
    content: str = ""
    tags: tuple[str, ...] = ()
    #: What the skill carries beyond Ax's fields (e.g. SKILL.md frontmatter keys and
    #: resource files, see core/formats/extra.py); never shown to Ax.
    extra: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def to_ax(self) -> dict[str, str]:
        """The entry as Ax's `skillsCatalog` expects it (description omitted when empty)."""
        out = {"id": self.id, "name": self.name}
        if self.description:
            out["description"] = self.description
        out["content"] = self.content
        return out


@dataclass(frozen=True)
class Memory:
    """One `memoriesCatalog` entry plus the studio's own tags."""

    id: str
    content: str
    tags: tuple[str, ...] = ()
    #: The catalog object's other keys, values untouched (`tags` as given, `metadata`,
    #: anything): Ax hands the catalog object itself to `onLoadedMemories`. Not part of
    #: equality (two memories are the same memory whatever rides along).
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    #: The catalog object's key order (empty: id, content, then the extra keys).
    key_order: tuple[str, ...] = field(default=(), compare=False, hash=False)

    def to_ax(self) -> dict[str, str]:
        return {"id": self.id, "content": self.content}

    def to_payload(self) -> dict[str, Any]:
        """The catalog object as Ax passes it to `onLoadedMemories`: extra keys kept, in
        the object's own key order."""
        values = {"id": self.id, "content": self.content, **self.extra}
        if not self.key_order:
            return values
        ordered = {k: values[k] for k in self.key_order if k in values}
        ordered.update(values)  # keys not in the recorded order (none when read from JSON)
        return ordered


@dataclass(frozen=True)
class Catalog:
    """An ordered skills catalog and memories catalog, as Ax receives them."""

    skills: tuple[Skill, ...] = ()
    memories: tuple[Memory, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    def skill(self, skill_id: str) -> Skill | None:
        """The last skill with that id (Ax: last entry wins for duplicate ids)."""
        found = None
        for s in self.skills:
            if s.id == skill_id:
                found = s
        return found

    def memory(self, memory_id: str) -> Memory | None:
        found = None
        for m in self.memories:
            if m.id == memory_id:
                found = m
        return found


def _where(source: str, kind: str, index: int) -> str:
    return f"{source}: {kind}[{index}]"


def _tags(raw: Any) -> tuple[str, ...]:
    """The studio's tags: a list of strings. Ax ignores `tags`, so any other value
    (`"urgent"`, `[1]`) is accepted as Ax accepts it and simply gives no studio tag."""
    if isinstance(raw, list) and all(isinstance(t, str) for t in raw):
        return tuple(raw)
    return ()


def _str_field(obj: Mapping[str, Any], key: str, where: str, required: bool) -> str:
    if key not in obj or obj[key] is None:
        if required:
            raise InputError(f"{where}: missing required field '{key}'")
        return ""
    value = obj[key]
    if not isinstance(value, str):
        raise InputError(f"{where}: field '{key}' must be a string, got {type_name(value)}")
    return value


def skill_from_obj(obj: Any, where: str) -> Skill:
    """Validate one skill object. Raises InputError naming the entry and field."""
    if not isinstance(obj, dict):
        raise InputError(f"{where}: a skill must be an object, got {type_name(obj)}")
    return Skill(
        id=_str_field(obj, "id", where, True),
        name=_str_field(obj, "name", where, True),
        description=_str_field(obj, "description", where, False),
        content=_str_field(obj, "content", where, True),
        tags=_tags(obj.get("tags")),
    )


def memory_from_obj(obj: Any, where: str) -> Memory:
    """Validate one memory object. Raises InputError naming the entry and field."""
    if not isinstance(obj, dict):
        raise InputError(f"{where}: a memory must be an object, got {type_name(obj)}")
    return Memory(
        id=_str_field(obj, "id", where, True),
        content=_str_field(obj, "content", where, True),
        tags=_tags(obj.get("tags")),
        extra={k: v for k, v in obj.items() if k not in _MEMORY_AX_KEYS},
        key_order=tuple(obj) if set(obj) - _MEMORY_AX_KEYS else (),
    )


_MEMORY_AX_KEYS = frozenset({"id", "content"})


def _list(value: Any, key: str, source: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(f"{source}: '{key}' must be a list, got {type_name(value)}")
    return value


def catalog_from_json_value(value: Any, source: str = "catalog") -> Catalog:
    """Accept `{"skills", "memories"}`, `{"skillsCatalog", "memoriesCatalog"}` or a bare
    list of skills; anything else is an InputError naming the position and field."""
    if isinstance(value, list):
        skills = [skill_from_obj(o, _where(source, "skills", i)) for i, o in enumerate(value)]
        return Catalog(skills=tuple(skills))
    if not isinstance(value, dict):
        raise InputError(
            f"{source}: expected an object with skills/memories or a list of skills, "
            f"got {type_name(value)}"
        )
    if "skillsCatalog" in value or "memoriesCatalog" in value:
        skills_key, memories_key = "skillsCatalog", "memoriesCatalog"
    elif "skills" in value or "memories" in value:
        skills_key, memories_key = "skills", "memories"
    else:
        raise InputError(
            f"{source}: no 'skills', 'memories', 'skillsCatalog' or 'memoriesCatalog' key"
        )
    raw_skills = _list(value.get(skills_key), skills_key, source)
    raw_memories = _list(value.get(memories_key), memories_key, source)
    skills = [skill_from_obj(o, _where(source, skills_key, i)) for i, o in enumerate(raw_skills)]
    memories = [
        memory_from_obj(o, _where(source, memories_key, i)) for i, o in enumerate(raw_memories)
    ]
    extra = {k: v for k, v in value.items() if k not in (skills_key, memories_key)}
    return Catalog(skills=tuple(skills), memories=tuple(memories), extra=extra)


def catalog_from_json_text(text: str, source: str = "catalog") -> Catalog:
    return catalog_from_json_value(jsontext.loads(text, source), source)


def catalog_to_json_value(catalog: Catalog) -> dict[str, list[dict[str, str]]]:
    return {
        "skillsCatalog": [s.to_ax() for s in catalog.skills],
        "memoriesCatalog": [m.to_ax() for m in catalog.memories],
    }


def make_catalog(skills: Iterable[Skill] = (), memories: Sequence[Memory] = ()) -> Catalog:
    return Catalog(skills=tuple(skills), memories=tuple(memories))
