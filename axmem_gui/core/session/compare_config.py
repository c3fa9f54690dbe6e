"""What two sessions were given, compared: the catalog each agent received (entries added,
removed, changed, and in which fields) and the agent config (keys added, removed, changed).

An edited skill or instruction used to show only through the prompt diffs it caused;
`axmem diff` and the compare view now say it first (core.session.compare uses this).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from axmem_gui.core.catalog import Catalog, Memory, Skill
from axmem_gui.core.jsout import json_dumps
from axmem_gui.core.records import JsonValue
from axmem_gui.core.session.model import Session

_SKILL_FIELDS = ("name", "description", "content", "tags")
_MEMORY_FIELDS = ("content", "tags")
#: Values longer than this (or on several lines) are shown as a diff, not inline.
_INLINE = 80


@dataclass(frozen=True)
class FieldChange:
    """One field of an entry, or one agent config key, in A and in B (None: absent)."""

    name: str
    a: JsonValue
    b: JsonValue

    @property
    def status(self) -> str:
        if self.a is None:
            return "added"
        return "removed" if self.b is None else "changed"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "a": self.a, "b": self.b}


@dataclass(frozen=True)
class EntryChange:
    kind: str  # skill | memory
    id: str
    fields: tuple[FieldChange, ...]

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id, "fields": [f.to_json() for f in self.fields]}


@dataclass(frozen=True)
class CatalogDiff:
    """The entries only A's agent received, only B's, and those both got but differently."""

    added: tuple[tuple[str, str], ...]  # (kind, id) only in B
    removed: tuple[tuple[str, str], ...]  # only in A
    changed: tuple[EntryChange, ...]

    @property
    def same(self) -> bool:
        return not (self.added or self.removed or self.changed)

    def to_json(self) -> dict[str, Any]:
        return {
            "same": self.same,
            "added": [{"kind": k, "id": i} for k, i in self.added],
            "removed": [{"kind": k, "id": i} for k, i in self.removed],
            "changed": [c.to_json() for c in self.changed],
        }


@dataclass(frozen=True)
class AgentDiff:
    """The agent config keys (dotted for nested ones, e.g. `contextMap.maxChars`) whose
    values differ."""

    a_name: str
    b_name: str
    changes: tuple[FieldChange, ...]

    @property
    def same(self) -> bool:
        return not self.changes

    def to_json(self) -> dict[str, Any]:
        return {
            "same": self.same,
            "a": self.a_name,
            "b": self.b_name,
            "changes": [c.to_json() for c in self.changes],
        }


def _skill_value(skill: Skill, name: str) -> JsonValue:
    return list(skill.tags) if name == "tags" else str(getattr(skill, name))


def _memory_value(memory: Memory, name: str) -> JsonValue:
    return list(memory.tags) if name == "tags" else str(getattr(memory, name))


def _entries(
    kind: str, a: Sequence[Any], b: Sequence[Any], fields: tuple[str, ...], value: Any
) -> tuple[list[tuple[str, str]], list[tuple[str, str]], list[EntryChange]]:
    a_by_id = {e.id: e for e in a}
    b_by_id = {e.id: e for e in b}
    added = [(kind, e.id) for e in b if e.id not in a_by_id]
    removed = [(kind, e.id) for e in a if e.id not in b_by_id]
    changed = []
    for entry in a:
        other = b_by_id.get(entry.id)
        if other is None:
            continue
        diffs = tuple(
            FieldChange(f, value(entry, f), value(other, f))
            for f in fields
            if value(entry, f) != value(other, f)
        )
        if diffs:
            changed.append(EntryChange(kind, entry.id, diffs))
    return added, removed, changed


def compare_catalogs(a: Catalog, b: Catalog) -> CatalogDiff:
    s_add, s_rem, s_chg = _entries("skill", a.skills, b.skills, _SKILL_FIELDS, _skill_value)
    m_add, m_rem, m_chg = _entries("memory", a.memories, b.memories, _MEMORY_FIELDS, _memory_value)
    return CatalogDiff(
        added=tuple(s_add + m_add), removed=tuple(s_rem + m_rem), changed=tuple(s_chg + m_chg)
    )


def _flat(value: Mapping[str, Any], prefix: str = "") -> dict[str, JsonValue]:
    """An agent config as dotted keys: nested objects opened, lists kept whole."""
    out: dict[str, JsonValue] = {}
    for k, v in value.items():
        path = f"{prefix}{k}"
        if isinstance(v, Mapping) and v:
            out.update(_flat(v, f"{path}."))
        else:
            out[path] = v
    return out


def compare_agents(a: Session, b: Session) -> AgentDiff:
    flat_a, flat_b = _flat(a.agent.to_json()), _flat(b.agent.to_json())
    keys = list(flat_a) + [k for k in flat_b if k not in flat_a]
    return AgentDiff(
        a_name=a.agent.name,
        b_name=b.agent.name,
        changes=tuple(
            FieldChange(k, flat_a.get(k), flat_b.get(k))
            for k in keys
            if flat_a.get(k) != flat_b.get(k)
        ),
    )


# ------------------------------------------------------------------ render ---


def _text(value: JsonValue) -> str:
    return value if isinstance(value, str) else json_dumps(value)


def _field_lines(change: FieldChange, where: str, lead: str, diffs: bool) -> list[str]:
    """`lead name: a → b` for short values; else `lead name (changed)` and, with `diffs`,
    a unified diff of the two texts."""
    a, b = _text(change.a), _text(change.b)
    if max(len(a), len(b)) <= _INLINE and "\n" not in a + b:
        shown_a = a if change.a is not None else "—"
        shown_b = b if change.b is not None else "—"
        return [f"{lead}{change.name}: {shown_a} → {shown_b}"]
    lines = [f"{lead}{change.name} ({change.status})"]
    if diffs:
        lines += [
            f"{' ' * len(lead)}  {line.rstrip(chr(10))}"
            for line in difflib.unified_diff(
                a.splitlines(keepends=True),
                b.splitlines(keepends=True),
                fromfile=f"a {where}",
                tofile=f"b {where}",
                n=1,
            )
        ]
    return lines


def render_catalog_diff(diff: CatalogDiff, *, diffs: bool = True) -> list[str]:
    if diff.same:
        return ["catalog: the agents received the same entries"]
    lines = [
        f"catalog: {len(diff.added)} added, {len(diff.removed)} removed, "
        f"{len(diff.changed)} changed (the entries each agent received)"
    ]
    lines += [f"  + {kind} {entry_id}" for kind, entry_id in diff.added]
    lines += [f"  - {kind} {entry_id}" for kind, entry_id in diff.removed]
    for change in diff.changed:
        lines.append(f"  ~ {change.kind} {change.id}")
        for f in change.fields:
            lines += _field_lines(f, f"{change.kind} {change.id}.{f.name}", "      ", diffs)
    return lines


def render_agent_diff(diff: AgentDiff, *, diffs: bool = True) -> list[str]:
    if diff.same:
        return ["agent: the same config"]
    lines = [f"agent: {len(diff.changes)} config key(s) differ"]
    for change in diff.changes:
        lines += _field_lines(change, f"agent.{change.name}", "  ~ ", diffs)
    return lines
