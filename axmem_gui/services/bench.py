"""The retrieval bench as a use case.

`run_bench` is one `discover({ skills })` or `recall([...])` call over the live search state
(`LiveSearch`, services/live_search.py) with every returned entry's score, raw score,
coverage and matched terms, plus the same searches through BM25; `why_not` explains an
entry against each search string of the call; `term_spans` says where to highlight the
matched terms in an entry's text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from axmem_gui.core.ax.jstext import js_trim
from axmem_gui.core.ax.search import (
    DISCOVER,
    RECALL,
    PolicyError,
    SearchCall,
    normalize_search_input,
)
from axmem_gui.core.ax.tokenize import Tokenizer
from axmem_gui.core.catalog import CatalogKind, searched_by, singular
from axmem_gui.core.errors import InputError
from axmem_gui.services.live_search import LiveSearch
from axmem_gui.store.fts import Bm25Hit
from axmem_gui.store.fts import Bm25Index as Bm25Index
from axmem_gui.store.fts import query_words as query_words

if TYPE_CHECKING:  # `why_not` imports it when first asked
    from axmem_gui.core.ax.explain import Explanation

__all__ = ["Bm25Index", "run_bench", "why_not"]

BenchKind = Literal["discover", "recall"]


@dataclass(frozen=True)
class BenchRow:
    """One entry the Ax call returned, from the first search string that found it."""

    id: str
    rank: int  # position in the call's result (1-based)
    query: str
    score: float  # raw / top raw of that search string
    raw: float
    coverage: float
    matched_terms: tuple[str, ...]


@dataclass(frozen=True)
class Bm25Row:
    id: str
    rank: int
    query: str
    score: float  # -bm25(): bigger is better
    in_ax: bool  # Ax's call returned it too


@dataclass(frozen=True)
class BenchResult:
    kind: BenchKind
    searches: tuple[str, ...]
    loaded: tuple[str, ...] = ()
    call: SearchCall | None = None
    rows: tuple[BenchRow, ...] = ()
    bm25_rows: tuple[Bm25Row, ...] = ()
    error: str | None = None
    per_string_cap: int = 0

    @property
    def domain(self) -> CatalogKind:
        return searched_by(self.kind)

    @property
    def result_ids(self) -> tuple[str, ...]:
        return tuple(r.id for r in self.rows)

    @property
    def bm25_ids(self) -> tuple[str, ...]:
        return tuple(r.id for r in self.bm25_rows)

    def only_bm25(self) -> tuple[str, ...]:
        ax = set(self.result_ids)
        return tuple(i for i in self.bm25_ids if i not in ax)

@dataclass(frozen=True)
class WhyNot:
    """An entry against every search string of one call."""

    entry_id: str
    kind: BenchKind
    returned_by_call: bool
    explanations: tuple[Explanation, ...] = field(default=())


def parse_searches(text: str) -> list[str]:
    """Search strings typed one per line (blank lines ignored, text kept as typed)."""
    return [line for line in text.split("\n") if line.strip()]


def parse_ids(text: str) -> list[str]:
    """Ids separated by commas or new lines, trimmed like Ax trims `inputs.memories` ids."""
    return [js_trim(p) for p in text.replace("\n", ",").split(",") if js_trim(p)]


def run_bench(
    live: LiveSearch,
    kind: BenchKind,
    searches: Sequence[str],
    loaded: Sequence[str] = (),
    *,
    with_bm25: bool = True,
) -> BenchResult:
    """One Ax call (errors become `error`, worded as Ax words them) plus BM25 beside it."""
    loaded_ids = tuple(loaded) if kind == "recall" else ()
    profile = live.profile
    cap = profile.skill_search_top_k if kind == "discover" else profile.memory_search_top_k
    try:
        if kind == "discover":
            call, _ = live.skill_search().discover(list(searches))
        else:
            call, _ = live.memory_search().recall(list(searches), loaded_ids)
    except PolicyError as exc:
        return BenchResult(kind, tuple(searches), loaded_ids, error=str(exc), per_string_cap=cap)
    rows: list[BenchRow] = []
    seen: set[str] = set()
    for query, result in zip(call.queries, call.per_query, strict=True):
        for entry in result.ranked:
            if entry.id in seen:
                continue
            seen.add(entry.id)
            rows.append(
                BenchRow(
                    entry.id,
                    len(rows) + 1,
                    query,
                    entry.score,
                    entry.raw,
                    entry.coverage,
                    entry.matched_terms,
                )
            )
    bm25_rows = bm25_call(live, kind, call.queries, loaded_ids, cap, seen) if with_bm25 else ()
    return BenchResult(
        kind, tuple(searches), loaded_ids, call, tuple(rows), bm25_rows, per_string_cap=cap
    )


def bm25_call(
    live: LiveSearch,
    kind: BenchKind,
    queries: Sequence[str],
    loaded: Sequence[str],
    per_string: int,
    ax_ids: Iterable[str] = (),
) -> tuple[Bm25Row, ...]:
    """The same call through BM25: per search string the top `per_string`, union in
    first-seen order (as a host search replacing Ax's would be asked)."""
    return bm25_rows(live.bm25(searched_by(kind)), queries, loaded, per_string, ax_ids)


def bm25_rows(
    index: Bm25Index,
    queries: Sequence[str],
    loaded: Sequence[str],
    per_string: int,
    ax_ids: Iterable[str] = (),
) -> tuple[Bm25Row, ...]:
    """`bm25_call` on a given index (FTS5 scores every document a word matches: tens of
    milliseconds per string on 100,000 memories, so the desktop app runs it on its task
    runner)."""
    ax = set(ax_ids)
    rows: list[Bm25Row] = []
    seen: set[str] = set()
    for query in queries:
        hits: list[Bm25Hit] = index.search(query, per_string, loaded)
        for hit in hits:
            if hit.id in seen:
                continue
            seen.add(hit.id)
            rows.append(Bm25Row(hit.id, len(rows) + 1, query, hit.score, hit.id in ax))
    return tuple(rows)


def why_not(
    live: LiveSearch,
    kind: BenchKind,
    entry_id: str,
    searches: Sequence[str],
    loaded: Sequence[str] = (),
) -> WhyNot:
    """Explain `entry_id` against each distinct search string of the call (InputError
    when the id is not in the catalog, PolicyError for a malformed call)."""
    domain = searched_by(kind)
    if live.entry(domain, entry_id) is None:
        raise InputError(f"no {singular(domain)} with id {entry_id!r} in the catalog")
    primitive = DISCOVER if kind == "discover" else RECALL
    queries = normalize_search_input(list(searches), primitive, live.profile)
    search = live.skill_search() if kind == "discover" else live.memory_search()
    loaded_ids = tuple(loaded) if kind == "recall" else ()
    from axmem_gui.core.ax.explain import explain

    explanations = tuple(
        explain(search, entry_id, q, already_loaded_ids=loaded_ids) for q in queries
    )
    returned = any(e.returned for e in explanations)
    return WhyNot(entry_id, kind, returned, explanations)


# --------------------------------------------------------------------------- highlighting

_IDENTIFIER_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z0-9]+|[A-Z]+|[0-9]+")


def term_spans(
    text: str,
    terms: Iterable[str],
    tokenizer: Tokenizer,
    punctuation: str,
    *,
    identifier: bool = False,
) -> list[tuple[int, int]]:
    """Where in `text` (Python indices) words occur whose search term is in `terms`.

    Prose is split as Ax splits it (whitespace, then the profile's punctuation), and each
    piece is normalized by the real tokenizer, so `Release,` highlights for `release`.
    An id is split into its identifier words (`postmortemTemplate` -> postmortem, template).
    """
    wanted = set(terms)
    if not wanted or not text:
        return []
    spans: list[tuple[int, int]] = []
    if identifier:
        for match in _IDENTIFIER_WORD.finditer(text):
            if match.group().lower() in wanted:
                spans.append(match.span())
        return spans
    splitter = re.compile("[^" + re.escape(punctuation) + r"\s]+") if punctuation else _NON_SPACE
    for match in splitter.finditer(text):
        terms_here = tokenizer.prose(match.group())
        if terms_here and terms_here[0] in wanted:
            spans.append(match.span())
    return spans


_NON_SPACE = re.compile(r"\S+")
