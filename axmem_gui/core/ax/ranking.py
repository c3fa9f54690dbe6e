"""Ax's `rankDocuments` (relevanceRanker.ts): the plain, obviously-correct implementation.

Every search Ax does over a catalog (discover, recall, relevance hints) is one call of
`rankDocuments(query, docs, opts)`. This module mirrors it step by step, keeping the same
float operations in the same order (and V8's `Math.log`), so raw scores, coverage and the
normalised score are bit-identical to the TypeScript package. `SearchIndex` (index.py) is
the fast version; tests check both agree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, NamedTuple

from axmem_gui.core.ax.collation import collation_key
from axmem_gui.core.ax.fdlibm import js_log
from axmem_gui.core.ax.jstext import js_slice_count, js_to_number
from axmem_gui.core.ax.profile import AxProfile
from axmem_gui.core.ax.tokenize import Tokenizer

_OPTION_KEYS = {
    "topK": "top_k",
    "minScore": "min_score",
    "marginRatio": "margin_ratio",
    "minDocs": "min_docs",
}


@dataclass(frozen=True)
class RankOptions:
    """`AxRankDocumentsOptions` with every default resolved."""

    top_k: float
    min_score: float
    margin_ratio: float
    min_docs: float

    @classmethod
    def strict(cls, profile: AxProfile) -> RankOptions:
        """The ranker defaults: the advisory hint's guards."""
        d = profile.rank_defaults
        return cls(d.top_k, d.min_score, d.margin_ratio, d.min_docs)

    @classmethod
    def best_effort(cls, top_k: int) -> RankOptions:
        """What the built-in discover/recall pass: no guards, catalogs of one entry rank."""
        return cls(top_k=top_k, min_score=0, margin_ratio=0, min_docs=1)

    @classmethod
    def from_js(
        cls, value: Mapping[str, Any] | None, profile: AxProfile, source: str = "options"
    ) -> RankOptions:
        """`opts?.key ?? default` for a relevanceRanking object; other keys are ignored.

        Ax never checks the types: it compares (`docs.length < minDocs`) and slices
        (`slice(0, topK)`), which convert a loosely typed value with JavaScript's
        ToNumber (`"1"` is 1, `"abc"` is NaN, and every comparison with NaN is false), so
        the value is converted the same way here. `source` names the object in messages.
        """
        del source  # every JSON value is accepted, as Ax accepts it
        resolved = cls.strict(profile)
        if not value:
            return resolved
        changes: dict[str, float] = {}
        for js_key, attr in _OPTION_KEYS.items():
            raw = value.get(js_key)
            if raw is None:
                continue
            changes[attr] = raw if type(raw) in (int, float) else js_to_number(raw)
        return cls(**{**resolved.__dict__, **changes})

class RankField(NamedTuple):
    """One searchable field: `identifier` picks the identifier tokenizer.

    (Named tuples: catalogs of 100,000 entries create these by the hundred thousand.)"""

    text: str
    weight: float = 1
    identifier: bool = False
    label: str = ""


class RankDocument(NamedTuple):
    id: str
    fields: tuple[RankField, ...]


def term_frequencies(doc: RankDocument, tokenizer: Tokenizer) -> dict[str, float]:
    """`buildDocumentTermFreq`: per term, the sum of the weights of its occurrences."""
    tf: dict[str, float] = {}
    for f in doc.fields:
        if not f.text:
            continue
        terms = tokenizer.identifier(f.text) if f.identifier else tokenizer.prose(f.text)
        for term in terms:
            tf[term] = tf.get(term, 0) + f.weight
    return tf


class Suppression(Enum):
    """Why `rankDocuments` returned nothing."""

    TOO_FEW_DOCS = "fewer documents than minDocs"
    NO_TERMS = "no query term occurs in any document"
    NO_MATCH = "no document matched"
    WEAK_TOP = "top match coverage below minScore"
    ALL_NEAR_TOP = "every document is within marginRatio of the top"


@dataclass(frozen=True)
class ScoredDocument:
    """A document with `raw > 0` in the full ranking."""

    id: str
    raw: float
    coverage: float
    matched_terms: tuple[str, ...]
    position: int  # index in the ranked document list (ties with equal ids keep this order)


@dataclass(frozen=True)
class RankedEntry:
    """One entry `rankDocuments` returns, plus its raw score and coverage."""

    id: str
    score: float
    raw: float
    coverage: float
    matched_terms: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "score": self.score,
            "raw": self.raw,
            "coverage": self.coverage,
            "matchedTerms": list(self.matched_terms),
        }


@dataclass(frozen=True)
class RankResult:
    """A `rankDocuments` call: its inputs, the full ranking and what Ax returned."""

    query: str
    tokens: tuple[str, ...]  # prose tokens of the query, repeats kept
    options: RankOptions
    doc_count: int
    effective_terms: tuple[str, ...] = ()
    idf: tuple[float, ...] = ()
    #: Every document with raw > 0, best first (Ax's sort order), beyond any cut.
    matches: tuple[ScoredDocument, ...] = ()
    #: What Ax returns: after the guards and topK.
    ranked: tuple[RankedEntry, ...] = ()
    suppression: Suppression | None = None
    df: Mapping[str, int] = field(default_factory=dict)
    #: How many documents have raw > 0; None when an index skipped counting them
    #: (`matches` then holds only the entries up to the cut).
    match_count: int | None = 0

    @property
    def result_ids(self) -> tuple[str, ...]:
        return tuple(entry.id for entry in self.ranked)

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "tokens": list(self.tokens),
            "ranked": [entry.to_json() for entry in self.ranked],
        }


def match_sort_key(doc: ScoredDocument) -> tuple[float, bytes, int]:
    """Ax's comparator `b.raw - a.raw || a.id.localeCompare(b.id)`, stable."""
    return (-doc.raw, collation_key(doc.id), doc.position)


def select(
    query: str,
    tokens: tuple[str, ...],
    options: RankOptions,
    doc_count: int,
    effective: tuple[str, ...],
    idf: tuple[float, ...],
    matches: list[ScoredDocument],
    df: Mapping[str, int],
) -> RankResult:
    """Steps 6-9 of rankDocuments, given every document with raw > 0 (any order)."""
    base = RankResult(query, tokens, options, doc_count, effective, idf, df=df)
    if not matches:
        return _replace(base, suppression=Suppression.NO_MATCH)
    ordered = tuple(sorted(matches, key=match_sort_key))
    top = ordered[0]
    base = _replace(base, matches=ordered, match_count=len(ordered))
    if top.coverage < options.min_score:
        return _replace(base, suppression=Suppression.WEAK_TOP)
    if options.margin_ratio > 0 and doc_count >= 2:
        near = sum(1 for s in ordered if (top.raw - s.raw) / top.raw < options.margin_ratio)
        if near >= doc_count:
            return _replace(base, suppression=Suppression.ALL_NEAR_TOP)
    keep = js_slice_count(options.top_k, len(ordered))
    ranked = tuple(
        RankedEntry(s.id, s.raw / top.raw, s.raw, s.coverage, s.matched_terms)
        for s in ordered[:keep]
    )
    return _replace(base, ranked=ranked)


def _replace(result: RankResult, **changes: Any) -> RankResult:
    return RankResult(**{**result.__dict__, **changes})


def rank_documents(
    query: str,
    docs: Sequence[RankDocument],
    options: RankOptions,
    tokenizer: Tokenizer,
) -> RankResult:
    """`rankDocuments(query, docs, options)`, step for step."""
    tokens = tuple(tokenizer.prose(query))
    doc_count = len(docs)
    if doc_count < options.min_docs:
        return RankResult(query, tokens, options, doc_count, suppression=Suppression.TOO_FEW_DOCS)
    tfs = [term_frequencies(doc, tokenizer) for doc in docs]
    df: dict[str, int] = {}
    for tf in tfs:
        for term in tf:
            df[term] = df.get(term, 0) + 1
    effective = tuple(t for t in dict.fromkeys(tokens) if t in df)
    if not effective:
        return RankResult(query, tokens, options, doc_count, suppression=Suppression.NO_TERMS)
    idf = tuple(js_log(1 + doc_count / df[t]) for t in effective)
    total = 0.0
    for w in idf:
        total += w
    matches: list[ScoredDocument] = []
    for position, (doc, tf) in enumerate(zip(docs, tfs, strict=True)):
        raw = 0.0
        coverage = 0.0
        matched: list[str] = []
        for term, w in zip(effective, idf, strict=True):
            f = tf.get(term)
            if f and f > 0:
                raw += w * (f / (f + 1))
                coverage += w
                matched.append(term)
        if raw > 0:
            matches.append(ScoredDocument(doc.id, raw, coverage / total, tuple(matched), position))
    used_df = {t: df[t] for t in effective}
    return select(query, tokens, options, doc_count, effective, idf, matches, used_df)
