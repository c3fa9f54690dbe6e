"""Import plans: what an import would change, decided before anything is written.

`build_plan` compares what the sources hold with what the workspace holds and sorts each
incoming entry into add / update / unchanged / skip / keep-both according to the conflict
policy (per entry overrides allowed, so a dialog can flip single rows and re-plan). An
entry is a conflict when its id exists with different data. Problems from reading (and ids
that two sources both define) make the plan not `ok`; applying such a plan is refused, so
an import is all or nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from axmem_gui.core.catalog import EntryKind, Memory
from axmem_gui.core.formats.model import ImportedSkill, Origin, Problem, SourceCatalog

Policy = Literal["skip", "overwrite", "keep-both"]
POLICIES: tuple[Policy, ...] = ("skip", "overwrite", "keep-both")
Action = Literal["add", "update", "unchanged", "skip", "keep-both"]
Entry = ImportedSkill | Memory


def _entry_id(entry: Entry) -> str:
    return entry.id


def _with_id(entry: Entry, new_id: str) -> Entry:
    if isinstance(entry, ImportedSkill):
        return replace(entry, skill=replace(entry.skill, id=new_id))
    return replace(entry, id=new_id)


def _same(a: Entry, b: Entry, compare_extra: bool) -> bool:
    if isinstance(a, ImportedSkill) and isinstance(b, ImportedSkill) and not compare_extra:
        return a.skill == b.skill
    return a == b


@dataclass(frozen=True)
class PlanItem:
    kind: EntryKind
    action: Action
    #: The id the entry is written under (a fresh one for keep-both).
    target_id: str
    origin: Origin
    incoming: Entry
    existing: Entry | None

    @property
    def source_id(self) -> str:
        return _entry_id(self.incoming)

    @property
    def conflict(self) -> bool:
        return self.existing is not None and self.action != "unchanged"

    @property
    def writes(self) -> bool:
        return self.action in ("add", "update", "keep-both")

    def entry_to_write(self) -> Entry:
        if self.target_id == self.source_id:
            return self.incoming
        return _with_id(self.incoming, self.target_id)

    def describe(self) -> str:
        what = f"{self.kind} '{self.source_id}'"
        if self.action == "keep-both":
            return f"keep both: {what} added as '{self.target_id}' ({self.origin})"
        return f"{self.action}: {what} ({self.origin})"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "action": self.action,
            "id": self.source_id,
            "target_id": self.target_id,
            "conflict": self.conflict,
            "file": self.origin.file,
            "entry": self.origin.entry,
        }


@dataclass(frozen=True)
class ImportPlan:
    policy: Policy
    items: tuple[PlanItem, ...]
    problems: tuple[Problem, ...]
    sources: tuple[str, ...]

    def _action(self, action: Action) -> tuple[PlanItem, ...]:
        return tuple(i for i in self.items if i.action == action)

    @property
    def errors(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.severity == "error")

    @property
    def warnings(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.severity == "warning")

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def adds(self) -> tuple[PlanItem, ...]:
        return self._action("add")

    @property
    def updates(self) -> tuple[PlanItem, ...]:
        return self._action("update")

    @property
    def unchanged(self) -> tuple[PlanItem, ...]:
        return self._action("unchanged")

    @property
    def skipped(self) -> tuple[PlanItem, ...]:
        return self._action("skip")

    @property
    def kept_both(self) -> tuple[PlanItem, ...]:
        return self._action("keep-both")

    @property
    def conflicts(self) -> tuple[PlanItem, ...]:
        return tuple(i for i in self.items if i.conflict)

    @property
    def writes(self) -> tuple[PlanItem, ...]:
        return tuple(i for i in self.items if i.writes)

    def summary(self) -> dict[str, int]:
        return {
            "add": len(self.adds),
            "update": len(self.updates),
            "unchanged": len(self.unchanged),
            "skip": len(self.skipped),
            "keep-both": len(self.kept_both),
            "conflicts": len(self.conflicts),
            "errors": len(self.errors),
            "warnings": len(self.warnings),
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "policy": self.policy,
            "sources": list(self.sources),
            "summary": self.summary(),
            "items": [i.to_json() for i in self.items],
            "problems": [p.to_json() for p in self.problems],
        }


def fresh_id(base: str, taken: set[str]) -> str:
    """`base-2`, `base-3`, ...: the first one not in `taken` (deterministic)."""
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


def _incoming(
    sources: Sequence[SourceCatalog],
) -> Iterable[tuple[EntryKind, Entry, Origin]]:
    for src in sources:
        for skill, origin in zip(src.doc.skills, src.skill_origins, strict=True):
            yield "skill", skill, origin
        for memory, origin in zip(src.doc.memories, src.memory_origins, strict=True):
            yield "memory", memory, origin


def build_plan(
    sources: Sequence[SourceCatalog],
    existing_skills: Mapping[str, ImportedSkill],
    existing_memories: Mapping[str, Memory],
    policy: Policy = "skip",
    *,
    overrides: Mapping[tuple[EntryKind, str], Policy] | None = None,
    compare_extra: bool = True,
) -> ImportPlan:
    """Decide every incoming entry's fate. `overrides` maps (kind, incoming id) to a
    policy for that entry; `compare_extra=False` compares skills by Ax fields and tags
    only (for a store that cannot keep SKILL.md extras)."""
    if policy not in POLICIES:
        raise ValueError(f"unknown conflict policy {policy!r}")
    overrides = overrides or {}
    problems: list[Problem] = [p for s in sources for p in s.problems]
    existing: dict[EntryKind, Mapping[str, Entry]] = {
        "skill": existing_skills,
        "memory": existing_memories,
    }
    incoming = list(_incoming(sources))
    taken: dict[EntryKind, set[str]] = {k: set(v) for k, v in existing.items()}
    for kind, entry, _ in incoming:
        taken[kind].add(_entry_id(entry))
    seen: dict[tuple[EntryKind, str], Origin] = {}
    items: list[PlanItem] = []
    for kind, entry, origin in incoming:
        entry_id = _entry_id(entry)
        if (kind, entry_id) in seen:
            problems.append(
                Problem(
                    origin.file,
                    f"is also imported from {seen[kind, entry_id]} ({kind} id '{entry_id}'); "
                    "import one of them, or rename one",
                    origin.entry,
                    "id",
                )
            )
            continue
        seen[kind, entry_id] = origin
        current = existing[kind].get(entry_id)
        if current is None:
            items.append(PlanItem(kind, "add", entry_id, origin, entry, None))
            continue
        if _same(entry, current, compare_extra):
            items.append(PlanItem(kind, "unchanged", entry_id, origin, entry, current))
            continue
        chosen = overrides.get((kind, entry_id), policy)
        if chosen == "overwrite":
            items.append(PlanItem(kind, "update", entry_id, origin, entry, current))
        elif chosen == "keep-both":
            new_id = fresh_id(entry_id, taken[kind])
            taken[kind].add(new_id)
            items.append(PlanItem(kind, "keep-both", new_id, origin, entry, current))
        else:
            items.append(PlanItem(kind, "skip", entry_id, origin, entry, current))
    return ImportPlan(policy, tuple(items), tuple(problems), tuple(s.source for s in sources))
