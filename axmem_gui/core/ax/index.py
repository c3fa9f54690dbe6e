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

Layout, for memory and for the cycle collector: per document the index keeps one `str`
(its terms and their frequencies, one character each: see `_DocCodes`), its id and the
collation key of its id, in dicts by handle holding only atoms (which the collector
untracks); postings and the collation order are arrays of C ints. The only tracked
objects are one array per (term, frequency) group, not per document (about 30,000 at
10,000 skills and 100,000 memories, a few ms of a full collection), and the build makes
no container that outlives the text it is made for, so the collector, left on, finds
almost nothing to do while it runs.

Building (`extend`, `extend_columns`) works on batches of a few thousand documents, field
by field: a batch's ASCII texts are normalized and its ids' collation keys made in a few
C calls over the joined text, words are counted by C iterators, and words that can never
be search terms (numbers, one ASCII character) are recognized once per distinct word
(they get the empty code) instead of once per text. Tests check that this gives exactly
what `add` gives.
"""

from __future__ import annotations

import bisect
import math
from array import array
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from functools import partial
from itertools import compress, islice, repeat
from operator import add, eq, itemgetter, mul, not_, sub
from typing import Any, NamedTuple, TypeAlias

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
_append = array.append
#: Codes are single characters: at most this many distinct terms (or frequencies) get
#: one; the others are kept per document in a plain dict (see `_DocCodes`).
_CODE_LIMIT = 0x110000

Postings: TypeAlias = "array[int]"  # (array is subscriptable at run time from 3.12 on)
Group: TypeAlias = "tuple[float, Postings]"
#: A batch of documents ready to index: ids, term frequencies (words for which
#: `is_never_a_term` holds may be left in: the index leaves them out),
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


def _columns_batch(docs: DocumentColumns, start: int, stop: int, tokenizer: Tokenizer) -> _Batch:
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
        # lazily, one text at a time: no word list outlives its counting
        words: Iterator[Iterable[str]] = (
            tokenizer.iter_identifier_many(texts)
            if identifier
            else tokenizer.iter_prose_many(texts)
        )
        if weight != 1:
            words = map(mul, map(list, words), repeat(int(weight)))
        count_words_many(tfs, words)
    return tfs


class _Full(Exception):
    """No character is left for a new code."""


class _Codes(dict[Hashable, str]):
    """Value -> a one-character code, given in order of first use; `of_code[ord(code)]`
    is the value back. Equal values share a code (1 and 1.0: the first one seen is kept;
    every use of a frequency is arithmetic or ==, where they are the same). Values for
    which `skip` holds get the empty code (and use up none)."""

    def __init__(self, skip: Callable[[Any], bool] | None = None) -> None:
        super().__init__()
        self.of_code: list[Any] = []
        self._skip = skip

    def __missing__(self, value: Hashable) -> str:
        if self._skip is not None and self._skip(value):
            self[value] = ""
            return ""
        count = len(self.of_code)
        if count >= _CODE_LIMIT:
            raise _Full
        code = self[value] = chr(count)
        self.of_code.append(value)
        return code


class _DocCodes:
    """Term frequencies of many documents, one `str` per document.

    A document with n terms, m of them with a frequency other than 1, is coded as
    `chr(m)`, the codes of those m terms, the codes of the other n - m terms, then the
    codes of the m frequencies (in the order of their terms). Finding a term is one
    `str.find` of its code; a `str` is neither a container the cycle collector tracks
    nor much bigger than its characters (a dict of the same terms takes four to eight
    times the memory). Words that can never be a search term (`is_never_a_term`) are
    left out. Once more distinct terms (or frequencies) have been seen than there are
    characters, a document's terms without a code, or whose frequency has none, go to a
    dict of its own in `wide` (a catalog with over a million distinct words); while any
    document has one, lookups check `wide` too."""

    def __init__(self) -> None:
        self.terms = _Codes(is_never_a_term)
        self.freqs = _Codes()
        self.wide: dict[int, dict[str, float]] = {}

    def encode_ones(self, handle: int, tf: Mapping[str, float]) -> str:
        """The code of `tf` whose frequencies are all 1 (`SearchIndex._post` codes the
        others as it posts them)."""
        try:
            return "\0" + "".join(map(self.terms.__getitem__, tf))
        except _Full:
            pass
        codes: list[str] = []
        for term, freq in tf.items():
            try:
                codes.append(self.terms[term])
            except _Full:
                self.wide.setdefault(handle, {})[term] = freq
        return "\0" + "".join(codes)

    def decode(self, handle: int, code: str) -> dict[str, float]:
        more = ord(code[0])
        end = len(code) - more
        words = self.terms.of_code.__getitem__
        tf: dict[str, float] = dict(
            zip(
                map(words, map(ord, code[1 : 1 + more])),
                map(self.freqs.of_code.__getitem__, map(ord, code[end:])),
                strict=True,
            )
        )
        tf.update(zip(map(words, map(ord, code[1 + more : end])), repeat(1)))
        wide = self.wide.get(handle)
        if wide:
            tf.update(wide)
        return tf

    def freq(self, handle: int, code: str, term: str, term_code: str | None) -> float | None:
        """The frequency of `term` (whose code is `term_code`) in the document."""
        if term_code:
            more = ord(code[0])
            end = len(code) - more
            at = code.find(term_code, 1, end)
            if at > 0:
                return 1 if at > more else self.freqs.of_code[ord(code[at + end - 1])]
        # a term without a code, or one whose frequency in this document has none
        wide = self.wide.get(handle)
        return wide.get(term) if wide else None


def _recoded(codes: list[str], term_codes: list[int], freq_codes: list[int]) -> list[str]:
    """Document codes (count, term codes, frequency codes: see `_DocCodes`) with their
    term and frequency codes replaced by `term_codes[code]` and `freq_codes[code]`."""
    ends = list(map(sub, map(len, codes), map(ord, map(itemgetter(0), codes))))
    bodies = map(str.__getitem__, codes, map(slice, repeat(1), ends))
    tails = map(str.__getitem__, codes, map(slice, ends, repeat(None)))
    counts = map(itemgetter(0), codes)
    return list(
        map(
            add,
            map(add, counts, map(str.translate, bodies, repeat(term_codes))),
            map(str.translate, tails, repeat(freq_codes)),
        )
    )


class IndexPart(NamedTuple):
    """The documents of an index built to continue another (`SearchIndex.part`): plain
    lists, dicts and arrays, so that another process can build it and send it back."""

    first: int  # handle of the first document
    ids: list[str]
    keys: list[bytes]  # collation keys of the ids
    codes: list[str]  # per document, as `_DocCodes` codes it, in the part's own codes
    terms: list[str]  # the part's term of each code
    freqs: list[float]  # the part's frequency of each code
    ones: dict[str, Postings]  # as `SearchIndex._ones`
    more: dict[str, dict[float, Postings]]  # as `SearchIndex._more`


class SearchIndex:
    """Inverted index over one catalog's rankable documents (skills or memories)."""

    def __init__(
        self, tokenizer: Tokenizer, docs: Iterable[RankDocument] = (), *, first: int = 0
    ) -> None:
        """`first`: the handle of the first document added (an index built to be a `part`
        of another starts where that one will have stopped)."""
        self.tokenizer = tokenizer
        # Per handle: coded term frequencies, id and collation key of the id. Dicts of
        # atoms rather than one record per document (or lists): the cycle collector
        # untracks such dicts, so it never walks their entries.
        self._codes = _DocCodes()
        self._docs: dict[int, str] = {}
        self._ids: dict[int, str] = {}
        self._keys: dict[int, bytes] = {}
        # Postings are arrays of handles: appending is far cheaper than growing big hash
        # sets ("is document h in group (term, f)" is answered by h's own term
        # frequencies), and unlike lists they hold no objects, so the cycle collector
        # never walks their millions of entries.
        self._ones: defaultdict[str, Postings] = defaultdict(_new_postings)  # f == 1
        self._more: defaultdict[str, dict[float, Postings]] = defaultdict(dict)  # f != 1
        self._handles_by_id: dict[str, int | tuple[int, ...]] = {}
        self._order: Postings = _new_postings()  # handles in (collation key, handle) order
        self._first = self._next = first
        self.extend(docs)

    def __len__(self) -> int:
        return len(self._docs)

    def handles(self) -> list[int]:
        """Handles in document order."""
        return sorted(self._docs)

    def _code(self, handle: int) -> str:
        return self._docs[handle]

    def terms_of(self, handle: int) -> Mapping[str, float]:
        """The indexed term frequencies of the document at `handle` (a new dict)."""
        return self._codes.decode(handle, self._code(handle))

    # ------------------------------------------------------------ reading (lint)
    # Copies, so that a reader may keep them after the index changes again; none of these
    # adds anything to the index (a lent index is read from another thread).

    def postings(self, term: str) -> list[tuple[float, Postings]]:
        """The handles of the documents holding `term`, grouped by its frequency there:
        (frequency, handles) pairs, in no particular order, handles in no particular
        order (copies)."""
        groups = [(freq, members[:]) for freq, members in self._more.get(term, {}).items()]
        ones = self._ones.get(term)
        if ones:
            groups.append((1, ones[:]))
        return groups

    def collation_order(self) -> Postings:
        """Every handle, by the collation key of its id, then by handle (a copy)."""
        return self._order[:]

    def ids_of(self, handles: Iterable[int]) -> list[str]:
        return list(map(self._ids.__getitem__, handles))

    def collation_keys_of(self, handles: Iterable[int]) -> list[bytes]:
        return list(map(self._keys.__getitem__, handles))

    def only_terms_in(self, handles: Sequence[int], allowed: AbstractSet[str]) -> list[bool]:
        """For each document, whether every term it indexes is in `allowed` (True for a
        document with no terms)."""
        codes = self._codes
        # `get`: `_Codes[term]` would give the term a code
        allowed_codes = "".join(c for c in map(codes.terms.get, allowed) if c)
        out: list[bool] = []
        for start in range(0, len(handles), _CHUNK):
            code = list(map(self._docs.__getitem__, handles[start : start + _CHUNK]))
            # the term codes lie between the count and the frequency codes: stripping
            # the allowed ones leaves nothing when all of them are allowed
            ends = map(sub, map(len, code), map(ord, map(itemgetter(0), code)))
            body = map(str.__getitem__, code, map(slice, repeat(1), ends))
            out += map(not_, map(str.strip, body, repeat(allowed_codes)))
        wide = codes.wide
        if wide:  # terms without a code are kept apart
            for at, handle in enumerate(handles):
                if out[at] and handle in wide:
                    out[at] = all(term in allowed for term in wide[handle])
        return out

    @property
    def _terms(self) -> dict[int, dict[str, float]]:
        """Every document's term frequencies by handle (made on each use: for tests)."""
        return {h: self._codes.decode(h, code) for h, code in self._docs.items()}

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
        for start in range(0, count, _CHUNK):
            stop = min(start + _CHUNK, count)
            self._add_batch(first + start, *batch(start, stop))
        self._appended(added)
        return added

    def _appended(self, added: list[int]) -> None:
        """Take in the handles `added` after all others (their keys are in `_keys`)."""
        # New handles are larger than all others and come in increasing order, so a
        # stable sort by key alone gives (key, handle) order.
        order = [*self._order, *added]
        order.sort(key=self._keys.__getitem__)
        self._order = _new_postings(order)
        self._next = added[-1] + 1

    # ------------------------------------------------------ building in parts (processes)

    def part(self) -> IndexPart:
        """What this index holds, for `merge` into the index it was built to continue.

        Only for an index that was only extended (its handles run from `first` on, none
        removed) and whose terms all got a one-character code."""
        handles = range(self._first, self._next)
        if len(self._docs) != len(handles) or self._codes.wide:
            raise ValueError("only an index that was only extended, with coded terms, is a part")
        return IndexPart(
            first=self._first,
            ids=self.ids_of(handles),
            keys=self.collation_keys_of(handles),
            codes=list(map(self._docs.__getitem__, handles)),
            terms=list(self._codes.terms.of_code),
            freqs=list(self._codes.freqs.of_code),
            ones=dict(self._ones),
            more=dict(self._more),
        )

    def merge(self, part: IndexPart) -> list[int] | None:
        """Append the documents of `part`, an index built apart (in another process) with
        this index's tokenizer from handle `len`-th on, exactly as `extend` of the same
        documents would have: the same handles, postings, codes and orders. Returns their
        handles; None, with nothing changed, when their terms no longer all fit one
        character each here (then `extend` them instead)."""
        if part.first != self._next:
            raise ValueError(f"a part from handle {part.first} cannot follow handle {self._next}")
        count = len(part.ids)
        if not (len(part.keys) == len(part.codes) == count):
            raise ValueError("a part's ids, keys and codes differ in number")
        terms, freqs = self._codes.terms, self._codes.freqs
        new_terms = sum(1 for term in part.terms if term not in terms)
        new_freqs = sum(1 for freq in part.freqs if freq not in freqs)
        if (
            len(terms.of_code) + new_terms > _CODE_LIMIT
            or len(freqs.of_code) + new_freqs > _CODE_LIMIT
        ):
            return None
        # The part coded its terms (and frequencies) in the order it first met them; so
        # does `extend`, after this index's own: coding the part's in its order gives
        # every term the code `extend` would have given it.
        term_codes = [ord(terms[term]) for term in part.terms]  # (a list: faster than a dict)
        freq_codes = [ord(freqs[freq]) for freq in part.freqs]
        codes: list[str] = []
        for start in range(0, count, _CHUNK):  # C loops, a chunk at a time (GIL)
            codes += _recoded(part.codes[start : start + _CHUNK], term_codes, freq_codes)
        first = self._next
        handles = range(first, first + count)
        for start in range(0, count, _CHUNK):
            stop = min(start + _CHUNK, count)
            some = handles[start:stop]
            self._ids.update(zip(some, part.ids[start:stop], strict=True))
            self._keys.update(zip(some, part.keys[start:stop], strict=True))
            self._docs.update(zip(some, codes[start:stop], strict=True))
        self._add_ids(handles, part.ids)
        ones = self._ones
        for term, members in part.ones.items():
            ones[term].extend(members)
        more = self._more
        for term, groups in part.more.items():
            by_freq = more[term]
            for freq, members in groups.items():
                if freq in by_freq:
                    by_freq[freq].extend(members)
                else:
                    by_freq[freq] = members[:]
        added = list(handles)
        if added:
            self._appended(added)
        return added

    def _add_batch(
        self, first: int, ids: list[str], tfs: list[dict[str, float]], exact: bool
    ) -> None:
        handles = range(first, first + len(ids))
        self._ids.update(zip(handles, ids, strict=True))
        self._keys.update(zip(handles, collation_keys(ids), strict=True))
        self._add_ids(handles, ids)
        ones = self._ones
        known = len(ones)
        if exact:  # a document with other weights: any value may be there
            all_ones = [False] * len(tfs)
        else:  # counts are integers >= 1: they sum up to the size only if all are 1
            all_ones = list(map(eq, map(sum, map(dict.values, tfs)), map(len, tfs)))
        codes: list[str] = []
        code_ones, post = self._codes.encode_ones, self._post
        for handle, tf, only_ones in zip(handles, tfs, all_ones, strict=True):
            if only_ones:
                # `ones[term].append(handle)` for each term, looped in C
                any(map(_append, map(ones.__getitem__, tf), repeat(handle)))
                codes.append(code_ones(handle, tf))
            else:
                codes.append(post(handle, tf))
        self._drop_non_terms(len(ones) - known)
        self._docs.update(zip(handles, codes, strict=True))

    def _drop_non_terms(self, new: int) -> None:
        """Remove the words `is_never_a_term` that documents with every frequency 1 just
        posted (their codes, and `_post`, leave such words out). They never stay, so
        they are among the words the batch added, which are the last `new` ones of the
        postings: checking those is much cheaper than checking every text."""
        junk = [w for w in islice(reversed(self._ones), new) if is_never_a_term(w)]
        for word in junk:
            del self._ones[word]

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
        terms = self.terms_of(handle)  # KeyError for a handle not in the index
        at = bisect.bisect_left(self._order, self._order_key(handle), key=self._order_key)
        del self._order[at]
        del self._docs[handle], self._keys[handle]
        entry_id = self._ids.pop(handle)
        self._codes.wide.pop(handle, None)
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
        """Index `doc` at `handle` (a new one, or one `remove` emptied)."""
        tf = _rows_batch([doc], self.tokenizer)[1][0]
        code = self._post(handle, tf)
        self._docs[handle] = code
        self._ids[handle] = doc.id
        self._keys[handle] = collation_key(doc.id)
        self._add_id(handle, doc.id)

    def _post(self, handle: int, tf: Mapping[str, float]) -> str:
        """Add the document's terms to the postings, except the words that are never a
        search term; returns the document's code (see `_DocCodes`)."""
        ones, more = self._ones, self._more
        # bound methods: `codes[key]` on a dict subclass is a much slower call in CPython
        term_code, freq_code_of = self._codes.terms.__getitem__, self._codes.freqs.__getitem__
        other: list[str] = []  # codes of the terms of frequency != 1
        freqs: list[str] = []  # and of their frequencies
        single: list[str] = []  # codes of the terms of frequency 1
        for term, freq in tf.items():
            try:
                code = term_code(term)
                if not code:
                    continue  # never a search term
                freq_code = "" if freq == 1 else freq_code_of(freq)
            except _Full:
                self._codes.wide.setdefault(handle, {})[term] = freq
                code = ""
            if freq == 1:
                ones[term].append(handle)
                if code:
                    single.append(code)
                continue
            if code:
                other.append(code)
                freqs.append(freq_code)
            by_freq = more[term]
            if freq in by_freq:
                by_freq[freq].append(handle)
            else:
                by_freq[freq] = _new_postings((handle,))
        return chr(len(other)) + "".join(other) + "".join(single) + "".join(freqs)

    def _add_ids(self, handles: Sequence[int], ids: list[str]) -> None:
        by_id = self._handles_by_id
        new_ids = dict(zip(ids, handles, strict=True))
        if len(new_ids) == len(ids) and by_id.keys().isdisjoint(new_ids):
            by_id.update(new_ids)
        else:
            for handle, entry_id in zip(handles, ids, strict=True):
                self._add_id(handle, entry_id)

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
        term_codes: list[str | None] = []  # None: a term without a code (see _DocCodes)
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
