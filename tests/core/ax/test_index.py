"""The inverted index returns exactly what the plain ranker returns."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from axmem_gui.core.ax.documents import memory_document, skill_document
from axmem_gui.core.ax.index import SearchIndex
from axmem_gui.core.ax.profile import load_profile
from axmem_gui.core.ax.ranking import RankDocument, RankOptions, RankResult, rank_documents
from axmem_gui.core.ax.search import MemorySearch, SkillSearch
from axmem_gui.core.ax.tokenize import Tokenizer
from axmem_gui.core.catalog import Memory, Skill

PROFILE = load_profile()
TOK = Tokenizer(PROFILE)

# A tiny vocabulary makes shared terms, ties and duplicate ids likely.
WORDS = ["deploy", "Deploy", "zebra", "okapi", "release", "the", "v2", "2024", "café", "x"]
IDS = ["a", "A", "b", "mem:a", "a-b", "a_b", "é", "dup", "dup", " sp "]
text = st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join)
skills = st.builds(Skill, id=st.sampled_from(IDS), name=text, description=text, content=text)
memories = st.builds(Memory, id=st.sampled_from(IDS), content=text)
options = st.builds(
    RankOptions,
    top_k=st.sampled_from([1, 2, 3, 10, -1, 0]),
    min_score=st.sampled_from([0, 0.08, 0.5]),
    margin_ratio=st.sampled_from([0, 0.15, 0.9]),
    min_docs=st.sampled_from([1, 2, 5]),
)


def _scored(result: RankResult) -> list[tuple[str, float, float, tuple[str, ...]]]:
    # positions differ (plain: index in the filtered list; index: handle), order must not
    return [(m.id, m.raw, m.coverage, m.matched_terms) for m in result.matches]


@settings(max_examples=250, deadline=None)
@given(
    docs=st.lists(skills, max_size=9),
    query=text,
    opts=options,
    excluded=st.frozensets(st.sampled_from(IDS), max_size=3),
    full=st.booleans(),
)
def test_index_rank_equals_plain_rank(
    docs: list[Skill], query: str, opts: RankOptions, excluded: frozenset[str], full: bool
) -> None:
    rank_docs = [skill_document(s, PROFILE) for s in docs]
    index = SearchIndex(TOK, rank_docs)
    want = rank_documents(query, [d for d in rank_docs if d.id not in excluded], opts, TOK)
    got = index.rank(query, opts, excluded, full_ranking=full)
    assert got.tokens == want.tokens
    assert got.effective_terms == want.effective_terms
    assert got.idf == want.idf
    assert got.ranked == want.ranked  # ids, order and every float, bit for bit
    assert got.suppression == want.suppression
    if full:
        assert got.match_count == want.match_count
        assert _scored(got) == _scored(want)
    else:
        assert _scored(got) == _scored(want)[: len(got.matches)]


Op = tuple[str, int, Skill]


@settings(max_examples=150, deadline=None)
@given(
    start=st.lists(skills, max_size=6),
    ops=st.lists(st.tuples(st.sampled_from(["add", "update", "remove"]), st.integers(0, 20),
                           skills), max_size=8),
    queries=st.lists(text, min_size=1, max_size=3),
)  # fmt: skip
def test_incremental_updates_equal_a_rebuild(
    start: list[Skill], ops: list[Op], queries: list[str]
) -> None:
    index = SearchIndex(TOK)
    current: dict[int, RankDocument] = {}
    for skill in start:
        doc = skill_document(skill, PROFILE)
        current[index.add(doc)] = doc
    for op, pick, skill in ops:
        doc = skill_document(skill, PROFILE)
        handles = sorted(current)
        if op == "add" or not handles:
            current[index.add(doc)] = doc
        elif op == "update":
            handle = handles[pick % len(handles)]
            index.update(handle, doc)
            current[handle] = doc
        else:
            handle = handles[pick % len(handles)]
            index.remove(handle)
            del current[handle]
    assert index.handles() == sorted(current)
    ordered = [current[h] for h in sorted(current)]
    for query in queries:
        for opts in (RankOptions.best_effort(2), RankOptions.strict(PROFILE)):
            got = index.rank(query, opts, full_ranking=True)
            want = rank_documents(query, ordered, opts, TOK)
            assert got.ranked == want.ranked
            assert [(m.id, m.raw) for m in got.matches] == [(m.id, m.raw) for m in want.matches]
            assert index.rank(query, opts).ranked == want.ranked  # the top-k walk


@settings(max_examples=150, deadline=None)
@given(
    catalog=st.lists(memories, max_size=8),
    searches=st.lists(text.filter(str.strip), min_size=1, max_size=3),
    loaded=st.lists(st.sampled_from(IDS), max_size=3),
)
def test_indexed_recall_and_hints_equal_plain(
    catalog: list[Memory], searches: list[str], loaded: list[str]
) -> None:
    plain = MemorySearch(catalog, PROFILE)
    fast = MemorySearch.indexed(catalog, PROFILE)
    a_call, a_found = plain.recall(searches, loaded)
    b_call, b_found = fast.recall(searches, loaded)
    assert a_call.result_ids == b_call.result_ids and a_found == b_found
    assert [r.ranked for r in a_call.per_query] == [r.ranked for r in b_call.per_query]
    strict = RankOptions.strict(PROFILE)
    assert plain.hint(" ".join(searches), strict, loaded)[1] == fast.hint(
        " ".join(searches), strict, loaded
    )[1]
    assert [memory_document(m, PROFILE).id for m in catalog] == [m.id for m in catalog]


@settings(max_examples=150, deadline=None)
@given(catalog=st.lists(skills, max_size=8), searches=st.lists(text, min_size=1, max_size=3))
def test_indexed_discover_equals_plain(catalog: list[Skill], searches: list[str]) -> None:
    searches = [s for s in searches if s.strip()] or ["deploy"]
    a_call, a_found = SkillSearch(catalog, PROFILE).discover(searches)
    b_call, b_found = SkillSearch.indexed(catalog, PROFILE).discover(searches)
    assert a_call.result_ids == b_call.result_ids and a_found == b_found


# Larger catalogs with repeated words, so the top-k walk has to prune and to break ties
# inside big groups of equal scores.
BIG_WORDS = ["alpha", "beta", "gamma", "delta", "omega", "the"]
big_text = st.lists(st.sampled_from(BIG_WORDS), min_size=0, max_size=8).map(" ".join)
big_memories = st.lists(
    st.builds(Memory, id=st.sampled_from([f"m{i}" for i in range(25)] + ["M1", "m-1"]),
              content=big_text),
    min_size=20,
    max_size=60,
)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(
    catalog=big_memories,
    query=big_text,
    top_k=st.sampled_from([1, 2, 3, 5]),
    excluded=st.frozensets(st.sampled_from(["m1", "m2", "M1", "m3"]), max_size=2),
)
def test_top_k_walk_on_bigger_catalogs(
    catalog: list[Memory], query: str, top_k: int, excluded: frozenset[str]
) -> None:
    docs = [memory_document(m, PROFILE) for m in catalog]
    index = SearchIndex(TOK, docs)
    for opts in (RankOptions.best_effort(top_k), RankOptions.strict(PROFILE)):
        want = rank_documents(query, [d for d in docs if d.id not in excluded], opts, TOK)
        got = index.rank(query, opts, excluded)
        assert got.ranked == want.ranked
        assert got.suppression == want.suppression


def test_small_groups_in_a_big_catalog_are_sorted_directly() -> None:
    """A rare term's group is ordered by sorting it, a common one by scanning the global
    collation order; both give Ax's order."""
    memories = [Memory(f"bulk-{i:03d}", "common words") for i in range(300)]
    memories += [Memory("zz-rare", "rare"), Memory("Aa-rare", "rare"), Memory("aa-rare", "rare")]
    docs = [memory_document(m, PROFILE) for m in memories]
    index = SearchIndex(TOK, docs)
    for query in ("rare", "common", "rare common"):
        for top_k in (1, 2, 3):
            opts = RankOptions.best_effort(top_k)
            want = rank_documents(query, docs, opts, TOK)
            assert index.rank(query, opts).ranked == want.ranked
    assert [e.id for e in index.rank("rare", RankOptions.best_effort(2)).ranked] == [
        "aa-rare",
        "Aa-rare",
    ]
