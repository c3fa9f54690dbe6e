"""A batch of documents made ready for a search index to take in: their ids and term
frequencies, counted field by field. A batch's texts are normalized in a few C calls over
the joined text, words are counted by C iterators, and a weight counts an occurrence that
many times (the reference adds the weight per occurrence: with integral weights the sums
are the same); documents whose weights are not all small integers are counted one by one
by `term_frequencies` itself."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import compress, repeat
from operator import itemgetter, mul

from axmem_gui.core.ax.documents import DocumentColumns
from axmem_gui.core.ax.ranking import RankDocument, RankField, term_frequencies
from axmem_gui.core.ax.tokenize import Tokenizer, count_words_many

#: Weights counted by repeating the C counting helper (integral: sums exact in any order).
_COUNTABLE = frozenset({1, 2, 3, 4})

#: A batch of documents ready to index: ids, term frequencies (words for which
#: `is_never_a_term` holds may be left in: the index leaves them out),
#: and whether some frequencies came from `term_frequencies` itself (then they are not
#: necessarily counts).
Batch = tuple[list[str], list[dict[str, float]], bool]


def rows_batch(docs: list[RankDocument], tokenizer: Tokenizer) -> Batch:
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


def columns_batch(docs: DocumentColumns, start: int, stop: int, tokenizer: Tokenizer) -> Batch:
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
