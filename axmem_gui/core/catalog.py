"""Catalog entries (skills and memories); Ax catalog JSON is read by core/formats/axjson.py.

The entry types keep strings exactly as given (no trimming): Ax renders ids, names and
content verbatim, so any normalisation here would make the preview lie.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

#: The catalog's two kinds, named as the workspace, the controller (`notify_changed`),
#: the CLI (`--kind`) and files (`{"skills": [...]}`) name them.
CatalogKind = Literal["skills", "memories"]
#: One entry of a kind ("skill", "memory"): messages, import plans, lint.
EntryKind = Literal["skill", "memory"]
#: The Ax call that searches a kind.
SearchName = Literal["discover", "recall"]
class _NoExtra(Mapping[str, Any]):
    """An empty read-only mapping, shared by every entry without extra keys (100,000
    memories held 100,000 empty dicts, 6 MB). Equal to `{}`; pickles as itself."""

    __slots__ = ()

    def __getitem__(self, key: str) -> Any:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "{}"

    def __reduce__(self) -> str:
        return "NO_EXTRA"


#: The `extra` of entries that carry none.
NO_EXTRA: Mapping[str, Any] = _NoExtra()


def _no_extra() -> Mapping[str, Any]:
    return NO_EXTRA


@dataclass(frozen=True)
class KindNames:
    """Every name of one catalog kind, in one place."""

    kind: CatalogKind  # "skills": workspace, controller, CLI --kind, files
    singular: EntryKind  # "skill": messages, import plans, lint
    label: str  # "Skills": section titles, form rows
    search: SearchName  # "discover": the Ax call that searches the kind


KINDS: tuple[KindNames, ...] = (
    KindNames("skills", "skill", "Skills", "discover"),
    KindNames("memories", "memory", "Memories", "recall"),
)
CATALOG_KINDS: tuple[CatalogKind, ...] = tuple(k.kind for k in KINDS)


def _by(role: str, name: str) -> KindNames:
    for names in KINDS:
        if getattr(names, role) == name:
            return names
    raise KeyError(name)


def singular(kind: str) -> EntryKind:
    """'skill' for 'skills', 'memory' for 'memories' (KeyError for anything else)."""
    return _by("kind", kind).singular


def plural(entry_kind: str) -> CatalogKind:
    """'skills' for 'skill', 'memories' for 'memory' (KeyError for anything else)."""
    return _by("singular", entry_kind).kind


def label(kind: str) -> str:
    """'Skills' / 'Memories'."""
    return _by("kind", kind).label


def search_of(kind: str) -> SearchName:
    """The Ax call that searches a kind: 'discover' for skills, 'recall' for memories."""
    return _by("kind", kind).search


def searched_by(search: str) -> CatalogKind:
    """The kind an Ax call searches: 'skills' for 'discover', 'memories' for 'recall'."""
    return _by("search", search).kind


def noun(kind: str, count: int = 1) -> str:
    """The kind's noun for `count` entries: 'skill' / 'skills', 'memory' / 'memories'."""
    return singular(kind) if count == 1 else plural(singular(kind))


# Entries are slotted: a catalog holds 100,000 of them, and an instance `__dict__` would
# double the objects the cyclic collector tracks (and add ~100 bytes each).
@dataclass(frozen=True, slots=True)
class Skill:
    """One `AxAgentCatalogSkill` plus the studio's own tags."""

    id: str
    name: str
    description: str = ""
    content: str = ""
    tags: tuple[str, ...] = ()
    #: What the skill carries beyond Ax's fields (e.g. SKILL.md frontmatter keys and
    #: resource files, see core/formats/extra.py); never shown to Ax.
    extra: Mapping[str, Any] = field(default_factory=_no_extra, hash=False)

    def to_ax(self) -> dict[str, str]:
        """The entry as Ax's `skillsCatalog` expects it (description omitted when empty)."""
        out = {"id": self.id, "name": self.name}
        if self.description:
            out["description"] = self.description
        out["content"] = self.content
        return out


@dataclass(frozen=True, slots=True)
class Memory:
    """One `memoriesCatalog` entry plus the studio's own tags."""

    id: str
    content: str
    tags: tuple[str, ...] = ()
    #: The catalog object's other keys, values untouched (`tags` as given, `metadata`,
    #: anything): Ax hands the catalog object itself to `onLoadedMemories`. Not part of
    #: equality (two memories are the same memory whatever rides along).
    extra: Mapping[str, Any] = field(default_factory=_no_extra, compare=False, hash=False)
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


def make_catalog(skills: Iterable[Skill] = (), memories: Sequence[Memory] = ()) -> Catalog:
    return Catalog(skills=tuple(skills), memories=tuple(memories))
