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

Building (`extend`, `extend_columns`) works on batches of a few thousand documents, field
by field: a batch's ASCII texts are normalized and its ids' collation keys made in a few
C calls over the joined text, words are counted by C iterators, and words that can never
be search terms (numbers, one ASCII character) are removed once for the whole vocabulary
instead of once per text. Tests check that this gives exactly what `add` gives.
"""

from __future__ import annotations

import bisect
import gc
import math
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import partial
from itertools import chain, compress
from operator import itemgetter
from typing import Any, TypeAlias

from axmem_gui.core.ax.collation import collation_key, collation_keys
from axmem_gui.core.ax.documents import DocumentColumns
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
    term_frequencies,
)
from axmem_gui.core.ax.tokenize import Tokenizer, count_words_many, is_never_a_term

#: Above this many results per query, walking items is no cheaper than scoring everyone.
_MAX_FAST_TOP_K = 64
#: A group smaller than 1/this of the catalog is sorted directly instead of scanned for
#: in the global collation order.
_SCAN_RATIO = 64
#: Documents tokenized together when building (big enough to amortize the per-batch
#: calls, small enough that a batch's words stay in the CPU caches).
_CHUNK = 2048
#: Weights counted by repeating the C counting helper (integral: sums exact in any order).
_COUNTABLE = frozenset({1, 2, 3, 4})
#: Handles are C ints in postings (4 bytes each instead of a pointer to an int object).
_new_postings = partial(array, "i")

Postings: TypeAlias = "array[int]"  # (array is subscriptable at run time from 3.12 on)
Group: TypeAlias = "tuple[float, Postings]"
#: A batch of documents ready to index: ids, term frequencies (words for which
#: `is_never_a_term` holds may be left in; `SearchIndex._drop_non_terms` drops them once),
#: and whether some frequencies came from `term_frequencies` itself (then they are not
#: necessarily counts).
_Batch = tuple[list[str], list[dict[str, float]], bool]


def _rows_batch(docs: list[RankDocument], tokenizer: Tokenizer) -> _Batch:
    """Documents taken column by column: those with the same number of fields almost
    always share the weight and tokenizer of each field (memories: id and content)."""
    ids = list(map(itemgetter(0), docs))
    fields_of: list[tuple[RankField, ...]] = list(map(itemgetter(1), docs))
    sizes = list(map(len, fields_of))
    distinct = set(sizes)
    if len(distinct) == 1:
        tfs = _count_rows(fields_of, sizes[0], tokenizer)
        if tfs is not None:
            return ids, tfs, False
        return ids, [term_frequencies(doc, tokenizer) for doc in docs], True
    tfs = [{} for _ in docs]
    exact = False
    for size in distinct:
        positions = list(compress(range(len(docs)), map(size.__eq__, sizes)))
        counted = _count_rows([fields_of[i] for i in positions], size, tokenizer)
        if counted is None:
            exact = True
            counted = [term_frequencies(docs[i], tokenizer) for i in positions]
        for i, tf in zip(positions, counted, strict=True):
            tfs[i] = tf
    return ids, tfs, exact


def _count_rows(
    rows: list[tuple[RankField, ...]], size: int, tokenizer: Tokenizer
) -> list[dict[str, float]] | None:
    """`_count_columns` of rows of `size` fields; None unless each column has one weight
    and one tokenizer."""
    columns: list[tuple[list[str], float, bool]] = []
    for j in range(size):
        fields = list(map(itemgetter(j), rows))
        weights = set(map(itemgetter(1), fields))
        kinds = set(map(itemgetter(2), fields))
        if len(weights) != 1 or len(kinds) != 1:
            return None
        columns.append((list(map(itemgetter(0), fields)), weights.pop(), bool(kinds.pop())))
    return _count_columns(columns, len(rows), tokenizer)


def _columns_batch(
    docs: DocumentColumns, start: int, stop: int, tokenizer: Tokenizer
) -> _Batch:
    ids = docs.ids[start:stop]
    columns = [(c.texts[start:stop], c.weight, c.identifier) for c in docs.columns]
    tfs = _count_columns(columns, len(ids), tokenizer)
    if tfs is not None:
        return ids, tfs, False
    rows = docs.documents(start, stop)
    return ids, [term_frequencies(doc, tokenizer) for doc in rows], True


def _count_columns(
    columns: Sequence[tuple[list[str], float, bool]], count: int, tokenizer: Tokenizer
) -> list[dict[str, float]] | None:
    """Term counts of `count` documents given field by field as (texts, weight,
    identifier), or None if a weight is not in _COUNTABLE.

    The first weight-1 prose column is counted directly; the other columns are counted
    into those counts, a weight w adding each occurrence w times (the reference adds the
    weight per occurrence in field order: with integral weights the sums are the same)."""
    if any(weight not in _COUNTABLE for _, weight, _ in columns):
        return None
    main = next((j for j, (_, w, ident) in enumerate(columns) if w == 1 and not ident), None)
    if main is None:
        tfs: list[dict[str, float]] = [{} for _ in range(count)]
    else:
        tfs = tokenizer.prose_counts_many(columns[main][0])
    for j, (texts, weight, identifier) in enumerate(columns):
        if j == main:
            continue
        words = tokenizer.identifier_many(texts) if identifier else tokenizer.prose_many(texts)
        for _ in range(int(weight)):
            count_words_many(tfs, words)
    return tfs


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
        # Per handle: term frequencies, id and collation key of the id. Three dicts rather
        # than one record per document: a dict holding only strings and untracked dicts
        # is itself untracked, so a big index does not slow garbage collections down.
        self._terms: dict[int, dict[str, float]] = {}
        self._ids: dict[int, str] = {}
        self._keys: dict[int, bytes] = {}
        # Postings are arrays of handles: appending is far cheaper than growing big hash
        # sets ("is document h in group (term, f)" is answered by h's own term
        # frequencies), and unlike lists they hold no objects, so the cycle collector
        # never walks their millions of entries.
        self._ones: defaultdict[str, Postings] = defaultdict(_new_postings)  # f == 1
        self._more: defaultdict[str, dict[float, Postings]] = defaultdict(dict)  # f != 1
        self._handles_by_id: dict[str, int | tuple[int, ...]] = {}
        self._order: list[int] = []  # handles in (collation key, handle) order
        self._next = 0
        self.extend(docs)

    def __len__(self) -> int:
        return len(self._terms)

    def handles(self) -> list[int]:
        """Handles in document order."""
        return sorted(self._terms)

    def terms_of(self, handle: int) -> Mapping[str, float]:
        """The indexed term frequencies of the document at `handle` (do not modify)."""
        return self._terms[handle]

    def _order_key(self, handle: int) -> tuple[bytes, int]:
        return (self._keys[handle], handle)

    def extend(self, docs: Iterable[RankDocument]) -> list[int]:
        """Append many documents; returns their handles."""
        rows = list(docs)
        return self._extend(
            len(rows), lambda start, stop: _rows_batch(rows[start:stop], self.tokenizer)
        )

    def extend_columns(self, docs: DocumentColumns) -> list[int]:
        """`extend(docs.documents())` without making a record per document (faster)."""
        return self._extend(
            len(docs.ids), lambda start, stop: _columns_batch(docs, start, stop, self.tokenizer)
        )

    def _extend(self, count: int, batch: Callable[[int, int], _Batch]) -> list[int]:
        first = self._next
        added = list(range(first, first + count))
        if not count:
            return added
        with _gc_paused():
            for start in range(0, count, _CHUNK):
                stop = min(start + _CHUNK, count)
                self._add_batch(first + start, *batch(start, stop))
            self._next = first + count
            self._drop_non_terms()
            # New handles are larger than all others and come in increasing order, so a
            # stable sort by key alone gives (key, handle) order.
            self._order.extend(added)
            self._order.sort(key=self._keys.__getitem__)
        return added

    def _add_batch(
        self, first: int, ids: list[str], tfs: list[dict[str, float]], exact: bool
    ) -> None:
        handles = range(first, first + len(ids))
        self._terms.update(zip(handles, tfs, strict=True))
        self._ids.update(zip(handles, ids, strict=True))
        self._keys.update(zip(handles, collation_keys(ids), strict=True))
        by_id = self._handles_by_id
        new_ids = dict(zip(ids, handles, strict=True))
        if len(new_ids) == len(ids) and by_id.keys().isdisjoint(new_ids):
            by_id.update(new_ids)
        else:
            for handle, entry_id in zip(handles, ids, strict=True):
                self._add_id(handle, entry_id)
        if exact:  # a document with other weights: any value may be there
            for handle, tf in zip(handles, tfs, strict=True):
                self._post(handle, tf)
            return
        ones = self._ones
        for handle, tf in zip(handles, tfs, strict=True):
            # Counts are integers >= 1: they sum up to the size only if all of them are 1.
            if sum(tf.values()) == len(tf):
                for term in tf:
                    ones[term].append(handle)
            else:
                self._post(handle, tf)

    def _drop_non_terms(self) -> None:
        """Remove the words `is_never_a_term` from postings and term frequencies."""
        for postings in (self._ones, self._more):
            single = compress(postings, map((1).__eq__, map(len, postings)))
            junk = [w for w in chain(single, filter(str.isdigit, postings)) if w.isascii()]
            for word in junk:
                if word not in postings:
                    continue  # a one-character digit, listed twice
                group = postings.pop(word)
                members = group if isinstance(group, array) else chain(*group.values())
                for handle in members:
                    del self._terms[handle][word]

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
        terms = self._terms.pop(handle)
        del self._keys[handle]
        entry_id = self._ids.pop(handle)
        for term, freq in terms.items():
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
        same_id = self._handles_by_id[entry_id]
        if isinstance(same_id, int):
            del self._handles_by_id[entry_id]
        else:
            rest = tuple(h for h in same_id if h != handle)
            self._handles_by_id[entry_id] = rest[0] if len(rest) == 1 else rest

    def _insert(self, handle: int, doc: RankDocument) -> None:
        tf = _rows_batch([doc], self.tokenizer)[1][0]
        for word in [w for w in tf if is_never_a_term(w)]:
            del tf[word]
        self._terms[handle] = tf
        self._ids[handle] = doc.id
        self._keys[handle] = collation_key(doc.id)
        self._post(handle, tf)
        self._add_id(handle, doc.id)

    def _post(self, handle: int, tf: dict[str, float]) -> None:
        ones, more = self._ones, self._more
        for term, freq in tf.items():
            if freq == 1:
                ones[term].append(handle)
                continue
            by_freq = more[term]
            if freq in by_freq:
                by_freq[freq].append(handle)
            else:
                by_freq[freq] = _new_postings((handle,))

    def _add_id(self, handle: int, entry_id: str) -> None:
        same_id = self._handles_by_id.get(entry_id)
        if same_id is None:
            self._handles_by_id[entry_id] = handle
        elif isinstance(same_id, int):
            self._handles_by_id[entry_id] = (same_id, handle)
        else:
            self._handles_by_id[entry_id] = (*same_id, handle)

    def _groups(self, term: str) -> list[Group]:
        """The term's postings grouped by frequency, largest frequency first."""
        groups: list[Group] = list(self._more.get(term, {}).items())
        ones = self._ones.get(term)
        if ones:
            groups.append((1, ones))
        groups.sort(key=lambda group: -group[0])
        return groups

    def _first_in_order(
        self, term: str, freq: float, members: Postings, skip: set[int]
    ) -> Iterator[int]:
        """The group's members not in `skip`, in collation order, lazily."""
        if len(members) * _SCAN_RATIO < len(self._order):
            for handle in sorted(members, key=self._order_key):
                if handle not in skip:
                    yield handle
            return
        terms = self._terms
        for handle in self._order:  # a big group: its first members come early
            if terms[handle].get(term) == freq and handle not in skip:
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
        doc_count = len(self._terms) - len(excluded)
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
                count -= sum(1 for h in excluded if term in self._terms[h])
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
        tf = self._terms[handle]
        raw = 0.0
        for term, w in zip(effective, idf, strict=True):
            f = tf.get(term)
            if f and f > 0:
                raw += w * (f / (f + 1))
        return raw

    def _scored(self, handle: int, raw: float, base: RankResult, total: float) -> ScoredDocument:
        tf = self._terms[handle]
        coverage = 0.0
        matched: list[str] = []
        for term, w in zip(base.effective_terms, base.idf, strict=True):
            f = tf.get(term)
            if f and f > 0:
                coverage += w
                matched.append(term)
        return ScoredDocument(self._ids[handle], raw, coverage / total, tuple(matched), handle)

    def _rank_top(
        self, base: RankResult, groups: list[list[Group]], excluded: set[int], total: float
    ) -> RankResult | None:
        """The top-k walk; None when the margin guard needs every score (rare)."""
        options = base.options
        effective, idf = base.effective_terms, base.idf
        wanted = max(1, int(options.top_k))  # the top document is needed for the guards
        keys = self._keys
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
        keys = self._keys
        order = sorted(raw, key=lambda h: (-raw[h], keys[h], h))
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
