"""Checks on ids, names and descriptions as Ax keys and shows them.

Ax renders ids verbatim in the `### Available Skills` index, but keys loaded skills and
memories by the *trimmed* id (a later entry with the same trimmed id replaces the earlier
one), and drops a skill whose trimmed name is empty from Loaded Skills.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from axmem_gui.core.ax.jstext import js_trim
from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.lint.model import EntryKind, Finding, finding


def _quote_all(ids: Iterable[str]) -> str:
    return ", ".join(f"'{i}'" for i in ids)


def duplicate_ids(ids: Sequence[str], kind: EntryKind) -> list[Finding]:
    positions: dict[str, list[int]] = defaultdict(list)
    for i, entry_id in enumerate(ids):
        positions[entry_id].append(i)
    out = []
    for entry_id, where in positions.items():
        if len(where) > 1:
            places = ", ".join(str(p + 1) for p in where)
            out.append(
                finding(
                    "duplicate-id",
                    kind,
                    entry_id,
                    f"{len(where)} entries share this id (catalog positions {places}); "
                    f"Ax shows each one but loads only the last",
                    "Give each entry its own id, or delete the extra copies.",
                    field="id",
                )
            )
    return out


def _groups(ids: Sequence[str], key_of: dict[str, str]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = defaultdict(list)
    for entry_id in dict.fromkeys(ids):
        groups[key_of[entry_id]].append(entry_id)
    return groups


def near_duplicate_ids(ids: Sequence[str], kind: EntryKind) -> list[Finding]:
    """Ids equal after Ax's trim (errors) or differing only by case (warnings)."""
    trimmed = {i: js_trim(i) for i in ids}
    out: list[Finding] = []
    for key, members in _groups(ids, trimmed).items():
        if len(members) < 2 or not key:
            continue
        for entry_id in members:
            others = tuple(m for m in members if m != entry_id)
            out.append(
                finding(
                    "duplicate-trimmed-id",
                    kind,
                    entry_id,
                    f"same id as {_quote_all(others)} once Ax trims white space ('{key}'): "
                    "loading one replaces the other",
                    "Remove the leading/trailing spaces and give the entries distinct ids.",
                    field="id",
                    related=others,
                )
            )
    folded = {i: trimmed[i].casefold() for i in ids}
    for key, members in _groups(ids, folded).items():
        if not key:
            continue
        for entry_id in members:
            others = tuple(m for m in members if trimmed[m] != trimmed[entry_id])
            if others:
                out.append(
                    finding(
                        "id-case-collision",
                        kind,
                        entry_id,
                        f"differs from {_quote_all(others)} only by letter case: easy to "
                        "confuse, equal on case-insensitive disks (skills-dir export) and "
                        "to Ax's id tokenizer",
                        "Rename one of them so the ids differ by more than case.",
                        field="id",
                        related=others,
                    )
                )
    return out


def padded_and_empty_ids(ids: Sequence[str], kind: EntryKind) -> list[Finding]:
    out = []
    for entry_id in dict.fromkeys(ids):
        core = js_trim(entry_id)
        if not core:
            consequence = (
                "Ax loads the skill under its trimmed name instead, and the index shows an empty id"
                if kind == "skill"
                else "Ax drops the memory when loading it (an id must not be blank)"
            )
            out.append(
                finding(
                    "empty-id",
                    kind,
                    entry_id,
                    f"the id is empty or only white space: {consequence}",
                    "Give the entry a short, descriptive kebab-case id.",
                    field="id",
                )
            )
        elif core != entry_id:
            consequence = (
                f"the index shows it padded, but the skill loads as '{core}'"
                if kind == "skill"
                else f"recall loads it as '{core}', never sees it as already loaded, and "
                "loads it again on every matching call"
            )
            out.append(
                finding(
                    "padded-id",
                    kind,
                    entry_id,
                    f"the id has leading or trailing white space: {consequence}",
                    f"Use '{core}' as the id.",
                    field="id",
                )
            )
    return out


def skill_text_fields(skills: Sequence[Skill]) -> list[Finding]:
    out = []
    for s in skills:
        if not js_trim(s.name):
            out.append(
                finding(
                    "empty-name",
                    "skill",
                    s.id,
                    "the name is empty or only white space: discover can return this skill, "
                    "but Ax drops it from Loaded Skills, so the model never sees its content",
                    "Give the skill a short human-readable name.",
                    field="name",
                )
            )
        if not js_trim(s.description):
            detail = (
                "only white space (the index line ends in a dangling dash)"
                if s.description
                else "empty"
            )
            out.append(
                finding(
                    "empty-description",
                    "skill",
                    s.id,
                    f"the description is {detail}: it is the highest-signal field for "
                    "matching (weight 2) and the index shows only the name without it",
                    "Add one sentence on when to use this skill, using the words people "
                    "search with.",
                    field="description",
                )
            )
    return out


def identity_findings(skills: Sequence[Skill], memories: Sequence[Memory]) -> list[Finding]:
    skill_ids = [s.id for s in skills]
    memory_ids = [m.id for m in memories]
    out: list[Finding] = []
    for ids, kind in ((skill_ids, "skill"), (memory_ids, "memory")):
        typed_kind: EntryKind = "skill" if kind == "skill" else "memory"
        out += duplicate_ids(ids, typed_kind)
        out += near_duplicate_ids(ids, typed_kind)
        out += padded_and_empty_ids(ids, typed_kind)
    out += skill_text_fields(skills)
    return out
