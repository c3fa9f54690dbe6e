"""Where the two runtimes show a catalog differently, entry by entry.

A TypeScript app sends what @ax-llm/ax renders; the studio's own runs send what axllm
renders. For one catalog they differ in:

- order: the index and the Memories field list ids in `localeCompare` order (Ax) or by
  code point (axllm: upper case before lower case, digits and punctuation by their code,
  accented letters, other scripts and emoji after ASCII). Named are the entries that sit
  elsewhere: those outside a longest run the two orders share;
- clean-up: axllm trims padded ids and names, leaves out a skill whose name is blank and
  lists a repeated id once (the last) (padded names are named here; the rest have lint
  findings of their own);
- cuts: Ax keeps the first 600 UTF-16 units of a content for search and 80 of a memory's
  snippet; axllm 600 and 80 characters, so a text with emoji before the cut is cut later.

`runtime_differences` is what the preview and lint (code `runtime-*`) say.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter

from axmem_gui.core.ax.axllm_rules import skill_catalog
from axmem_gui.core.ax.axllm_rules import snippet as axllm_snippet
from axmem_gui.core.ax.collation import collation_keys
from axmem_gui.core.ax.jstext import JS_WHITESPACE, collapse_whitespace, js_trim, utf16_slice
from axmem_gui.core.ax.profile import AxProfile
from axmem_gui.core.catalog import Memory, Skill

ORDER, CLEANUP, CUT = "order", "cleanup", "cut"


@dataclass(frozen=True)
class RuntimeDifference:
    kind: str  # ORDER | CLEANUP | CUT
    entry_kind: str  # "skill" | "memory"
    entry_id: str
    message: str


def _plain(entry_id: str) -> bool:
    """Lower-case ASCII letters and digits: sorts alike in both runtimes' orders."""
    return entry_id.isascii() and entry_id.isalnum() and entry_id == entry_id.lower()


def _moved(ts_order: Sequence[str], axllm_rank: dict[str, int]) -> set[str]:
    """The ids outside a longest subsequence both orders share; of the longest ones, the
    one that keeps the most plain ids (so the ids named are those whose case, accents or
    punctuation move them). A heaviest increasing subsequence over a Fenwick tree."""
    n = len(ts_order)
    heavy = n + 1  # any longer run outweighs any number of plain ids
    best = [(0, -1)] * (n + 1)  # Fenwick tree over axllm ranks: (weight, position)
    back = [-1] * n
    weights = [0] * n
    for at, entry_id in enumerate(ts_order):
        rank = axllm_rank[entry_id]
        found, i = (0, -1), rank  # best run ending below this rank
        while i > 0:
            found = max(found, best[i])
            i -= i & -i
        weights[at] = found[0] + heavy + (1 if _plain(entry_id) else 0)
        back[at] = found[1]
        i = rank + 1
        while i <= n:
            best[i] = max(best[i], (weights[at], at))
            i += i & -i
    kept: set[int] = set()
    at = max(range(n), key=weights.__getitem__) if n else -1
    while at >= 0:
        kept.add(at)
        at = back[at]
    return {i for n_, i in enumerate(ts_order) if n_ not in kept}


def _why(entry_id: str) -> str:
    if any("A" <= ch <= "Z" for ch in entry_id):
        return "upper case sorts before lower case by code point"
    if not entry_id.isascii():
        return "accented letters, other scripts and emoji sort after ASCII by code point"
    if any(not ch.isalnum() for ch in entry_id):
        return "punctuation sorts by its code point"
    return "axllm orders by code point"


def _order(ids: Sequence[str], kind: str, where: str) -> list[RuntimeDifference]:
    unique = list(dict.fromkeys(ids))
    keys = collation_keys(unique)
    ts = [unique[i] for i in sorted(range(len(unique)), key=keys.__getitem__)]
    axllm = sorted(unique)
    if ts == axllm:
        return []
    rank = {i: n for n, i in enumerate(axllm)}
    ts_rank = {i: n for n, i in enumerate(ts)}
    moved = _moved(ts, rank)
    return [
        RuntimeDifference(
            ORDER,
            kind,
            i,
            f"{where}: the studio's runs (axllm) list it {rank[i] + 1} of {len(axllm)}, "
            f"a TypeScript app (Ax) {ts_rank[i] + 1} of {len(ts)} ({_why(i)})",
        )
        for i in ts
        if i in moved
    ]


_PAD = frozenset(JS_WHITESPACE) - {""}


def _skill_cleanup(skills: Sequence[Skill]) -> list[RuntimeDifference]:
    """Skills whose name axllm trims (a blank name, a padded or repeated id have lint
    findings of their own: empty-name, padded-id, duplicate-id)."""
    return [
        RuntimeDifference(
            CLEANUP,
            "skill",
            skill.id,
            "Available Skills: axllm trims its name in the index and Loaded Skills, "
            "Ax shows it as it is in the index",
        )
        for skill in skills
        # (the first test is cheap and false for nearly every name: an edit re-runs this)
        if skill.name[-1:] in _PAD or skill.name[:1] in _PAD
        if skill.name.strip(JS_WHITESPACE) and skill.name != skill.name.strip(JS_WHITESPACE)
    ]


def _cut(text: str, chars: int) -> tuple[str, str]:
    """(Ax's cut, axllm's cut) of `text` at `chars`."""
    return utf16_slice(text, chars), text[:chars]


def _cuts(
    skills: Sequence[Skill], memories: Sequence[Memory], ts: AxProfile, axllm: AxProfile
) -> list[RuntimeDifference]:
    out: list[RuntimeDifference] = []
    for kind, entries, chars in (
        ("skill", skills, ts.skill_content_chars),
        ("memory", memories, ts.memory_content_chars),
    ):
        # Only a text beyond ASCII can be cut differently (`isascii` is O(1) in CPython;
        # the filter runs as a comprehension: an edit re-runs this over 100,000 entries).
        for entry in [e for e in entries if not e.content.isascii()]:
            text = entry.content
            if len(text) * 2 <= chars:
                continue
            ax_cut, axllm_cut = _cut(text, chars)
            if ax_cut != axllm_cut:
                extra = len(axllm_cut) - len(ax_cut)
                out.append(
                    RuntimeDifference(
                        CUT,
                        kind,
                        entry.id,
                        f"content cut: Ax searches its first {chars} UTF-16 units, axllm its "
                        f"first {chars} characters ({extra} more, after characters beyond "
                        "U+FFFF such as emoji)",
                    )
                )
    for memory in [m for m in memories if not m.content.isascii()]:
        ax_snippet = utf16_slice(
            js_trim(collapse_whitespace(memory.content)), ts.memory_hint_snippet_chars
        )
        if ax_snippet != axllm_snippet(memory.content, axllm):
            out.append(
                RuntimeDifference(
                    CUT,
                    "memory",
                    memory.id,
                    f"Relevance Hints snippet: Ax shows {ts.memory_hint_snippet_chars} UTF-16 "
                    f"units, axllm {axllm.memory_hint_snippet_chars} characters (emoji, or "
                    "white space only Python counts)",
                )
            )
    return out


def order_differences(
    skills: Sequence[Skill], memories: Sequence[Memory]
) -> list[RuntimeDifference]:
    """The entries the two runtimes list in another order (they depend only on the ids,
    and on which skills axllm leaves out)."""
    listed = [s.id for s in skill_catalog(skills)]
    memory_ids = [js_trim(m.id) for m in memories if js_trim(m.id)]
    return [
        *_order(listed, "skill", "Available Skills and Loaded Skills"),
        *_order(memory_ids, "memory", "Memories"),
    ]


def entry_differences(
    skills: Sequence[Skill], memories: Sequence[Memory], ts: AxProfile, axllm: AxProfile
) -> list[RuntimeDifference]:
    """The entries whose own texts the two runtimes clean up or cut differently."""
    return [*_skill_cleanup(skills), *_cuts(skills, memories, ts, axllm)]


def runtime_differences(
    skills: Sequence[Skill], memories: Sequence[Memory], ts: AxProfile, axllm: AxProfile
) -> list[RuntimeDifference]:
    """Every entry the two runtimes render or cut differently, in catalog terms."""
    return [*order_differences(skills, memories), *entry_differences(skills, memories, ts, axllm)]


def summary(differences: Sequence[RuntimeDifference], limit: int = 4) -> str:
    """One line for a view: how many entries of each kind, naming the first few."""
    if not differences:
        return ""
    parts = []
    labels = {ORDER: "order", CLEANUP: "clean-up", CUT: "cuts"}
    for kind, label in labels.items():
        ids = list(dict.fromkeys(d.entry_id for d in differences if d.kind == kind))
        if ids:
            named = ", ".join(ids[:limit]) + (
                f" and {len(ids) - limit} more" if len(ids) > limit else ""
            )
            parts.append(f"{label}: {named}")
    return "; ".join(parts)


_ID = attrgetter("id")


class RuntimeDifferences:
    """`runtime_differences` over a catalog that changes a little at a time: the order
    part is kept while the ids (and which names are blank) stay (the lint session and
    the preview ask after every edit; at 100,000 memories it is most of the work)."""

    def __init__(self, ts: AxProfile, axllm: AxProfile) -> None:
        self.ts, self.axllm = ts, axllm
        self._order: tuple[object, list[RuntimeDifference]] | None = None
        #: The last (skills, memories) objects asked about, and their key: asked again
        #: about the same objects (a catalog's entry tuples are kept while unchanged),
        #: the 100,000 ids are not walked again (on the GUI thread, at every preview).
        self._seen: tuple[Sequence[Skill], Sequence[Memory], object] | None = None

    @staticmethod
    def key(skills: Sequence[Skill], memories: Sequence[Memory]) -> object:
        """What the order part depends on."""
        return (
            tuple(map(_ID, skills)),
            tuple(s.id for s in skills if not s.name.strip(JS_WHITESPACE)),
            tuple(map(_ID, memories)),
        )

    @staticmethod
    def compare(skills: Sequence[Skill], memories: Sequence[Memory]) -> list[RuntimeDifference]:
        """The order part, computed (no cache: safe on any thread)."""
        return order_differences(skills, memories)

    def known_order(
        self, skills: Sequence[Skill], memories: Sequence[Memory]
    ) -> list[RuntimeDifference] | None:
        """The order part when it is known for these entries, else None (nothing is
        computed: a view that must not stall computes it elsewhere and `remember`s it)."""
        if self._order is None or self._order[0] != self._key(skills, memories):
            return None
        return self._order[1]

    def _key(self, skills: Sequence[Skill], memories: Sequence[Memory]) -> object:
        seen = self._seen
        if seen is not None and seen[0] is skills and seen[1] is memories:
            return seen[2]
        key = self.key(skills, memories)
        self._seen = (skills, memories, key)
        return key

    def remember(self, key: object, order: list[RuntimeDifference]) -> None:
        self._order = (key, order)

    def order(self, skills: Sequence[Skill], memories: Sequence[Memory]) -> list[RuntimeDifference]:
        key = self._key(skills, memories)
        if self._order is None or self._order[0] != key:
            self._order = (key, self.compare(skills, memories))
        return self._order[1]

    def entries(
        self, skills: Sequence[Skill], memories: Sequence[Memory]
    ) -> list[RuntimeDifference]:
        return entry_differences(skills, memories, self.ts, self.axllm)

    def of(self, skills: Sequence[Skill], memories: Sequence[Memory]) -> list[RuntimeDifference]:
        return [
            *self.order(skills, memories),
            *entry_differences(skills, memories, self.ts, self.axllm),
        ]
