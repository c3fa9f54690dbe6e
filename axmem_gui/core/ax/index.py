"""An inverted index that answers `rankDocuments` exactly, fast, over big catalogs.

Built once per catalog version and updated in place when entries are added, changed or
removed. A document's raw score is computed with the same float operations, in the same
query-term order, as the plain ranker (ranking.py), so results are bit-identical; tests
check this on random catalogs.

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
is the order of handles: `add` appends, `update` keeps the entry's place.
"""

from __future__ import annotations

import bisect
import gc
import math
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import compress, repeat
from typing import Any, NamedTuple

from axmem_gui.core.ax.collation import collation_key
from axmem_gui.core.ax.fdlibm import js_log
from axmem_gui.core.ax.jstext import js_slice_count
from axmem_gui.core.ax.ranking import (
    RankDocument,
    RankedEntry,
    RankField,
    RankOptions,
    RankResult,
    ScoredDocument,
    Suppression,
)
from axmem_gui.core.ax.tokenize import Tokenizer, count_words

_ONE = 1.0  # float: 1.0.__eq__ answers for int and float term frequencies alike
#: Above this many results per query, walking items is no cheaper than scoring everyone.
_MAX_FAST_TOP_K = 64
#: A group smaller than 1/this of the catalog is sorted directly instead of scanned for
#: in the global collation order.
_SCAN_RATIO = 64


class _Doc(NamedTuple):
    # A tuple of untracked values is itself untracked by the cycle collector, so a big
    # index does not slow every later garbage collection down.
    id: str
    terms: dict[str, float]
    key: str  # collation key of the id


Group = tuple[float, list[int]]
#: Builds a _Doc without the named tuple's Python-level __new__ (it runs 100,000 times).
_new_doc = tuple.__new__


def _term_frequencies(doc: RankDocument, tokenizer: Tokenizer) -> dict[str, float]:
    """Same values as `ranking.term_frequencies`. With integer weights the sums are exact
    in any order, so the counts of the first weight-1 prose field are taken as they are and
    the other fields are counted into them (a weight w adds each occurrence w times, with
    the C counting helper)."""
    tf: dict[str, float] | None = None
    others: list[RankField] = []
    for field in doc.fields:
        if not field.text:
            continue
        if tf is None and not field.identifier and type(field.weight) is int and field.weight == 1:
            tf = tokenizer.prose_counts(field.text)  # a fresh dict: ours to extend
        else:
            others.append(field)
    if tf is None:
        tf = {}
    for field in others:
        weight = field.weight
        terms = (
            tokenizer.identifier(field.text) if field.identifier else tokenizer.prose(field.text)
        )
        if type(weight) is int and 0 < weight <= 4:
            for _ in range(weight):
                count_words(tf, terms)
        else:
            for term in terms:
                tf[term] = tf.get(term, 0) + weight
    return tf


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Building creates millions of small objects; the cycle collector would rescan them
    again and again (none of them form garbage cycles)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class SearchIndex:
    """Inverted index over one catalog's rankable documents (skills or memories)."""

    def __init__(self, tokenizer: Tokenizer, docs: Iterable[RankDocument] = ()) -> None:
        self.tokenizer = tokenizer
        self._docs: dict[int, _Doc] = {}
        # Postings are plain lists (appending is far cheaper than growing big hash sets);
        # "is document h in group (term, f)" is answered by h's own term frequencies.
        self._ones: defaultdict[str, list[int]] = defaultdict(list)  # term -> handles, f == 1
        self._more: defaultdict[str, dict[float, list[int]]] = defaultdict(dict)  # f != 1
        self._handles_by_id: dict[str, int | tuple[int, ...]] = {}
        self._order: list[int] = []  # handles in (collation key, handle) order
        self._next = 0
        self.extend(docs)

    def __len__(self) -> int:
        return len(self._docs)

    def handles(self) -> list[int]:
        """Handles in document order."""
        return sorted(self._docs)

    def _order_key(self, handle: int) -> tuple[str, int]:
        return (self._docs[handle].key, handle)

    def extend(self, docs: Iterable[RankDocument]) -> list[int]:
        """Append many documents; returns their handles."""
        first = self._next
        insert = self._insert
        with _gc_paused():
            handle = first
            for doc in docs:
                insert(handle, doc)
                handle += 1
            self._next = handle
            added = list(range(first, handle))
            if added:
                self._order.extend(added)
                self._order.sort(key=self._order_key)
        return added

    def add(self, doc: RankDocument) -> int:
        """Append a document; returns its handle."""
        handle = self._next
        self._next += 1
        self._insert(handle, doc)
        bisect.insort(self._order, handle, key=self._order_key)
        return handle

    def update(self, handle: int, doc: RankDocument) -> None:
        """Replace the document at `handle`, keeping its place in document order."""
        self.remove(handle)
        self._insert(handle, doc)
        bisect.insort(self._order, handle, key=self._order_key)

    def remove(self, handle: int) -> None:
        at = bisect.bisect_left(self._order, self._order_key(handle), key=self._order_key)
        del self._order[at]
        old = self._docs.pop(handle)
        for term, freq in old.terms.items():
            if freq == 1:
                members = self._ones[term]
                members.remove(handle)
                if not members:
                    del self._ones[term]
            else:
                by_freq = self._more[term]
                members = by_freq[freq]
                members.remove(handle)
                if not members:
                    del by_freq[freq]
                    if not by_freq:
                        del self._more[term]
        same_id = self._handles_by_id[old.id]
        if isinstance(same_id, int):
            del self._handles_by_id[old.id]
        else:
            rest = tuple(h for h in same_id if h != handle)
            self._handles_by_id[old.id] = rest[0] if len(rest) == 1 else rest

    def _insert(self, handle: int, doc: RankDocument) -> None:
        terms = _term_frequencies(doc, self.tokenizer)
        self._docs[handle] = _new_doc(_Doc, (doc.id, terms, collation_key(doc.id)))
        ones = self._ones
        frequencies = terms.values()
        # The common case (f == 1) without a Python-level loop: pick the keys whose value
        # is 1 and add the handle to each of their sets, all inside C iterators.
        any(map(list.append, map(ones.__getitem__, compress(terms, map(_ONE.__eq__, frequencies))),
                repeat(handle)))  # fmt: skip
        more = self._more
        for term, freq in compress(terms.items(), map(_ONE.__ne__, frequencies)):
            by_freq = more[term]
            if freq in by_freq:
                by_freq[freq].append(handle)
            else:
                by_freq[freq] = [handle]
        same_id = self._handles_by_id.get(doc.id)
        if same_id is None:
            self._handles_by_id[doc.id] = handle
        elif isinstance(same_id, int):
            self._handles_by_id[doc.id] = (same_id, handle)
        else:
            self._handles_by_id[doc.id] = (*same_id, handle)

    def _groups(self, term: str) -> list[Group]:
        """The term's postings grouped by frequency, largest frequency first."""
        groups: list[Group] = list(self._more.get(term, {}).items())
        ones = self._ones.get(term)
        if ones:
            groups.append((1, ones))
        groups.sort(key=lambda group: -group[0])
        return groups

    def _first_in_order(
        self, term: str, freq: float, members: list[int], skip: set[int]
    ) -> Iterator[int]:
        """The group's members not in `skip`, in collation order, lazily."""
        if len(members) * _SCAN_RATIO < len(self._order):
            for handle in sorted(members, key=self._order_key):
                if handle not in skip:
                    yield handle
            return
        docs = self._docs
        for handle in self._order:  # a big group: its first members come early
            if docs[handle].terms.get(term) == freq and handle not in skip:
                yield handle

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
        groups: list[list[Group]] = []
        df: dict[str, int] = {}
        for term in dict.fromkeys(tokens):
            term_groups = self._groups(term)
            count = sum(len(members) for _, members in term_groups)
            if excluded:
                count -= sum(1 for h in excluded if term in self._docs[h].terms)
            if count > 0:
                effective.append(term)
                groups.append(term_groups)
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
            result = self._rank_top(base, groups, excluded, total)
            if result is not None:
                return result
        return self._rank_all(base, groups, excluded, total, full_ranking)

    def _exact(self, handle: int, effective: Sequence[str], idf: Sequence[float]) -> float:
        tf = self._docs[handle].terms
        raw = 0.0
        for term, w in zip(effective, idf, strict=True):
            f = tf.get(term)
            if f and f > 0:
                raw += w * (f / (f + 1))
        return raw

    def _scored(self, handle: int, raw: float, base: RankResult, total: float) -> ScoredDocument:
        doc = self._docs[handle]
        coverage = 0.0
        matched: list[str] = []
        for term, w in zip(base.effective_terms, base.idf, strict=True):
            f = doc.terms.get(term)
            if f and f > 0:
                coverage += w
                matched.append(term)
        return ScoredDocument(doc.id, raw, coverage / total, tuple(matched), handle)

    def _rank_top(
        self, base: RankResult, groups: list[list[Group]], excluded: set[int], total: float
    ) -> RankResult | None:
        """The top-k walk; None when the margin guard needs every score (rare)."""
        options = base.options
        effective, idf = base.effective_terms, base.idf
        wanted = max(1, int(options.top_k))  # the top document is needed for the guards
        docs = self._docs
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
        bound = [group[0][0] for group in per_term]  # largest unvisited gain per term
        best: list[tuple[float, str, int]] = []  # (-raw, key, handle), best first
        seen: set[int] = set()

        def offer(handle: int, raw: float) -> bool:
            entry = (-raw, docs[handle].key, handle)
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
                candidates = self._first_in_order(effective[i], f, members, seen | excluded)
                for taken, handle in enumerate(candidates, 1):
                    seen.add(handle)
                    if not offer(handle, 0.0 + gain) or taken >= wanted:
                        break
                continue
            for handle in members:
                if handle in seen or handle in excluded:
                    continue
                seen.add(handle)
                offer(handle, self._exact(handle, effective, idf))

        top_raw = -best[0][0]
        scored = [self._scored(h, -neg, base, total) for neg, _, h in best]
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
        return _with(
            base, matches=tuple(scored[: max(keep, 1)]), ranked=ranked, match_count=None
        )

    def _rank_all(
        self,
        base: RankResult,
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
        docs = self._docs
        order = sorted(raw, key=lambda h: (-raw[h], docs[h].key, h))
        keep = js_slice_count(options.top_k, len(order))
        shown = order if full_ranking else order[: max(keep, 1)]
        matches = tuple(self._scored(h, raw[h], base, total) for h in shown)
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
