"""The inverted index a `SearchIndex` ranks over (core/ax/index.py): one catalog's
rankable documents, their postings and their order, built once per catalog version and
updated in place when entries are added, changed or removed.

Document order (the last tie-break, for entries with equal score and equal collation key)
is the order of handles: `add` appends, `update` keeps the entry's place.

Layout, for memory and for the cycle collector: per document the index keeps one `str`
(its terms and their frequencies, one character each: see `DocCodes`), its id and the
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
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from functools import partial
from itertools import islice, repeat
from operator import eq, itemgetter, not_, sub
from typing import NamedTuple, TypeAlias

from axmem_gui.core.ax.collation import collation_key, collation_keys
from axmem_gui.core.ax.documents import DocumentColumns
from axmem_gui.core.ax.index_batches import Batch, columns_batch, rows_batch
from axmem_gui.core.ax.index_codes import DocCodes, NoCodeLeft, recoded
from axmem_gui.core.ax.ranking import RankDocument
from axmem_gui.core.ax.tokenize import Tokenizer, is_never_a_term

#: Documents tokenized together when building (big enough to amortize the per-batch
#: calls, small enough that a batch's words stay in the CPU caches).
_CHUNK = 2048
#: Handles are C ints in postings (4 bytes each instead of a pointer to an int object).
_new_postings = partial(array, "i")
_append = array.append

Postings: TypeAlias = "array[int]"  # (array is subscriptable at run time from 3.12 on)


class IndexPart(NamedTuple):
    """The documents of an index built to continue another (`InvertedIndex.part`): plain
    lists, dicts and arrays, so that another process can build it and send it back."""

    first: int  # handle of the first document
    ids: list[str]
    keys: list[bytes]  # collation keys of the ids
    codes: list[str]  # per document, as `DocCodes` codes it, in the part's own codes
    terms: list[str]  # the part's term of each code
    freqs: list[float]  # the part's frequency of each code
    ones: dict[str, Postings]  # as `InvertedIndex._ones`
    more: dict[str, dict[float, Postings]]  # as `InvertedIndex._more`


class InvertedIndex:
    """The documents of one catalog (skills or memories), indexed: building, changing,
    reading. `SearchIndex` ranks over it."""

    def __init__(
        self, tokenizer: Tokenizer, docs: Iterable[RankDocument] = (), *, first: int = 0
    ) -> None:
        """`first`: the handle of the first document added (an index built to be a `part`
        of another starts where that one will have stopped)."""
        self.tokenizer = tokenizer
        # Per handle: coded term frequencies, id and collation key of the id. Dicts of
        # atoms rather than one record per document (or lists): the cycle collector
        # untracks such dicts, so it never walks their entries.
        self._codes = DocCodes()
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
            len(rows), lambda start, stop: rows_batch(rows[start:stop], self.tokenizer)
        )

    def extend_columns(self, docs: DocumentColumns) -> list[int]:
        """`extend(docs.documents())` without making a record per document (faster)."""
        return self._extend(
            len(docs.ids), lambda start, stop: columns_batch(docs, start, stop, self.tokenizer)
        )

    def _extend(self, count: int, batch: Callable[[int, int], Batch]) -> list[int]:
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
        if not self._codes.room_for(part.terms, part.freqs):
            return None
        terms, freqs = self._codes.terms, self._codes.freqs
        # The part coded its terms (and frequencies) in the order it first met them; so
        # does `extend`, after this index's own: coding the part's in its order gives
        # every term the code `extend` would have given it.
        term_codes = [ord(terms[term]) for term in part.terms]  # (a list: faster than a dict)
        freq_codes = [ord(freqs[freq]) for freq in part.freqs]
        codes: list[str] = []
        for start in range(0, count, _CHUNK):  # C loops, a chunk at a time (GIL)
            codes += recoded(part.codes[start : start + _CHUNK], term_codes, freq_codes)
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
        tf = rows_batch([doc], self.tokenizer)[1][0]
        code = self._post(handle, tf)
        self._docs[handle] = code
        self._ids[handle] = doc.id
        self._keys[handle] = collation_key(doc.id)
        self._add_id(handle, doc.id)

    def _post(self, handle: int, tf: Mapping[str, float]) -> str:
        """Add the document's terms to the postings, except the words that are never a
        search term; returns the document's code (see `DocCodes`)."""
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
            except NoCodeLeft:
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
