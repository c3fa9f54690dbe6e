"""An index built in parts (the tail in another process) and merged is the index `extend`
builds: the same handles, codes, postings, orders, and so the same rankings."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from axmem_gui.core.ax import index_codes
from axmem_gui.core.ax.documents import memory_columns, skill_columns
from axmem_gui.core.ax.index import SearchIndex
from axmem_gui.core.ax.profile import load_profile
from axmem_gui.core.ax.ranking import RankDocument, RankField
from axmem_gui.core.ax.tokenize import Tokenizer
from axmem_gui.core.catalog import Memory, Skill
from tests.helpers.index_state import assert_same_rankings, exact_state

PROFILE = load_profile()
TOK = Tokenizer(PROFILE)

PIECES = [
    *"abcXYZ019 .,-_:'!\t\n",
    "\x00", "\x1c", "\x7f", "\u00a0", "é", "ﬁ", "İ", "\U0001f680", "\ud800", "the ",
    "fix ", "2024 ", "v2 ", "x ", "deploy ", "Deploy", "XMLHttp", "searchDocs", "mem:",
    "a-b", "deploy deploy ", "fix fix fix ",
]  # fmt: skip
text = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)
IDS = st.one_of(st.sampled_from(["a", "A", "dup", "dup", "mem:x-1", "é", "a\x00b"]), text)
WEIGHTS = st.sampled_from([1, 1, 2, 3, 0.5, 0, 2.5])
fields = st.lists(
    st.builds(RankField, text=text, weight=WEIGHTS, identifier=st.booleans(), label=st.just("f")),
    max_size=4,
)
documents = st.builds(RankDocument, id=IDS, fields=fields.map(tuple))
memories = st.builds(Memory, id=IDS, content=text)
skills = st.builds(Skill, id=IDS, name=text, description=text, content=text)


def _meaning(index: SearchIndex) -> dict[str, object]:
    """What the index says about its documents. Codes and dict orders depend on how the
    documents were batched, when fields are laid out differently from one document to
    the next (a batch's term frequencies come field by field or document by document):
    an index built in one go by chunks differs from one built by `add` the same way."""
    more = {t: {f: list(m) for f, m in g.items()} for t, g in index._more.items()}
    return {
        "terms": index._terms,
        "ids": list(index._ids.items()),
        "keys": list(index._keys.items()),
        "ones": {t: list(m) for t, m in index._ones.items()},
        "more": more,
        "by_id": index._handles_by_id,
        "order": list(index._order),
        "next": index._next,
    }


def _in_parts(head: list[RankDocument], tail: list[RankDocument]) -> SearchIndex:
    index = SearchIndex(TOK, head)
    away = SearchIndex(TOK, tail, first=len(head))
    part = pickle.loads(pickle.dumps(away.part(), protocol=pickle.HIGHEST_PROTOCOL))
    assert index.merge(part) == list(range(len(head), len(head) + len(tail)))
    return index


@given(st.lists(documents, max_size=8), st.lists(documents, max_size=8))
@settings(max_examples=300, deadline=None)
def test_a_merged_part_is_the_index_extend_builds(
    head: list[RankDocument], tail: list[RankDocument]
) -> None:
    assert _meaning(_in_parts(head, tail)) == _meaning(SearchIndex(TOK, head + tail))


@given(
    st.lists(documents, max_size=6),
    st.lists(documents, min_size=1, max_size=6),
    st.lists(documents, max_size=3),
    text,
)
@settings(max_examples=200, deadline=None)
def test_a_merged_index_ranks_and_changes_like_the_one_extend_builds(
    head: list[RankDocument], tail: list[RankDocument], more: list[RankDocument], query: str
) -> None:
    merged, built = _in_parts(head, tail), SearchIndex(TOK, head + tail)
    for index in (merged, built):
        for doc in more:
            index.add(doc)
        index.update(len(head), more[0] if more else head[0] if head else tail[-1])
        index.remove(0)
    assert _meaning(merged) == _meaning(built)
    assert_same_rankings(merged, built, query, PROFILE)


@given(st.lists(memories, max_size=10), st.lists(skills, max_size=10), st.integers(0, 10))
@settings(max_examples=100, deadline=None)
def test_catalog_columns_split_anywhere_merge_into_the_very_same_index(
    memory_list: list[Memory], skill_list: list[Skill], at: int
) -> None:
    for columns in (memory_columns(memory_list, PROFILE), skill_columns(skill_list, PROFILE)):
        cut = min(at, len(columns.ids))
        index = SearchIndex(TOK)
        index.extend_columns(columns.part(0, cut))
        away = SearchIndex(TOK, first=cut)
        away.extend_columns(columns.part(cut))
        assert index.merge(away.part()) is not None
        whole = SearchIndex(TOK)
        whole.extend_columns(columns)
        assert exact_state(index) == exact_state(whole)


def test_chars_per_document_add_up_its_fields() -> None:
    columns = skill_columns([Skill("s", "ab", "cde", "f" * 10)], PROFILE)
    assert columns.chars() == [sum(len(c.texts[0]) for c in columns.columns)]
    assert memory_columns([], PROFILE).chars() == []


def test_a_part_that_no_longer_fits_the_codes_changes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Head and tail each fit the codes, together they do not: `merge` says so before it
    touches anything, and `extend` of the same documents still gives the exact index."""
    monkeypatch.setattr(index_codes, "_CODE_LIMIT", 4)
    head = [RankDocument("h", (RankField("alpha beta gamma", 1, False),))]
    tail = [RankDocument("t", (RankField("delta epsilon zeta", 1, False),))]
    index = SearchIndex(TOK, head)
    away = SearchIndex(TOK, tail, first=1)
    before = exact_state(index)
    assert index.merge(away.part()) is None
    assert exact_state(index) == before
    index.extend(tail)
    assert _meaning(index) == _meaning(SearchIndex(TOK, head + tail))


def test_only_an_extended_index_with_coded_terms_is_a_part(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    docs = [RankDocument(i, (RankField(f"word{i} common", 1, False),)) for i in "abc"]
    removed = SearchIndex(TOK, docs, first=5)
    removed.remove(6)
    with pytest.raises(ValueError, match="only extended"):
        removed.part()
    monkeypatch.setattr(index_codes, "_CODE_LIMIT", 2)
    with pytest.raises(ValueError, match="coded terms"):
        SearchIndex(TOK, docs).part()


def test_a_part_must_start_where_the_index_stops() -> None:
    docs = [RankDocument("a", (RankField("alpha", 1, False),))]
    index = SearchIndex(TOK, docs)
    with pytest.raises(ValueError, match="from handle 0 cannot follow handle 1"):
        index.merge(SearchIndex(TOK, docs).part())
