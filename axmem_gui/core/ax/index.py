"""An inverted index that answers `rankDocuments` exactly, fast, over big catalogs.

`SearchIndex` ranks over an `InvertedIndex` (core/ax/inverted_index.py: the documents,
their postings and their order, built once per catalog version and updated in place). A
document's raw score is computed with the same float operations, in the same query-term
order, as the plain ranker (ranking.py), so results are bit-identical; tests check this
on random catalogs.

Finding the top k without scoring every matching document: a raw score is the sum over
query terms of `idf * f / (f + 1)`, so each term's postings are kept grouped by term
frequency `f` ("items", each with one gain). Items are visited from the largest gain
down; a document is scored exactly (from its own term frequencies) the first time one of
its items is visited. A document not yet visited scores at most the sum, over terms, of
the largest gain still unvisited, so the walk stops as soon as the k-th best exact score
beats that bound. When no other term has unvisited items left, every unseen document of
the current item scores exactly that item's gain, so only its first few documents in
`localeCompare` order are needed.

Document order (the last tie-break, for entries with equal score and equal collation key)
is the order of handles (`add` appends, `update` keeps the entry's place).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterator, Sequence
from typing import Any, TypeAlias

from axmem_gui.core.ax.fdlibm import js_log
from axmem_gui.core.ax.inverted_index import InvertedIndex, Postings
from axmem_gui.core.ax.jstext import js_slice_count
from axmem_gui.core.ax.ranking import (
    RankedEntry,
    RankOptions,
    RankResult,
    ScoredDocument,
    Suppression,
)

#: Above this many results per query, walking items is no cheaper than scoring everyone.
_MAX_FAST_TOP_K = 64
#: A group smaller than 1/this of the catalog is sorted directly instead of scanned for
#: in the global collation order.
_SCAN_RATIO = 64

Group: TypeAlias = "tuple[float, Postings]"


class SearchIndex(InvertedIndex):
    """Inverted index over one catalog's rankable documents (skills or memories), ranked
    as `rankDocuments` ranks them."""

    def _groups(self, term: str) -> list[Group]:
        """The term's postings grouped by frequency, largest frequency first."""
        groups: list[Group] = list(self._more.get(term, {}).items())
        ones = self._ones.get(term)
        if ones:
            groups.append((1, ones))
        groups.sort(key=lambda group: -group[0])
        return groups

    def _first_in_order(
        self, term: str, term_code: str | None, freq: float, members: Postings, skip: set[int]
    ) -> Iterator[int]:
        """The group's members not in `skip`, in collation order, lazily."""
        if len(members) * _SCAN_RATIO < len(self._order):
            for handle in sorted(members, key=self._order_key):
                if handle not in skip:
                    yield handle
            return
        docs, codes = self._docs, self._codes
        if term_code is None or freq != 1 or codes.wide:
            for handle in self._order:
                code = docs[handle]
                if codes.freq(handle, code, term, term_code) == freq and handle not in skip:
                    yield handle
            return
        for handle in self._order:  # a big group: its first members come early
            code = docs[handle]
            more = ord(code[0])  # the term is among those of frequency 1:
            if code.find(term_code, 1 + more, len(code) - more) > 0 and handle not in skip:
                yield handle

    def _freqs(
        self, handle: int, effective: Sequence[str], term_codes: Sequence[str | None]
    ) -> Iterator[float | None]:
        """The document's frequency of each effective term (None: not in it)."""
        code, codes = self._code(handle), self._codes
        for term, term_code in zip(effective, term_codes, strict=True):
            yield codes.freq(handle, code, term, term_code)

    # ------------------------------------------------------------------ ranking

    def rank(
        self,
        query: str,
        options: RankOptions,
        exclude_ids: frozenset[str] = frozenset(),
        *,
        full_ranking: bool = False,
    ) -> RankResult:
        """`rankDocuments(query, docs minus exclude_ids, options)`.

        `ranked`, `tokens`, `effective_terms`, `idf` and `suppression` are always exact.
        With `full_ranking`, `matches` is the whole ranking and `match_count` its length;
        otherwise `matches` holds the entries up to the cut and `match_count` may be None.
        """
        tokens = tuple(self.tokenizer.prose(query))
        excluded: set[int] = set()
        for entry_id in exclude_ids:
            same_id = self._handles_by_id.get(entry_id, ())
            if isinstance(same_id, int):
                excluded.add(same_id)
            else:
                excluded.update(same_id)
        doc_count = len(self._docs) - len(excluded)
        if doc_count < options.min_docs:
            return RankResult(
                query, tokens, options, doc_count, suppression=Suppression.TOO_FEW_DOCS
            )
        effective: list[str] = []
        term_codes: list[str | None] = []  # None: a term without a code (see DocCodes)
        groups: list[list[Group]] = []
        df: dict[str, int] = {}
        for term in dict.fromkeys(tokens):
            term_groups = self._groups(term)
            count = sum(len(members) for _, members in term_groups)
            term_code = self._codes.terms.get(term)
            if excluded:
                count -= sum(
                    1 for h in excluded if next(self._freqs(h, (term,), (term_code,))) is not None
                )
            if count > 0:
                effective.append(term)
                term_codes.append(term_code)
                # only frequencies > 0 score (a weight-0 field counts for df alone)
                groups.append([group for group in term_groups if group[0] > 0])
                df[term] = count
        if not effective:
            return RankResult(query, tokens, options, doc_count, suppression=Suppression.NO_TERMS)
        idf = tuple(js_log(1 + doc_count / df[t]) for t in effective)
        total = 0.0
        for w in idf:
            total += w
        base = RankResult(query, tokens, options, doc_count, tuple(effective), idf, df=df)
        top_k = options.top_k
        fast = (
            not full_ranking
            and isinstance(top_k, int | float)
            and not math.isnan(top_k)
            and 0 <= top_k <= _MAX_FAST_TOP_K
        )
        if fast:
            result = self._rank_top(base, term_codes, groups, excluded, total)
            if result is not None:
                return result
        return self._rank_all(base, term_codes, groups, excluded, total, full_ranking)

    def _exact(
        self,
        handle: int,
        effective: Sequence[str],
        term_codes: Sequence[str | None],
        idf: Sequence[float],
    ) -> float:
        """The raw score; every effective term has a code (the hot path of the walk)."""
        del effective
        code = self._docs[handle]
        more = ord(code[0])
        end = len(code) - more
        freqs = self._codes.freqs.of_code
        raw = 0.0
        for term_code, w in zip(term_codes, idf, strict=True):
            at = code.find(term_code, 1, end)  # type: ignore[arg-type]
            if at > 0:
                f = 1 if at > more else freqs[ord(code[at + end - 1])]
                if f and f > 0:
                    raw += w * (f / (f + 1))
        return raw

    def _exact_any(
        self,
        handle: int,
        effective: Sequence[str],
        term_codes: Sequence[str | None],
        idf: Sequence[float],
    ) -> float:
        """`_exact` when some effective term has no code."""
        raw = 0.0
        for f, w in zip(self._freqs(handle, effective, term_codes), idf, strict=True):
            if f and f > 0:
                raw += w * (f / (f + 1))
        return raw

    def _scored(
        self,
        handle: int,
        raw: float,
        base: RankResult,
        term_codes: Sequence[str | None],
        total: float,
    ) -> ScoredDocument:
        coverage = 0.0
        matched: list[str] = []
        freqs = self._freqs(handle, base.effective_terms, term_codes)
        for term, w, f in zip(base.effective_terms, base.idf, freqs, strict=True):
            if f and f > 0:
                coverage += w
                matched.append(term)
        entry_id = self._ids[handle]
        return ScoredDocument(entry_id, raw, coverage / total, tuple(matched), handle)

    def _rank_top(
        self,
        base: RankResult,
        term_codes: Sequence[str | None],
        groups: list[list[Group]],
        excluded: set[int],
        total: float,
    ) -> RankResult | None:
        """The top-k walk; None when the margin guard needs every score (rare)."""
        options = base.options
        effective, idf = base.effective_terms, base.idf
        wanted = max(1, int(options.top_k))  # the top document is needed for the guards
        keys = self._keys
        # the fast path, unless some term or frequency is kept outside the codes
        exact = self._exact if None not in term_codes and not self._codes.wide else self._exact_any
        # items per term, largest gain first; gains use the same expression as the scorer
        per_term = [
            [(w * (f / (f + 1)), f, members) for f, members in term_groups]
            for w, term_groups in zip(idf, groups, strict=True)
        ]
        items = sorted(
            ((gain, i, f, members) for i, group in enumerate(per_term)
             for gain, f, members in group),
            key=lambda item: -item[0],
        )  # fmt: skip
        next_item = [0] * len(per_term)
        # largest unvisited gain per term
        bound = [group[0][0] if group else 0.0 for group in per_term]
        best: list[tuple[float, bytes, int]] = []  # (-raw, key, handle), best first
        seen: set[int] = set()

        def offer(handle: int, raw: float) -> bool:
            entry = (-raw, keys[handle], handle)
            if len(best) >= wanted and entry >= best[-1]:
                return False
            bisect.insort(best, entry)
            if len(best) > wanted:
                best.pop()
            return True

        for gain, i, f, members in items:
            unseen_bound = 0.0
            for b in bound:
                unseen_bound += b
            if len(best) >= wanted and -best[-1][0] > _padded(unseen_bound):
                break
            next_item[i] += 1
            group = per_term[i]
            bound[i] = group[next_item[i]][0] if next_item[i] < len(group) else 0.0
            rest = 0.0  # the most an unseen member can get from the other terms
            for j, b in enumerate(bound):
                if j != i:
                    rest += b
            if len(best) >= wanted and -best[-1][0] > _padded(gain + rest):
                continue  # nobody new in this item can make the cut
            if rest == 0.0:
                # unseen members contain no other query term: they all score `gain`,
                # so only the first few in collation order can make the cut
                candidates = self._first_in_order(
                    effective[i], term_codes[i], f, members, seen | excluded
                )
                for taken, handle in enumerate(candidates, 1):
                    seen.add(handle)
                    if not offer(handle, 0.0 + gain) or taken >= wanted:
                        break
                continue
            for handle in members:
                if handle in seen or handle in excluded:
                    continue
                seen.add(handle)
                offer(handle, exact(handle, effective, term_codes, idf))

        if not best:
            return _with(base, suppression=Suppression.NO_MATCH, match_count=0)
        top_raw = -best[0][0]
        scored = [self._scored(h, -neg, base, term_codes, total) for neg, _, h in best]
        top = scored[0]
        if top.coverage < options.min_score:
            return _with(base, matches=(top,), suppression=Suppression.WEAK_TOP)
        if options.margin_ratio > 0 and base.doc_count >= 2:
            matched_docs: set[int] = set()
            for term_groups in groups:
                for _, members in term_groups:
                    matched_docs.update(members)
            if len(matched_docs - excluded) >= base.doc_count:
                return None  # every document matched: the guard needs every score
        keep = js_slice_count(options.top_k, len(scored))
        ranked = tuple(
            RankedEntry(s.id, s.raw / top_raw, s.raw, s.coverage, s.matched_terms)
            for s in scored[:keep]
        )
        return _with(base, matches=tuple(scored[: max(keep, 1)]), ranked=ranked, match_count=None)

    def _rank_all(
        self,
        base: RankResult,
        term_codes: Sequence[str | None],
        groups: list[list[Group]],
        excluded: set[int],
        total: float,
        full_ranking: bool,
    ) -> RankResult:
        """Score every matching document (term at a time, in query-term order)."""
        raw: dict[int, float] = {}
        for w, term_groups in zip(base.idf, groups, strict=True):
            for f, members in term_groups:
                gain = w * (f / (f + 1))
                for handle in members:
                    if handle in excluded:
                        continue
                    raw[handle] = raw[handle] + gain if handle in raw else 0.0 + gain
        options = base.options
        if not raw:
            return _with(base, suppression=Suppression.NO_MATCH, match_count=0)
        keys = self._keys
        order = sorted(raw, key=lambda h: (-raw[h], keys[h], h))
        keep = js_slice_count(options.top_k, len(order))
        shown = order if full_ranking else order[: max(keep, 1)]
        matches = tuple(self._scored(h, raw[h], base, term_codes, total) for h in shown)
        top = matches[0]
        base = _with(base, matches=matches, match_count=len(order))
        if top.coverage < options.min_score:
            return _with(base, suppression=Suppression.WEAK_TOP)
        if options.margin_ratio > 0 and base.doc_count >= 2:
            top_raw = top.raw
            near = sum(1 for r in raw.values() if (top_raw - r) / top_raw < options.margin_ratio)
            if near >= base.doc_count:
                return _with(base, suppression=Suppression.ALL_NEAR_TOP)
        ranked = tuple(
            RankedEntry(s.id, s.raw / top.raw, s.raw, s.coverage, s.matched_terms)
            for s in matches[:keep]
        )
        return _with(base, ranked=ranked)


def _padded(bound: float) -> float:
    """A bound summed in another order than the exact scores may round low by an ulp or
    two; pad it so pruning never drops a document that could tie or win."""
    return bound + abs(bound) * 1e-12 + 1e-300


def _with(result: RankResult, **changes: Any) -> RankResult:
    return RankResult(**{**result.__dict__, **changes})
