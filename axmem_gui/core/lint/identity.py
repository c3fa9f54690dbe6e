"""Checks on ids, names and descriptions as Ax keys and shows them.

Ax renders ids verbatim in the `### Available Skills` index, but keys loaded skills and
memories by the *trimmed* id (a later entry with the same trimmed id replaces the earlier
one), and drops a skill whose trimmed name is empty from Loaded Skills.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from itertools import compress, repeat
from operator import ne, not_, or_

from axmem_gui.core.ax.jstext import JS_WHITESPACE, js_trim
from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.lint.model import EntryKind, Finding, finding

#: Characters that are invisible or act on the text around them: C0 and C1 controls (with
#: tab and newline, which break the one-line index entry), DEL, bidi marks, embeddings,
#: overrides and isolates, zero-width spaces and joiners, invisible operators, the BOM.
_INVISIBLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064"
    "\u2066-\u2069\ufeff]"
)


def escaped(text: str) -> str:
    """`text` with each invisible or control character as a visible escape (`\\x1b`,
    `\\u202e`), so a message can show it without a terminal or a view acting on it."""

    def escape(match: re.Match[str]) -> str:
        code = ord(match.group())
        return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"

    return _INVISIBLE.sub(escape, text)


def invisible_characters(kind: EntryKind, entry_id: str, field: str, text: str) -> Finding | None:
    """A finding when `text` (the entry's id or name) holds control or invisible
    characters: terminals act on them (an escape sequence retitles a terminal), bidi
    overrides show the text in another order, and zero-width ones make two different ids
    look the same."""
    found = _INVISIBLE.findall(text)
    if not found:
        return None
    kinds = ", ".join(escaped(ch) for ch in dict.fromkeys(found))
    count = len(found)
    return finding(
        "invisible-characters",
        kind,
        entry_id,
        f"the {field} holds {count} control or invisible character{'s' if count > 1 else ''} "
        f"({kinds}), stored as '{escaped(text)}': terminals act on them and views hide or "
        f"reorder them, so the {field} does not read as what Ax stores",
        f"Retype the {field} with visible characters only.",
        field=field,
    )


#: Ids handled per C call (a catalog's 100,000 ids in one call would hold the GIL for
#: milliseconds: lint runs on a worker thread beside the GUI thread).
_SLICE = 8192


def _trimmed(ids: Sequence[str]) -> list[str]:
    """`js_trim` of each id."""
    out: list[str] = []
    for start in range(0, len(ids), _SLICE):
        out += map(str.strip, ids[start : start + _SLICE], repeat(JS_WHITESPACE))
    return out


def _quote_all(ids: Iterable[str]) -> str:
    return ", ".join(f"'{i}'" for i in ids)


def duplicate_ids(ids: Sequence[str], kind: EntryKind) -> list[Finding]:
    if len(set(ids)) == len(ids):
        return []
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


def _groups(ids: Sequence[str], keys: Sequence[str]) -> dict[str, list[str]]:
    """The ids (distinct) that share their key (`keys[i]` is `ids[i]`'s) with another,
    by key; keys in order of their first id, ids in order."""
    if len(set(keys)) == len(keys):
        return {}
    shared = {key for key, count in Counter(keys).items() if count > 1}
    groups: dict[str, list[str]] = defaultdict(list)
    for entry_id, key in compress(zip(ids, keys, strict=True), map(shared.__contains__, keys)):
        groups[key].append(entry_id)
    return groups


def near_duplicate_ids(ids: Sequence[str], kind: EntryKind) -> list[Finding]:
    """Ids equal after Ax's trim (errors) or differing only by case (warnings)."""
    distinct = list(dict.fromkeys(ids))
    trimmed_ids = _trimmed(distinct)
    out: list[Finding] = []
    for key, members in _groups(distinct, trimmed_ids).items():
        if not key:
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
    folded: list[str] = []
    for start in range(0, len(trimmed_ids), _SLICE):
        folded += map(str.casefold, trimmed_ids[start : start + _SLICE])
    groups = _groups(distinct, folded)
    if not groups:
        return out
    trimmed = dict(zip(distinct, trimmed_ids, strict=True))
    for key, members in groups.items():
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
    """The checks on each id's own text: empty, padded, invisible characters."""
    distinct = list(dict.fromkeys(ids))
    trimmed = _trimmed(distinct)
    # Only ids that are padded, empty or hold an invisible character get a finding.
    odd: set[int] = set()
    for start in range(0, len(distinct), _SLICE):
        part, cores = distinct[start : start + _SLICE], trimmed[start : start + _SLICE]
        padded = map(or_, map(ne, cores, part), map(not_, cores))
        odd.update(compress(range(start, start + len(part)), padded))
        if _INVISIBLE.search("".join(part)):  # the pattern matches single characters
            odd.update(compress(range(start, start + len(part)), map(_INVISIBLE.search, part)))
    out = []
    for at in sorted(odd):
        entry_id, core = distinct[at], trimmed[at]
        hidden = invisible_characters(kind, entry_id, "id", entry_id)
        if hidden is not None:
            out.append(hidden)
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
        hidden = invisible_characters("skill", s.id, "name", s.name)
        if hidden is not None:
            out.append(hidden)
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
