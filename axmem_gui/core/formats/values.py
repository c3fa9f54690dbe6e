"""Catalog entries from a parsed JSON-like value (shared by the JSON, JSONL and TS readers).

Accepted shapes: `{"skillsCatalog": [...], "memoriesCatalog": [...]}`, `{"skills": [...],
"memories": [...]}`, or a bare list (skills when an entry has `name`, memories when every
entry has only `id`, `content` and maybe `tags`). Every problem is collected with the
entry's position and field instead of stopping at the first one.

This is the one reader of catalog values: imports read with the studio's rules (what
cannot be stored is an error), and `as_ax` reads a catalog as Ax receives it at run time
(sessions, `render --catalog`, suites, conformance; see `axjson.catalog_from_json_value`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.formats.model import (
    CatalogDoc,
    FormatName,
    ImportedSkill,
    Origin,
    Problem,
    SourceCatalog,
)
from axmem_gui.core.jsontext import type_name

SKILL_KEYS = ("id", "name", "description", "content", "tags")
MEMORY_KEYS = ("id", "content", "tags")
_MEMORY_AX_KEYS = frozenset({"id", "content"})


LONE_SURROGATE = "contains an unpaired UTF-16 surrogate escape (not a character; cannot be stored)"


_SURROGATE = re.compile("[\ud800-\udfff]")


def has_lone_surrogate(text: str) -> bool:
    # JSON and JS allow escapes such as "\\ud800" that decode to half a character.
    return _SURROGATE.search(text) is not None


class KeyedDict(dict[str, Any]):
    """A JSON object that remembers keys given twice (the parser would keep only the last
    value; we report it instead of silently losing the first)."""

    duplicates: tuple[str, ...] = ()


def object_pairs(pairs: Sequence[tuple[str, Any]]) -> KeyedDict:
    out = KeyedDict()
    dups: list[str] = []
    for key, value in pairs:
        if key in out and key not in dups:
            dups.append(key)
        out[key] = value
    if dups:
        out.duplicates = tuple(dups)
    return out


@dataclass
class Collector:
    """Gathers problems for one source; `file` overrides the source for one problem (a
    file inside a skills folder)."""

    source: str
    problems: list[Problem] = field(default_factory=list)
    #: Read as Ax receives a catalog at run time, not as an import stores it: lone
    #: surrogates and repeated ids are accepted (Ax renders the one and keeps the last of
    #: the other), and a memory keeps its other keys (Ax hands the object to
    #: `onLoadedMemories`).
    as_ax: bool = False

    def error(self, message: str, entry: str = "", fld: str = "", file: str = "") -> None:
        self.problems.append(Problem(file or self.source, message, entry, fld, "error"))

    def warn(self, message: str, entry: str = "", fld: str = "", file: str = "") -> None:
        self.problems.append(Problem(file or self.source, message, entry, fld, "warning"))

    @property
    def error_count(self) -> int:
        return sum(1 for p in self.problems if p.severity == "error")


def is_memory_shaped(obj: Any) -> bool:
    return isinstance(obj, dict) and "name" not in obj and set(obj) <= set(MEMORY_KEYS)


def classify_bare_list(value: list[Any]) -> str:
    """'memories' when every object entry has only id/content/tags, else 'skills'."""
    objects = [o for o in value if isinstance(o, dict)]
    if objects and all(is_memory_shaped(o) for o in objects):
        return "memories"
    return "skills"


def _string(obj: Mapping[str, Any], key: str, where: str, c: Collector, required: bool) -> str:
    if key not in obj or (obj[key] is None and not required):
        if required:
            c.error("is missing", where, key)
        return ""
    value = obj[key]
    if not isinstance(value, str):
        c.error(f"must be a string, got {type_name(value)}", where, key)
        return ""
    if not c.as_ax and has_lone_surrogate(value):
        c.error(LONE_SURROGATE, where, key)
        return ""
    return value


def check_tags(value: Any, where: str, c: Collector, fld: str = "tags") -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        # Ax ignores `tags` and accepts any value there: the entry is imported, without
        # studio tags, and the import says so.
        c.warn("is not a list of strings; the entry is imported without tags", where, fld)
        return ()
    if not c.as_ax and any(has_lone_surrogate(t) for t in value):
        c.error(LONE_SURROGATE, where, fld)
        return ()
    return tuple(value)


def _check_object(obj: Any, where: str, what: str, known: Sequence[str], c: Collector) -> bool:
    if not isinstance(obj, dict):
        c.error(f"{what} must be an object, got {type_name(obj)}", where)
        return False
    for key in getattr(obj, "duplicates", ()):
        c.error("is given twice in the same object (only one value can be kept)", where, key)
    for key in obj:
        if key not in known and not c.as_ax:
            c.warn(f"is not part of an Ax catalog {what}; it is not imported", where, key)
    return True


def _label(base: str, entry_id: Any) -> str:
    return f"{base} '{entry_id}'" if isinstance(entry_id, str) else base


def _entry_id(obj: Any) -> Any:
    return obj.get("id") if isinstance(obj, dict) else None


def _skills(items: Sequence[tuple[str, Any]], c: Collector) -> list[tuple[Skill, Origin]]:
    out = []
    for base, obj in items:
        where = _label(base, _entry_id(obj))
        if not _check_object(obj, where, "skill", SKILL_KEYS, c):
            continue
        before = len(c.problems)
        skill = Skill(
            id=_string(obj, "id", where, c, True),
            name=_string(obj, "name", where, c, True),
            description=_string(obj, "description", where, c, False),
            content=_string(obj, "content", where, c, True),
            tags=check_tags(obj.get("tags"), where, c),
        )
        if not any(p.severity == "error" for p in c.problems[before:]):
            out.append((skill, Origin(c.source, where)))
    return out


def _memories(items: Sequence[tuple[str, Any]], c: Collector) -> list[tuple[Memory, Origin]]:
    out = []
    for base, obj in items:
        where = _label(base, _entry_id(obj))
        if not _check_object(obj, where, "memory", MEMORY_KEYS, c):
            continue
        before = len(c.problems)
        memory = Memory(
            id=_string(obj, "id", where, c, True),
            content=_string(obj, "content", where, c, True),
            tags=check_tags(obj.get("tags"), where, c),
        )
        if c.as_ax and set(obj) - _MEMORY_AX_KEYS:
            extra = {k: v for k, v in obj.items() if k not in _MEMORY_AX_KEYS}
            memory = replace(memory, extra=extra, key_order=tuple(obj))
        if not any(p.severity == "error" for p in c.problems[before:]):
            out.append((memory, Origin(c.source, where)))
    return out


def report_duplicate_ids(
    ids: Sequence[str], origins: Sequence[Origin], kind: str, c: Collector
) -> set[int]:
    """Error on every entry whose id was already used in this source; returns their
    indexes. Ax keys entries by id, so two entries with one id cannot both be kept."""
    first: dict[str, Origin] = {}
    dup_indexes: set[int] = set()
    for i, (entry_id, origin) in enumerate(zip(ids, origins, strict=True)):
        if entry_id in first:
            earlier = first[entry_id]
            at = earlier.entry if earlier.file == origin.file else str(earlier)
            c.error(
                f"repeats the {kind} id '{entry_id}' (first at {at})",
                origin.entry,
                "id",
                file=origin.file,
            )
            dup_indexes.add(i)
        else:
            first[entry_id] = origin
    return dup_indexes


def _apply_tag_map(
    entries: list[tuple[Any, Origin]], tag_map: Any, map_name: str, kind: str, c: Collector
) -> list[tuple[Any, Origin]]:
    if tag_map is None:
        return entries
    if not isinstance(tag_map, dict):
        c.error(f"must be an object mapping {kind} ids to tag lists", map_name)
        return entries
    known = {e.id for e, _ in entries}
    for entry_id in tag_map:
        if entry_id not in known:
            c.warn(f"tags given for unknown {kind} id '{entry_id}'", map_name)
    out = []
    for entry, origin in entries:
        if entry.id in tag_map:
            tags = check_tags(tag_map[entry.id], f"{map_name}['{entry.id}']", c, "tags")
            entry = replace(entry, tags=tags)
        out.append((entry, origin))
    return out


def _list_value(value: Any, key: str, c: Collector) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        c.error(f"must be a list, got {type_name(value)}", "", key)
        return []
    return value


def catalog_from_value(
    value: Any,
    source: str,
    fmt: FormatName,
    *,
    skill_tags: Any = None,
    memory_tags: Any = None,
    keep_duplicates: bool = False,
    as_ax: bool = False,
) -> SourceCatalog:
    """Read a parsed catalog value; never raises for bad content. `as_ax`: see
    `Collector.as_ax`."""
    c = Collector(source, as_ax=as_ax)
    raw_skills: list[Any] = []
    raw_memories: list[Any] = []
    skills_key, memories_key = "skills", "memories"
    if isinstance(value, list):
        if classify_bare_list(value) == "memories":
            raw_memories = value
        else:
            raw_skills = value
    elif isinstance(value, dict):
        if "skillsCatalog" in value or "memoriesCatalog" in value:
            skills_key, memories_key = "skillsCatalog", "memoriesCatalog"
        elif not ("skills" in value or "memories" in value):
            c.error(
                "expected a list of skills or memories, or an object with 'skillsCatalog' / "
                "'memoriesCatalog' (or 'skills' / 'memories')"
            )
        for key in getattr(value, "duplicates", ()):
            c.error("is given twice at the top level", "", key)
        for key in value:
            if key not in (skills_key, memories_key) and not as_ax:
                c.warn("is not a catalog list; it is not imported", "", key)
        raw_skills = _list_value(value.get(skills_key), skills_key, c)
        raw_memories = _list_value(value.get(memories_key), memories_key, c)
    else:
        c.error(f"expected a list or an object, got {type_name(value)}")

    return build_source(
        c,
        fmt,
        [(f"{skills_key}[{i}]", o) for i, o in enumerate(raw_skills)],
        [(f"{memories_key}[{i}]", o) for i, o in enumerate(raw_memories)],
        skill_tags=skill_tags,
        memory_tags=memory_tags,
        keep_duplicates=keep_duplicates,
    )


def build_source(
    c: Collector,
    fmt: FormatName,
    skill_items: Sequence[tuple[str, Any]],
    memory_items: Sequence[tuple[str, Any]],
    *,
    skill_tags: Any = None,
    memory_tags: Any = None,
    keep_duplicates: bool = False,
) -> SourceCatalog:
    """Validate labelled raw entries into a SourceCatalog (labels name each entry's
    position, e.g. `skillsCatalog[3]` or `line 7`). Repeated ids are errors unless
    `keep_duplicates` (lint reads catalogs that way, to report them itself)."""
    skills = _apply_tag_map(_skills(skill_items, c), skill_tags, "skillTags", "skill", c)
    memories = _apply_tag_map(_memories(memory_items, c), memory_tags, "memoryTags", "memory", c)
    bad_s: set[int] = set()
    bad_m: set[int] = set()
    if not keep_duplicates and not c.as_ax:
        bad_s = report_duplicate_ids([s.id for s, _ in skills], [o for _, o in skills], "skill", c)
        bad_m = report_duplicate_ids(
            [m.id for m, _ in memories], [o for _, o in memories], "memory", c
        )
    skills = [e for i, e in enumerate(skills) if i not in bad_s]
    memories = [e for i, e in enumerate(memories) if i not in bad_m]
    return SourceCatalog(
        source=c.source,
        format=fmt,
        doc=CatalogDoc(
            skills=tuple(ImportedSkill(skill=s) for s, _ in skills),
            memories=tuple(m for m, _ in memories),
        ),
        skill_origins=tuple(o for _, o in skills),
        memory_origins=tuple(o for _, o in memories),
        problems=tuple(c.problems),
    )


def failed_source(source: str, fmt: FormatName, message: str) -> SourceCatalog:
    """A source that could not be read at all."""
    return SourceCatalog(source=source, format=fmt, problems=(Problem(source, message),))


def skill_to_value(skill: Skill) -> dict[str, Any]:
    """Ax's entry shape, plus the studio's `tags` when there are any (Ax ignores extra
    keys at run time, and without them a JSON round trip would lose the tags)."""
    out: dict[str, Any] = dict(skill.to_ax())
    if skill.tags:
        out["tags"] = list(skill.tags)
    return out


def memory_to_value(memory: Memory) -> dict[str, Any]:
    out: dict[str, Any] = dict(memory.to_ax())
    if memory.tags:
        out["tags"] = list(memory.tags)
    return out
