""""Why was X (not) returned?": one catalog entry against one search string.

Reports what Ax did with the query (which words became search terms, which were
stopwords), what the entry indexes field by field (including what lies beyond the content
cut), where the entry landed in the full ranking, and the cut-off that decided it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from axmem_gui.core.ax.documents import FieldTokens, memory_fields, skill_fields
from axmem_gui.core.ax.index import SearchIndex
from axmem_gui.core.ax.jstext import js_slice_count
from axmem_gui.core.ax.ranking import RankOptions, RankResult, ScoredDocument, Suppression
from axmem_gui.core.ax.search import MemorySearch, SkillSearch
from axmem_gui.core.ax.tokenize import Drop
from axmem_gui.core.catalog import singular
from axmem_gui.core.errors import InputError


@dataclass(frozen=True)
class TermReport:
    term: str
    status: str  # matched | not-in-entry | not-in-catalog | beyond-cut
    fields: tuple[str, ...] = ()


@dataclass(frozen=True)
class Explanation:
    domain: str
    entry_id: str
    query: str
    result: RankResult
    fields: tuple[FieldTokens, ...]
    terms: tuple[TermReport, ...]
    dropped_query_words: tuple[tuple[str, str], ...]  # (word, why)
    excluded: bool
    rank: int | None  # 1-based position among matching entries
    raw: float
    coverage: float
    score: float | None  # raw / top raw
    cutoff: int  # how many entries the call keeps
    returned: bool
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {
            "domain": self.domain,
            "id": self.entry_id,
            "query": self.query,
            "tokens": list(self.result.tokens),
            "droppedQueryWords": [{"word": w, "why": why} for w, why in self.dropped_query_words],
            "terms": [
                {"term": t.term, "status": t.status, "fields": list(t.fields)} for t in self.terms
            ],
            "excluded": self.excluded,
            "rank": self.rank,
            "matches": len(self.result.matches),
            "raw": self.raw,
            "coverage": self.coverage,
            "score": self.score,
            "cutoff": self.cutoff,
            "returned": self.returned,
            "suppression": self.result.suppression.value if self.result.suppression else None,
            "reason": self.reason,
            "fields": [f.to_json() for f in self.fields],
        }


def explain(
    search: SkillSearch | MemorySearch,
    entry_id: str,
    query: str,
    *,
    options: RankOptions | None = None,
    already_loaded_ids: Iterable[str] = (),
) -> Explanation:
    """Explain `entry_id` for `query` as a discover (skills) or recall (memories) call, or,
    with `options`, as a hint ranking."""
    profile = search.profile
    if isinstance(search, SkillSearch):
        domain = "skills"
        entries = [s for s in search.skills if s.id == entry_id]
        fields = skill_fields(entries[-1], profile, search.tokenizer) if entries else None
        options = options or RankOptions.best_effort(profile.skill_search_top_k)
        exclude: frozenset[str] = frozenset()
    else:
        domain = "memories"
        mem_entries = [m for m in search.memories if m.id == entry_id]
        fields = memory_fields(mem_entries[-1], profile, search.tokenizer) if mem_entries else None
        options = options or RankOptions.best_effort(profile.memory_search_top_k)
        exclude = frozenset(already_loaded_ids)
    if fields is None:
        raise InputError(f"no {singular(domain)} with id {entry_id!r} in the catalog")

    ranker = search.ranker
    if isinstance(ranker, SearchIndex):
        result = ranker.rank(query, options, exclude, full_ranking=True)
    else:
        result = ranker.rank(query, options, exclude)
    dropped = tuple(
        (t.text, t.dropped.value) for t in search.tokenizer.raw_prose(query) if t.dropped
    )
    terms = _term_reports(result, fields)
    mine: list[tuple[int, ScoredDocument]] = [
        (i, m) for i, m in enumerate(result.matches) if m.id == entry_id
    ]
    cutoff = js_slice_count(options.top_k, len(result.matches))
    returned = entry_id in result.result_ids
    excluded = entry_id in exclude
    if mine:
        index, best = mine[0]
        rank: int | None = index + 1
        raw, coverage = best.raw, best.coverage
        score: float | None = raw / result.matches[0].raw
    else:
        rank, raw, coverage, score = None, 0.0, 0.0, None
    reason = _reason(result, excluded, rank, cutoff, returned, terms, dropped)
    return Explanation(
        domain, entry_id, query, result, tuple(fields), terms, dropped, excluded,
        rank, raw, coverage, score, cutoff, returned, reason,
    )


def _term_reports(result: RankResult, fields: list[FieldTokens]) -> tuple[TermReport, ...]:
    reports = []
    for term in dict.fromkeys(result.tokens):
        in_fields = tuple(f.label for f in fields if term in f.terms)
        if in_fields:
            status = "matched" if term in result.effective_terms else "not-in-catalog"
        elif any(term in f.cut_terms for f in fields):
            status = "beyond-cut"
        elif term in result.effective_terms:
            status = "not-in-entry"
        else:
            status = "not-in-catalog"
        reports.append(TermReport(term, status, in_fields))
    return tuple(reports)


def _reason(
    result: RankResult,
    excluded: bool,
    rank: int | None,
    cutoff: int,
    returned: bool,
    terms: tuple[TermReport, ...],
    dropped: tuple[tuple[str, str], ...],
) -> str:
    if excluded:
        return "excluded: already loaded, so it is not a recall candidate"
    if returned:
        return f"returned at rank {rank}"
    if not result.tokens:
        words = ", ".join(f"{w} ({why})" for w, why in dropped) or "nothing"
        return f"the query has no search terms: {words}"
    if result.suppression is Suppression.TOO_FEW_DOCS:
        return "the catalog has fewer entries than minDocs"
    if rank is None:
        beyond = [t.term for t in terms if t.status == "beyond-cut"]
        missing = [t.term for t in terms if t.status != "matched"]
        text = f"no query term occurs in it (missing: {', '.join(missing)})"
        if beyond:
            text += f"; {', '.join(beyond)} only occur beyond the content cut"
        stopped = [w for w, why in dropped if why == Drop.STOPWORD.value]
        if stopped:
            text += f"; stopwords ignored: {', '.join(stopped)}"
        return text
    if result.suppression is not None:
        return f"matched at rank {rank}, but the call returned nothing: {result.suppression.value}"
    return f"ranked {rank} of {len(result.matches)}; only the top {cutoff} are returned"
