"""The top few results of many searches over one catalog, exactly as `rankDocuments`
returns them, for lint (which searches every entry's id and every skill's name).

`SearchIndex.rank` answers one search well, but lint asks tens of thousands of them over
the same documents, and most of its time went into scoring, one Python call each, the
many documents of a frequency group that tie with each other. Here the postings of the
terms lint searches for are taken once (from the catalog's `SearchIndex`, or from each
document's term frequencies), grouped by term frequency in the ranking's tie-break order
(`localeCompare` of the id, then document order), and shared by every search that uses
the term. A search walks the items (term, frequency) from the largest gain down, as the
index does, keeping the k best (score, place in order) seen so far:

- the walk stops once the k-th best score beats what a document of unvisited items only
  could get (the sum of each term's largest unvisited gain);
- in an item, `most` is the best score an unseen member can have: the item's gain plus
  each other term's largest unvisited gain, added in query order as the ranker adds
  (rounded addition is monotone, so no member scores more);
- members holding no other query term score exactly the item's gain: only the first k
  unseen of them (in tie-break order) can count;
- the others (found by intersecting with the other terms' documents, or all members when
  another term is in most documents) are scored exactly, with the ranker's float
  operations in its order, in tie-break order, a few at a time (the scores of a batch
  are added up by C iterators), until the k-th best beats `(most, place)`.

A member left unscored is provably out of the top k at that moment, and the k-th best
only improves, so it stays out; every other document is scored or bounded by the stop
test (scoring a few members more than needed changes nothing: their scores are exact).
Tests compare `top` with `SearchIndex.rank` on random catalogs (ties, stopwords, CJK,
emoji, case-colliding ids, indexes patched after they were built).

Postings are turned into tie-break order only when a search first needs them, and big
ones a slice at a time: lint runs on a worker thread, and one C call over 100,000 items
would hold the GIL (and freeze the GUI thread) for tens of milliseconds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import compress, filterfalse, islice, repeat
from operator import add, itemgetter, lt, neg
from typing import NamedTuple

from axmem_gui.core.ax.collation import collation_keys
from axmem_gui.core.ax.fdlibm import js_log
from axmem_gui.core.ax.index import SearchIndex

#: Items converted or looked up per C call (a few milliseconds each at most).
_SLICE = 16_384
#: Members scored together at most (the first batches of a scan are smaller: the walk
#: often stops after a few).
_MAX_BATCH = 256
_FIRST_BATCH = 4


class Hit(NamedTuple):
    """One result of a search: the entry's id and its raw score."""

    id: str
    raw: float


class _Item:
    """One (term, frequency) group: its gain and its members (made on first use)."""

    __slots__ = ("_members", "_set", "_source", "freq", "gain")

    def __init__(self, gain: float, freq: float, source: Sequence[int]) -> None:
        self.gain = gain
        self.freq = freq
        self._members: list[int] | None = None
        self._set: frozenset[int] | None = None
        self._source = source

    def members(self, ranker: TopRanker) -> list[int]:
        """Ranks of the documents, in tie-break order."""
        if self._members is None:
            self._members = ranker._ranks(self._source)
            self._source = ()
        return self._members

    def member_set(self) -> frozenset[int]:
        """The ranks of `members` (made on first use, after `members`)."""
        if self._set is None:
            assert self._members is not None
            self._set = frozenset(self._members)
        return self._set


class _Term(NamedTuple):
    idf: float
    items: list[_Item]  # largest gain first
    #: frequency -> gain (frequencies > 0 only; None, an absent term, has none)
    gains: dict[float | None, float]


class TopRanker:
    """Exact top-k searches over a fixed set of documents, for the given query terms.

    `ids[i]` and `terms[i]` are document i's id and indexed term frequencies (as
    `SearchIndex.terms_of` gives them), in document order. Only `query_terms` can be
    searched for (others count as absent from every document: pass every term a query
    may have). `of_index` makes the same ranker from an index's postings (faster)."""

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
        wanted = frozenset(query_terms)
        groups: dict[str, dict[float, list[int]]] = {t: {} for t in wanted}
        for position, tf in enumerate(terms):
            for term in wanted.intersection(tf):
                by_freq = groups[term]
                freq = tf[term]
                if freq in by_freq:
                    by_freq[freq].append(position)
                else:
                    by_freq[freq] = [position]
        postings: dict[str, list[tuple[float, Sequence[int]]]] = {
            t: list(by_freq.items()) for t, by_freq in groups.items()
        }
        self._setup([ids[p] for p in order], order, count, postings)

    @classmethod
    def of_index(
        cls, index: SearchIndex, handles: Sequence[int], query_terms: Iterable[str]
    ) -> TopRanker:
        """The ranker of the documents of `index`, whose handles in document order are
        `handles` (every document of the index, once). Reads the index only here: the
        ranker keeps copies of what it needs."""
        count = len(handles)
        if count != len(index) or len(set(handles)) != count:
            raise ValueError("the handles must be those of every document of the index")
        ranker = cls.__new__(cls)
        if all(map(lt, handles, islice(handles, 1, None))):
            # handle order is document order: the index's own (key, handle) order is it
            order: Sequence[int] = index.collation_order()
        else:
            keys = index.collation_keys_of(handles)
            order = [handles[p] for p in sorted(range(count), key=keys.__getitem__)]
        postings: dict[str, list[tuple[float, Sequence[int]]]] = {
            t: list(index.postings(t)) for t in frozenset(query_terms)
        }
        size = max(handles) + 1 if count else 0
        ranker._setup(index.ids_of(order), order, size, postings)
        return ranker

    def _setup(
        self,
        ids: list[str],
        order: Sequence[int],
        size: int,
        postings: dict[str, list[tuple[float, Sequence[int]]]],
    ) -> None:
        """`ids`: by rank (place in tie-break order); `order`: the source numbers (list
        positions or index handles, below `size`) by rank; `postings`: per query term,
        (frequency, source numbers) groups."""
        self._count = len(ids)
        self._ids = ids
        rank_of = [-1] * size
        for rank, source in enumerate(order):
            rank_of[source] = rank
        self._rank_of = rank_of
        self._postings = postings
        self._df = {t: sum(len(members) for _, members in groups) for t, groups in postings.items()}
        self._terms: dict[str, _Term] = {}
        self._freqs: dict[str, dict[int, float]] = {}

    def _ranks(self, source: Sequence[int]) -> list[int]:
        """The ranks of the source numbers `source`, in order."""
        rank = self._rank_of.__getitem__
        if len(source) <= _SLICE:
            return sorted(map(rank, source))
        # many: mark them, then read the marks in order (a slice per C call)
        count = self._count
        marks = bytearray(count)
        mark = marks.__setitem__
        for start in range(0, len(source), _SLICE):
            any(map(mark, map(rank, source[start : start + _SLICE]), repeat(1)))
        ranks: list[int] = []
        for start in range(0, count, _SLICE):
            stop = min(start + _SLICE, count)
            ranks += compress(range(start, stop), marks[start:stop])
        return ranks

    def _term(self, term: str) -> _Term:
        """The term's idf and its items (frequencies > 0 only: others score nothing),
        largest gain first (the same for every search)."""
        found = self._terms.get(term)
        if found is not None:
            return found
        idf = js_log(1 + self._count / self._df[term])
        groups = sorted(
            ((f, members) for f, members in self._postings[term] if f > 0),
            key=itemgetter(0),
            reverse=True,
        )
        items = [_Item(idf * (f / (f + 1)), f, members) for f, members in groups]
        gains: dict[float | None, float] = {item.freq: item.gain for item in items}
        found = _Term(idf, items, gains)
        self._terms[term] = found
        return found

    def _freqs_of(self, term: str) -> dict[int, float]:
        """rank -> frequency of `term` (> 0) in that document (made on first use)."""
        found = self._freqs.get(term)
        if found is None:
            found = {}
            rank = self._rank_of.__getitem__
            for f, members in self._postings[term]:
                if f > 0:
                    for start in range(0, len(members), _SLICE):
                        found.update(zip(map(rank, members[start : start + _SLICE]), repeat(f)))
            self._freqs[term] = found
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
        known = self._terms
        terms = [known.get(t) or self._term(t) for t in effective]
        m = len(terms)
        term_items = [term.items for term in terms]
        items = [(item.gain, i, item) for i, its in enumerate(term_items) for item in its]
        if m > 1:
            items.sort(key=itemgetter(0), reverse=True)
        common = [df[t] * 2 > count for t in effective]  # in most documents
        commons = sum(common)
        next_item = [0] * m
        # largest unvisited gain per term
        bound = [its[0].gain if its else 0.0 for its in term_items]
        # per term: rank -> frequency, made when a scan first needs the term
        scoring: list[dict[int, float] | None] = [None] * m
        gains = [term.gains for term in terms]
        best: list[tuple[float, int]] = []  # (-raw, rank), best first, at most k
        cut: tuple[float, int] | None = None  # what an unseen document must beat
        seen: set[int] = set()
        for gain, i, item in items:
            if cut is not None:
                total = sum(bound)
                if -cut[0] > _padded(total):
                    break
            at = next_item[i] = next_item[i] + 1
            its = term_items[i]
            bound[i] = its[at].gain if at < len(its) else 0.0
            # The most an unseen member can score: this item's gain, and each other
            # term's largest unvisited gain, added as the ranker adds them (in query
            # order; rounded addition is monotone, so this bounds every such score).
            if m == 2:  # (one addition: the order does not matter)
                other = bound[1 - i]
                others = other > 0.0  # does another term have unvisited items?
                most = gain + other if others else gain
            else:
                most = 0.0
                others = False
                for j, b in enumerate(bound):
                    if j == i:
                        most += gain
                    elif b > 0.0:
                        most += b
                        others = True
            # Nobody unseen in this item can make the cut? (its members are needed only
            # when the best of them would tie with the cut: then their order decides)
            if (
                cut is not None
                and -most >= cut[0]
                and (-most > cut[0] or cut[1] < item.members(self)[0])
            ):
                continue
            members = item.members(self)
            if not others:
                # Unseen members hold no other query term (its items are all visited):
                # each scores exactly `gain`, and the first k are the best of them.
                fresh = list(islice(filterfalse(seen.__contains__, members), k))
                seen.update(fresh)
                best = sorted([*best, *zip(repeat(-(0.0 + gain)), fresh)])[:k]
                cut = _cut(best, k, ties, count)
                continue
            # what scores a member: its frequency of each other term (this term's is `f`)
            for j, freqs in enumerate(scoring):
                if freqs is None and j != i:
                    scoring[j] = self._freqs_of(effective[j])
            # Members are scored in tie-break order until the k-th best beats the best
            # score any member left could have, at its place in the order. When no
            # other term is in most documents, only members holding another term are
            # scored so: the rest score exactly `gain`, and only the first k of them
            # (in tie-break order) can count.
            scores = _Scores(i, gain, scoring, gains)
            if commons - common[i]:
                best = self._scan(members, seen, best, k, most, scores, ties)
                cut = _cut(best, k, ties, count)
                continue
            shared: set[int] = set()
            for j, freqs in enumerate(scoring):
                if freqs is not None and j != i:
                    if len(freqs) < len(members):  # look up from the smaller side
                        shared.update(item.member_set().intersection(freqs))
                    else:
                        shared.update(filter(freqs.__contains__, members))
            if len(shared) <= _MAX_BATCH:  # score them all at once
                fresh = list(shared.difference(seen))
                seen.update(fresh)
                scored = zip(map(neg, scores.raws(fresh)), fresh, strict=True)
                best = sorted([*best, *scored])[:k]
            else:
                best = self._scan(sorted(shared), seen, best, k, most, scores, ties)
            alone = filterfalse(shared.__contains__, filterfalse(seen.__contains__, members))
            fresh = list(islice(alone, k))
            seen.update(fresh)
            best = sorted([*best, *zip(repeat(-(0.0 + gain)), fresh)])[:k]
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
        scores: _Scores,
        ties: bool = False,
    ) -> list[tuple[float, int]]:
        """Score the unseen `ranks` (in tie-break order) exactly, as the ranker does,
        until none left can beat the k-th best (none scores over `most`)."""
        count = self._count
        cut = _cut(best, k, ties, count)
        unseen = filterfalse(seen.__contains__, ranks)
        size = max(k, _FIRST_BATCH)
        while True:
            batch = list(islice(unseen, size))
            if not batch or (cut is not None and cut < (-most, batch[0])):
                break
            seen.update(batch)
            scored = zip(map(neg, scores.raws(batch)), batch, strict=True)
            best = sorted([*best, *scored])[:k]
            cut = _cut(best, k, ties, count)
            size = min(size * 4, _MAX_BATCH)
        return best


class _Scores(NamedTuple):
    """How a search scores the members of one item (all hold term `term` `freq` times)."""

    term: int
    gain: float  # of the item
    freqs: list[dict[int, float] | None]  # per query term: rank -> frequency
    gains: list[dict[float | None, float]]  # per query term: frequency -> gain

    def raws(self, ranks: list[int]) -> Iterable[float]:
        """The raw scores of `ranks`: 0.0, then + each term's gain in query order, as
        the ranker adds them (an absent term adds 0.0, which leaves a sum of
        non-negative gains as it is), added up by C iterators."""
        raws: Iterable[float] = repeat(0.0)
        for j, (freqs, gains) in enumerate(zip(self.freqs, self.gains, strict=True)):
            if j == self.term:
                raws = map(add, raws, repeat(self.gain))
            elif freqs is not None:
                raws = map(add, raws, map(gains.get, map(freqs.get, ranks), repeat(0.0)))
        return raws


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


def _padded(bound: float) -> float:
    """A bound summed in another order than the exact scores may round low by an ulp or
    two; pad it so pruning never drops a document that could tie or win."""
    return bound + abs(bound) * 1e-12 + 1e-300
