"""The live search state (patched in place) and the bench use case (no Qt needed)."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from axmem_gui.core.ax.profile import load_profile
from axmem_gui.core.ax.search import MemorySearch, SkillSearch
from axmem_gui.core.ax.tokenize import Tokenizer
from axmem_gui.core.catalog import Catalog, Memory, Skill
from axmem_gui.core.errors import InputError
from axmem_gui.services.bench import (
    parse_ids,
    parse_searches,
    run_bench,
    term_spans,
    why_not,
)
from axmem_gui.services.live_search import LiveSearch
from axmem_gui.services.suites import sample_catalog
from axmem_gui.store.fts import Bm25Index

PROFILE = load_profile()
WORDS = ["release", "deploy", "rollback", "the", "ship", "canary", "token", "vault", "a"]
QUERIES = ["release deploy", "rollback", "ship the canary", "token vault release", "zzz"]
# ids that collate equal ("a\x01" ~ "a") or differ only by case, to exercise tie order
IDS = ["a", "A", "a\x01", "b-c", "bC", "x", "y", "z"]


def _skill(rng: random.Random, entry_id: str) -> Skill:
    def text(n: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(n))

    if rng.random() < 0.5:  # identical entries: only the tie-break orders them
        return Skill(entry_id, "Release deploy", "", "rollback the canary token")

    return Skill(entry_id, text(2).capitalize() or "x", text(rng.randint(0, 4)), text(8))


def _memory(rng: random.Random, entry_id: str) -> Memory:
    return Memory(entry_id, " ".join(rng.choice(WORDS) for _ in range(6)))


def _same_results(live: LiveSearch, skills: list[Skill], memories: list[Memory]) -> None:
    plain_skills = SkillSearch(skills, PROFILE)
    plain_memories = MemorySearch(memories, PROFILE)
    for query in QUERIES:
        # the index may skip the full ranking beyond the cut: compare what Ax returns
        got = live.skill_search().discover([query])[0]
        want = plain_skills.discover([query])[0]
        assert [r.ranked for r in got.per_query] == [r.ranked for r in want.per_query]
        assert got.result_ids == want.result_ids
        loaded = [m.id for m in memories[:1]]
        got = live.memory_search().recall([query], loaded)[0]
        want = plain_memories.recall([query], loaded)[0]
        assert [r.ranked for r in got.per_query] == [r.ranked for r in want.per_query]
    assert sorted(s.id for s in live.catalog().skills) == sorted(s.id for s in skills)


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=10_000))
def test_patches_give_the_results_of_a_fresh_index(seed: int) -> None:
    rng = random.Random(seed)
    skills = [_skill(rng, i) for i in rng.sample(IDS, 4)]
    memories = [_memory(rng, f"m{i}") for i in range(5)]
    live = LiveSearch(PROFILE, Catalog(tuple(skills), tuple(memories)))
    for _ in range(6):
        entry_id = rng.choice(IDS)
        present = [s.id for s in skills]
        if entry_id in present and rng.random() < 0.4:
            skills = [s for s in skills if s.id != entry_id]
            change: Skill | None = None
        else:
            change = _skill(rng, entry_id)
            if entry_id in present:
                skills = [change if s.id == entry_id else s for s in skills]
            else:  # the store puts a restored entry back at its old place: anywhere
                skills.insert(rng.randint(0, len(skills)), change)
        if not live.patch("skills", {entry_id: change}):
            live.load(Catalog(tuple(skills), tuple(memories)))
        memory = memories[rng.randrange(len(memories))]
        memories = [
            dataclasses.replace(m, content=_memory(rng, m.id).content) if m is memory else m
            for m in memories
        ]
        changed = next(m for m in memories if m.id == memory.id)
        assert live.patch("memories", {memory.id: changed})
        _same_results(live, skills, memories)


def test_refresh_diffs_and_patches_only_what_changed() -> None:
    catalog = sample_catalog()
    live = LiveSearch(PROFILE, catalog)
    before = live.version
    live.refresh(catalog)
    assert live.version == before  # nothing differs: nothing re-indexed
    edited = dataclasses.replace(catalog.skills[0], name="Shipping guide")
    new = Catalog((edited, *catalog.skills[1:]), catalog.memories[1:])
    live.refresh(new)
    assert live.version[0] == before[0] + 1 and live.version[1] == before[1] + 1
    assert live.entry("skills", edited.id) == edited
    assert live.entry("memories", catalog.memories[0].id) is None
    _same_results(live, list(new.skills), list(new.memories))
    # the BM25 index follows the patches too
    assert live.bm25("skills").search("shipping guide", 1)[0].id == edited.id


def test_bench_returns_the_ax_call_and_bm25_beside_it() -> None:
    catalog = sample_catalog()
    live = LiveSearch(PROFILE, catalog)
    searches = ["how do I ship a release", "rollback"]
    result = run_bench(live, "discover", searches)
    expected = SkillSearch(catalog.skills, PROFILE).discover(searches)[0]
    assert result.result_ids == expected.result_ids
    first = expected.per_query[0].ranked[0]
    row = result.rows[0]
    assert (row.id, row.score, row.raw, row.coverage, row.matched_terms) == (
        first.id, first.score, first.raw, first.coverage, first.matched_terms
    )
    assert row.query == searches[0]
    bm25 = Bm25Index.for_skills(catalog.skills)
    expected_bm25: list[str] = []
    for query in searches:
        for hit in bm25.search(query, PROFILE.skill_search_top_k):
            if hit.id not in expected_bm25:
                expected_bm25.append(hit.id)
    assert list(result.bm25_ids) == expected_bm25
    assert all(r.in_ax == (r.id in result.result_ids) for r in result.bm25_rows)
    assert set(result.only_bm25()) == set(result.bm25_ids) - set(result.result_ids)


def test_bench_recall_skips_loaded_memories_and_reports_policy_errors() -> None:
    live = LiveSearch(PROFILE, sample_catalog())
    free = run_bench(live, "recall", ["deploy window"])
    assert "deploy-window" in free.result_ids
    loaded = run_bench(live, "recall", ["deploy window"], ["deploy-window"])
    assert "deploy-window" not in loaded.result_ids
    assert "deploy-window" not in loaded.bm25_ids
    bad = run_bench(live, "discover", ["ok", "   "])
    assert bad.error == "[POLICY] discover(...) skills entries must be non-empty strings."  # Ax
    assert bad.rows == ()


def test_why_not_explains_each_search_string() -> None:
    live = LiveSearch(PROFILE, sample_catalog())
    searches = ["how do I ship a release", "write the changelog"]
    result = why_not(live, "discover", "hotfix-process", searches)
    assert [e.query for e in result.explanations] == searches
    assert not result.returned_by_call
    first = result.explanations[0]
    assert ("how", "stopword") in first.dropped_query_words
    assert first.rank is not None and first.rank > first.cutoff == 2
    returned = why_not(live, "discover", "changelog-writing", searches)
    assert returned.returned_by_call
    with pytest.raises(InputError, match="no skill with id 'nope'"):
        why_not(live, "discover", "nope", searches)


def test_term_spans_follow_the_tokenizer() -> None:
    tokenizer = Tokenizer(PROFILE)
    text = "Release, the RELEASE-notes; Café naïve releases"
    spans = term_spans(text, ["release", "cafe"], tokenizer, PROFILE.punctuation)
    assert [text[a:b] for a, b in spans] == ["Release", "RELEASE", "Café"]
    ident = term_spans("postmortemTemplate", ["template"], tokenizer, "", identifier=True)
    assert [("postmortemTemplate")[a:b] for a, b in ident] == ["Template"]
    assert term_spans(text, [], tokenizer, PROFILE.punctuation) == []


def test_parsing_inputs() -> None:
    assert parse_searches("a\n\n  \n b \n") == ["a", " b "]
    assert parse_ids(" x, y\nz,, ") == ["x", "y", "z"]
