"""The top few results of many searches over one catalog, exactly as `rankDocuments`
returns them, for lint (which searches every entry's id and every skill's name).

`SearchIndex.rank` answers one search well, but lint asks tens of thousands of them over
the same documents, and most of its time went into scoring, one Python call each, the
many documents of a frequency group that tie with each other. Here the postings of the
terms lint searches for are gathered once, grouped by term frequency in the ranking's
tie-break order (`localeCompare` of the id, then document order), and shared by every
search that uses the term. A search walks the items (term, frequency) from the largest
gain down, as the index does, keeping the k best (score, place in order) seen so far:

- the walk stops once the k-th best score beats what a document of unvisited items only
  could get (the sum of each term's largest unvisited gain);
- in an item, `most` is the best score an unseen member can have: the item's gain plus
  each other term's largest unvisited gain, added in query order as the ranker adds
  (rounded addition is monotone, so no member scores more);
- members holding no other query term score exactly the item's gain: only the first k
  unseen of them (in tie-break order) can count;
- the others (found by intersecting with the other terms' documents, or all members when
  another term is in most documents) are scored exactly, with the ranker's float
  operations in its order, in tie-break order until the k-th best beats `(most, place)`.

A member left unscored is provably out of the top k at that moment, and the k-th best
only improves, so it stays out; every other document is scored or bounded by the stop
test. Tests compare `top` with `SearchIndex.rank` on random catalogs (ties, stopwords,
CJK, emoji, case-colliding ids).
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Iterable, Mapping, Sequence
from itertools import compress, filterfalse, repeat
from operator import eq, itemgetter
from typing import NamedTuple

from axmem_gui.core.ax.collation import collation_keys
from axmem_gui.core.ax.fdlibm import js_log

#: (gain, frequency, members in tie-break order) of one term.
_Group = tuple[float, float, list[int]]


class Hit(NamedTuple):
    """One result of a search: the entry's id and its raw score."""

    id: str
    raw: float


class TopRanker:
    """Exact top-k searches over a fixed set of documents, for the given query terms.

    `ids[i]` and `terms[i]` are document i's id and indexed term frequencies (as
    `SearchIndex.terms_of` gives them), in document order. Only `query_terms` can be
    searched for (others count as absent from every document: pass every term a query
    may have)."""

    def __init__(
        self,
        ids: Sequence[str],
        terms: Sequence[Mapping[str, float]],
        query_terms: Iterable[str],
    ) -> None:
        count = len(ids)
        keys = collation_keys(ids)
        # Tie-break order: localeCompare of the id, then document order (a stable sort).
        order = sorted(range(count), key=keys.__getitem__)
        self._ids = [ids[i] for i in order]
        self._terms = [terms[i] for i in order]
        self._count = count
        wanted = frozenset(query_terms)
        # Most frequencies are 1: those postings are grouped as they are gathered.
        ones: dict[str, list[int]] = {t: [] for t in wanted}
        more: dict[str, list[int]] = {}
        for rank, tf in enumerate(self._terms):
            for term in wanted.intersection(tf):
                if tf[term] == 1:
                    ones[term].append(rank)
                elif term in more:
                    more[term].append(rank)
                else:
                    more[term] = [rank]
        self._ones = ones
        self._more = more
        self._df = {t: len(ones[t]) + len(more.get(t, ())) for t in wanted}
        self._items: dict[str, tuple[float, list[_Group]]] = {}
        self._sets: dict[str, frozenset[int]] = {}

    def _members(self, term: str) -> frozenset[int]:
        """The documents holding `term` (made when a search first needs them)."""
        found = self._sets.get(term)
        if found is None:
            found = frozenset(self._ones[term]).union(self._more.get(term, ()))
            self._sets[term] = found
        return found

    def _term_items(self, term: str) -> tuple[float, list[_Group]]:
        """The term's idf and its (gain, frequency, members) groups, largest gain
        first, members in tie-break order (the same for every search)."""
        found = self._items.get(term)
        if found is not None:
            return found
        idf = js_log(1 + self._count / self._df[term])
        groups: list[tuple[float, list[int]]] = []
        members = self._more.get(term, [])
        if members:
            freqs = list(map(itemgetter(term), map(self._terms.__getitem__, members)))
            groups = [
                (f, list(compress(members, map(eq, freqs, repeat(f)))))
                for f in sorted(set(freqs), reverse=True)
            ]
        if self._ones[term]:
            groups.append((1, self._ones[term]))
        groups.sort(key=lambda group: -group[0])
        found = (idf, [(idf * (f / (f + 1)), f, m) for f, m in groups])
        self._items[term] = found
        return found

    def top(self, tokens: Sequence[str], k: int, ties: bool = False) -> tuple[Hit, ...]:
        """What `rankDocuments(query, docs, best-effort options with topK k)` returns for a
        query of prose `tokens`: at most k hits, best first. With `ties`: only the hits
        that score as much as the first (the walk also drops every document that cannot
        reach the best score so far: far shorter when the first stands alone)."""
        count = self._count
        if k < 1 or count < 1:
            return ()
        df = self._df
        effective = [t for t in dict.fromkeys(tokens) if df.get(t)]
        if not effective:
            return ()
        idf: list[float] = []
        per_term: list[list[_Group]] = []
        for term in effective:
            w, groups = self._term_items(term)
            idf.append(w)
            per_term.append(groups)
        items = sorted(
            ((group[0], i, group) for i, groups in enumerate(per_term) for group in groups),
            key=lambda item: -item[0],
        )
        common = [df[t] * 2 > count for t in effective]  # in most documents
        commons = sum(common)
        next_item = [0] * len(per_term)
        bound = [groups[0][0] for groups in per_term]  # largest unvisited gain per term
        best: list[tuple[float, int]] = []  # (-raw, rank), best first, at most k
        cut: tuple[float, int] | None = None  # what an unseen document must beat
        seen: set[int] = set()
        for gain, i, (_, _, members) in items:
            if cut is not None and -cut[0] > _padded(_sum(bound)):
                break
            next_item[i] += 1
            groups = per_term[i]
            bound[i] = groups[next_item[i]][0] if next_item[i] < len(groups) else 0.0
            # The most an unseen member can score: this item's gain, and each other
            # term's largest unvisited gain, added as the ranker adds them (in query
            # order; rounded addition is monotone, so this bounds every such score).
            most = 0.0
            others = False  # does another term have unvisited items?
            for j, b in enumerate(bound):
                if j == i:
                    most += gain
                elif b > 0.0:
                    most += b
                    others = True
            if cut is not None and cut < (-most, members[0]):
                continue  # nobody unseen in this item can make the cut
            if not others:
                # Unseen members hold no other query term (its items are all visited):
                # each scores exactly `gain`, and the first k are the best of them.
                unseen = filterfalse(seen.__contains__, members)
                fresh = [r for r, _ in zip(unseen, range(k), strict=False)]
                seen.update(fresh)
                best = heapq.nsmallest(k, [*best, *zip(repeat(-(0.0 + gain)), fresh)])
                cut = _cut(best, k, ties, count)
                continue
            # Members are scored in tie-break order until the k-th best beats the best
            # score any member left could have, at its place in the order. When no
            # other term is in most documents, only members holding another term are
            # scored so: the rest score exactly `gain`, and only the first k of them
            # (in tie-break order) can count.
            if commons - common[i]:
                best = self._scan(members, seen, best, k, most, effective, idf, ties)
                cut = _cut(best, k, ties, count)
                continue
            shared: set[int] = set()
            for j, term in enumerate(effective):
                if j != i:
                    shared.update(self._members(term).intersection(members))
            if shared:
                best = self._scan(sorted(shared), seen, best, k, most, effective, idf, ties)
            alone = filterfalse(shared.__contains__, filterfalse(seen.__contains__, members))
            fresh = [r for r, _ in zip(alone, range(k), strict=False)]
            seen.update(fresh)
            for rank in fresh:
                best = _offer(best, k, (-(0.0 + gain), rank))
            cut = _cut(best, k, ties, count)
        ids = self._ids
        if ties and best:
            best = [entry for entry in best if entry[0] == best[0][0]]
        return tuple(Hit(ids[rank], -negative) for negative, rank in best)

    def _scan(
        self,
        ranks: Sequence[int],
        seen: set[int],
        best: list[tuple[float, int]],
        k: int,
        most: float,
        effective: Sequence[str],
        idf: Sequence[float],
        ties: bool = False,
    ) -> list[tuple[float, int]]:
        """Score the unseen `ranks` (in tie-break order) exactly, as the ranker does,
        until none left can beat the k-th best (none scores over `most`)."""
        terms = self._terms
        count = self._count
        cut = _cut(best, k, ties, count)
        for rank in filterfalse(seen.__contains__, ranks):
            if cut is not None and cut < (-most, rank):
                break
            seen.add(rank)
            tf = terms[rank]
            raw = 0.0
            for term, w in zip(effective, idf, strict=True):
                f = tf.get(term)
                if f and f > 0:
                    raw += w * (f / (f + 1))
            best = _offer(best, k, (-raw, rank))
            cut = _cut(best, k, ties, count)
        return best


def _cut(
    best: list[tuple[float, int]], k: int, ties: bool, count: int
) -> tuple[float, int] | None:
    """What an unseen document must beat to count: the k-th best; with `ties`, also the
    best score so far (at a place after every document: a tie with it still counts)."""
    cut = best[-1] if len(best) >= k else None
    if ties and best:
        first = (best[0][0], count)
        if cut is None or first < cut:
            cut = first
    return cut


def _offer(
    best: list[tuple[float, int]], k: int, entry: tuple[float, int]
) -> list[tuple[float, int]]:
    """`best` (sorted, at most k) with `entry` in its place if it makes the cut."""
    if len(best) < k:
        bisect.insort(best, entry)
    elif entry < best[-1]:
        bisect.insort(best, entry)
        best.pop()
    return best


def _sum(values: Iterable[float]) -> float:
    total = 0.0
    for v in values:
        total += v
    return total


def _padded(bound: float) -> float:
    """A bound summed in another order than the exact scores may round low by an ulp or
    two; pad it so pruning never drops a document that could tie or win."""
    return bound + abs(bound) * 1e-12 + 1e-300
