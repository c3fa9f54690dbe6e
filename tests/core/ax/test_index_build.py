"""Building the index in batches gives exactly what one document at a time gives.

The batch paths (ASCII texts joined and normalized at once, collation keys of many ids at
once, documents taken field by field, numbers and one-character words dropped once for the
whole vocabulary) must not change a single term frequency, key or posting.
"""

from __future__ import annotations

import gc
import string
import sys
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from axmem_gui.core.ax import index_codes, inverted_index
from axmem_gui.core.ax import tokenize as tokenize_module
from axmem_gui.core.ax.collation import collation_key, collation_keys
from axmem_gui.core.ax.documents import (
    DocumentColumns,
    FieldColumn,
    memory_columns,
    memory_document,
    skill_columns,
    skill_document,
)
from axmem_gui.core.ax.index import SearchIndex
from axmem_gui.core.ax.profile import load_profile
from axmem_gui.core.ax.ranking import (
    RankDocument,
    RankField,
    RankOptions,
    Suppression,
    rank_documents,
    term_frequencies,
)
from axmem_gui.core.ax.tokenize import (
    Tokenizer,
    count_words,
    count_words_many,
    is_never_a_term,
)
from axmem_gui.core.catalog import Memory, Skill
from tests.helpers.index_state import assert_same_rankings

PROFILE = load_profile()
TOK = Tokenizer(PROFILE)

# Pieces that hit every branch: punctuation, numbers, stopwords, one-character words,
# U+001C-U+001F (split by Python, not by JavaScript), NUL and DEL (ignorable in collation),
# non-ASCII (NFKD, marks, astral), upper case and camelCase (identifier boundaries).
PIECES = [
    *"abcXYZ019 .,-_:'!\t\n",
    "\x00", "\x01", "\x1c", "\x1d", "\x1f", "\x7f", "\x85", "\u00a0", "é", "ﬁ", "İ",
    "\U0001f680", "the ", "fix ", "2024 ", "v2 ", "x ", "deploy ", "Deploy", "XMLHttp",
    "searchDocs", "mem:", "a-b",
]  # fmt: skip
text = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)
ascii_text = st.lists(st.sampled_from([p for p in PIECES if p.isascii()]), max_size=12).map(
    "".join
)
texts = st.lists(st.one_of(text, ascii_text), max_size=8)


def _terms_only(words: list[str]) -> list[str]:
    return [w for w in words if not is_never_a_term(w)]


@given(st.text(alphabet=string.printable + "\x1c\x85é\U0001f680", max_size=30))
@settings(max_examples=200)
def test_no_search_term_is_ever_one_ascii_char_or_a_number(value: str) -> None:
    assert not [w for w in TOK.prose(value) + TOK.identifier(value) if is_never_a_term(w)]


@given(texts)
@settings(max_examples=200)
def test_batch_tokenizers_equal_one_text_at_a_time(values: list[str]) -> None:
    counts = TOK.prose_counts_many(values)
    assert [{w: n for w, n in c.items() if not is_never_a_term(w)} for c in counts] == [
        TOK.prose_counts(v) for v in values
    ]
    assert [_terms_only(w) for w in TOK.prose_many(values)] == [TOK.prose(v) for v in values]
    assert [_terms_only(w) for w in TOK.identifier_many(values)] == [
        TOK.identifier(v) for v in values
    ]


@given(texts)
@settings(max_examples=200)
def test_many_collation_keys_at_once_equal_one_at_a_time(values: list[str]) -> None:
    assert collation_keys(values) == [collation_key(v) for v in values]


def _state(index: SearchIndex) -> dict[str, object]:
    """Everything the index knows, postings as sets (their order is not part of it)."""
    more = {t: {f: sorted(m) for f, m in g.items()} for t, g in index._more.items()}
    return {
        "terms": index._terms,
        "ids": index._ids,
        "keys": index._keys,
        "ones": {t: sorted(m) for t, m in index._ones.items()},
        "more": more,
        "by_id": index._handles_by_id,
        "order": index._order,
    }


IDS = st.one_of(st.sampled_from(["a", "A", "dup", "dup", "mem:x-1", "é", "a\x00b", "1"]), text)
WEIGHTS = st.sampled_from([1, 1, 2, 3, 1.0, 0.5, 0, 5, 2.5])
fields = st.lists(
    st.builds(RankField, text=text, weight=WEIGHTS, identifier=st.booleans(), label=st.just("f")),
    max_size=4,
)
documents = st.builds(RankDocument, id=IDS, fields=fields.map(tuple))


@given(st.lists(documents, max_size=8), st.lists(documents, max_size=5))
@settings(max_examples=200, deadline=None)
def test_batch_build_equals_one_document_at_a_time(
    first: list[RankDocument], later: list[RankDocument]
) -> None:
    batch = SearchIndex(TOK, first)
    batch.extend(later)
    single = SearchIndex(TOK)
    for doc in first + later:
        single.add(doc)
    assert _state(batch) == _state(single)
    for handle, doc in enumerate(first + later):
        assert batch._terms[handle] == term_frequencies(doc, TOK)  # floats bit for bit


same_layout = st.lists(
    st.builds(
        lambda i, a, b: RankDocument(i, (RankField(a, 1, True, "id"), RankField(b, 2, False))),
        IDS,
        text,
        text,
    ),
    max_size=6,
)


@given(same_layout, st.sampled_from([1, 2, 0.5]))
@settings(max_examples=100, deadline=None)
def test_columns_equal_documents(docs: list[RankDocument], weight: float) -> None:
    columns = DocumentColumns(
        [d.id for d in docs],
        (
            FieldColumn([d.fields[0].text for d in docs], 1, True, "id"),
            FieldColumn([d.fields[1].text for d in docs], weight, False, "text"),
        ),
    )
    rows = [
        RankDocument(d.id, (d.fields[0], RankField(d.fields[1].text, weight, False, "text")))
        for d in docs
    ]
    assert columns.documents() == rows
    by_columns = SearchIndex(TOK)
    by_columns.extend_columns(columns)
    assert _state(by_columns) == _state(SearchIndex(TOK, rows))


memories = st.builds(Memory, id=IDS, content=text)
skills = st.builds(Skill, id=IDS, name=text, description=text, content=text)


@given(st.lists(memories, max_size=6), st.lists(skills, max_size=6))
@settings(max_examples=100, deadline=None)
def test_catalog_columns_index_like_their_documents(
    memory_list: list[Memory], skill_list: list[Skill]
) -> None:
    for columns, docs in (
        (memory_columns(memory_list, PROFILE), [memory_document(m, PROFILE) for m in memory_list]),
        (skill_columns(skill_list, PROFILE), [skill_document(s, PROFILE) for s in skill_list]),
    ):
        index = SearchIndex(TOK)
        index.extend_columns(columns)
        assert _state(index) == _state(SearchIndex(TOK, docs))


def test_batches_across_chunk_boundaries_rank_like_the_plain_ranker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Several chunks (made small here), ids repeated across them, a few documents off the
    fast paths; then incremental changes on top."""
    monkeypatch.setattr(inverted_index, "_CHUNK", 7)
    words = ["alpha", "beta", "gamma", "the", "2024", "x", "Beta", "café", "v2", "a\x1cb"]
    catalog = [
        Memory(
            ["m", "M", "dup", "é-id", "k\x7f"][i % 5] + str(i % 13),
            " ".join(words[(i * j) % len(words)] for j in range(i % 6)),
        )
        for i in range(60)
    ]
    docs = [memory_document(m, PROFILE) for m in catalog]
    index = SearchIndex(TOK)
    index.extend_columns(memory_columns(catalog, PROFILE))
    assert _state(index) == _state(SearchIndex(TOK, docs))
    queries = ["alpha", "beta gamma", "cafe v2", "dup", "m1 alpha", "a\x1cb"]
    excluded = frozenset({"dup2", "m0"})
    for query in queries:
        for opts in (RankOptions.best_effort(3), RankOptions.strict(PROFILE)):
            want = rank_documents(query, [d for d in docs if d.id not in excluded], opts, TOK)
            got = index.rank(query, opts, excluded)
            assert (got.ranked, got.suppression) == (want.ranked, want.suppression)
    index.remove(5)
    index.update(8, memory_document(Memory("new", "alpha alpha beta 7"), PROFILE))
    current = dict(enumerate(docs))
    del current[5]
    current[8] = memory_document(Memory("new", "alpha alpha beta 7"), PROFILE)
    ordered = [current[h] for h in sorted(current)]
    for query in queries:
        want = rank_documents(query, ordered, RankOptions.best_effort(3), TOK)
        assert index.rank(query, RankOptions.best_effort(3)).ranked == want.ranked
    assert Counter(index._ids.values()) == Counter(d.id for d in ordered)


class _WatchedIds(list[str]):
    """Ids that note, each time the index reads a batch of them, whether the cycle
    collector is on."""

    seen: list[bool]

    def __getitem__(self, at: Any) -> Any:
        self.seen.append(gc.isenabled())
        return super().__getitem__(at)


def test_building_leaves_the_cycle_collector_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The collector is process-wide: a build on a worker thread must not turn it off for
    the GUI and every other thread (the index makes no long-lived containers instead)."""
    monkeypatch.setattr(inverted_index, "_CHUNK", 3)
    catalog = [Memory(f"m{i}", f"alpha beta {i} gamma{i % 4}") for i in range(10)]
    columns = memory_columns(catalog, PROFILE)
    ids = _WatchedIds(columns.ids)
    ids.seen = []
    assert gc.isenabled()
    index = SearchIndex(TOK)
    index.extend_columns(columns._replace(ids=ids))
    assert ids.seen and all(ids.seen)
    assert _state(index) == _state(SearchIndex(TOK, [memory_document(m, PROFILE) for m in catalog]))


@given(st.lists(documents, max_size=8), st.lists(documents, max_size=4), text)
@settings(max_examples=300, deadline=None)
def test_terms_beyond_the_last_code_rank_like_the_others(
    first: list[RankDocument], later: list[RankDocument], query: str
) -> None:
    """Past the last one-character code (a catalog of over a million distinct words),
    terms are kept in a dict per document: same postings, same rankings."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(index_codes, "_CODE_LIMIT", 3)
        small = SearchIndex(TOK, first)
        for doc in later:
            small.add(doc)
        if len(small) > 1:
            small.update(0, later[0] if later else first[-1])
            small.remove(len(small._docs) - 1)
    full = SearchIndex(TOK, first)
    for doc in later:
        full.add(doc)
    if len(full) > 1:
        full.update(0, later[0] if later else first[-1])
        full.remove(len(full._docs) - 1)
    assert _state(small) == _state(full)
    assert_same_rankings(small, full, query, PROFILE)


def test_a_term_only_in_weight_zero_fields_counts_for_df_but_never_scores() -> None:
    """The walk used to offer such a document with raw 0 (ZeroDivisionError)."""
    docs = [
        RankDocument("a", (RankField("zebra", 0, False, "f"),)),
        RankDocument("b", (RankField("zebra okapi", 1, False, "f"),)),
    ]
    index = SearchIndex(TOK, docs)
    for query in ("zebra", "okapi zebra"):
        for opts in (RankOptions.best_effort(2), RankOptions.strict(PROFILE)):
            for full in (False, True):
                want = rank_documents(query, docs, opts, TOK)
                got = index.rank(query, opts, full_ranking=full)
                assert (got.ranked, got.suppression, got.idf) == (
                    want.ranked,
                    want.suppression,
                    want.idf,
                )
    alone = SearchIndex(TOK, docs[:1])
    assert alone.rank("zebra", RankOptions.best_effort(2)).suppression is Suppression.NO_MATCH


def test_words_are_counted_in_short_c_calls() -> None:
    """`count_words_many` counts at most `_COUNT_RUN` texts per C call: CPython lets no
    other thread run during one, and a build batch's 2,048 texts in one call kept the GUI
    thread waiting up to 50 ms. The counts are those of one `count_words` per text."""
    texts = [[f"w{(i * 7 + k) % 13}" for k in range(i % 9)] for i in range(1000)]
    taken_in_call: list[int] = []
    inside = [False]

    def words() -> Any:
        for text in texts:
            if inside[0]:
                taken_in_call[-1] += 1
            yield text

    def profile(frame: Any, event: str, arg: Any) -> None:
        if arg is any and event == "c_call":
            inside[0] = True
            taken_in_call.append(0)
        elif arg is any and event in ("c_return", "c_exception"):
            inside[0] = False

    counts: list[dict[str, Any]] = [{"w1": 5} for _ in texts]
    sys.setprofile(profile)
    try:
        count_words_many(counts, words())
    finally:
        sys.setprofile(None)
    wanted: list[dict[str, Any]] = [{"w1": 5} for _ in texts]
    for tf, text in zip(wanted, texts, strict=True):
        count_words(tf, text)
    assert counts == wanted
    assert sum(taken_in_call) == len(texts)
    assert max(taken_in_call) <= tokenize_module._COUNT_RUN < len(texts)
    # fewer word lists than dicts, and dicts given as any iterable
    short: list[dict[str, int]] = [{} for _ in range(300)]
    count_words_many(iter(short), [["a", "b", "a"]] * 200)
    assert short == [{"a": 2, "b": 1}] * 200 + [{}] * 100


def test_many_texts_are_tokenized_and_keyed_in_short_c_calls() -> None:
    """`prose_many`, `identifier_many` and `collation_keys` over more texts than one run
    give what one text at a time gives (they work a run of texts per C call)."""
    tokenizer = Tokenizer(PROFILE)
    texts = [f"Deploy {i} the canaryRelease of vault-{i % 7} ß" * (1 + i % 3) for i in range(9000)]
    texts[5] = "\ud800 lone"
    assert tokenizer.prose_many(texts) == [tokenizer.prose_many([t])[0] for t in texts]
    assert tokenizer.identifier_many(texts) == [tokenizer.identifier_many([t])[0] for t in texts]
    assert collation_keys(texts) == [collation_key(t) for t in texts]
