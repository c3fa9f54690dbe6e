"""The BM25 (SQLite FTS5) backend the retrieval bench compares Ax's search with."""

from __future__ import annotations

import math
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.store.fts import Bm25Index, fts_query, query_words

SKILLS = (
    Skill("release-checklist", "Release checklist", "Steps to ship a release", "Tag, build."),
    Skill("incident-response", "Incident response", "Triage and escalate", "Page on-call."),
    Skill("style-guide", "Writing style guide", "", "Release notes use sentence case."),
)


def _expected_bm25(
    docs: list[list[list[str]]], weights: list[float], query: list[str]
) -> list[float]:
    """FTS5's documented bm25(): k1 = 1.2, b = 0.75, idf = ln((N - n + 0.5) / (n + 0.5))
    (at least 1e-6), term frequency = weighted sum of per-column hits, length = all tokens."""
    k1, b = 1.2, 0.75
    n_docs = len(docs)
    lengths = [sum(len(col) for col in doc) for doc in docs]
    avg = sum(lengths) / n_docs
    out = []
    for doc, length in zip(docs, lengths, strict=True):
        total = 0.0
        for term in query:
            n = sum(1 for d in docs if any(term in col for col in d))
            idf = max(math.log((n_docs - n + 0.5) / (n + 0.5)), 1e-6)
            f = sum(w * col.count(term) for w, col in zip(weights, doc, strict=True))
            total += idf * (f * (k1 + 1)) / (f + k1 * (1 - b + b * length / avg))
        out.append(-total)
    return out


def _words(text: str) -> list[str]:
    return [w.lower() for w in re.findall(r"[^\W_]+", text)]


def test_scores_follow_the_bm25_formula_with_ax_field_weights() -> None:
    index = Bm25Index.for_skills(SKILLS)
    hits = index.search("release notes", limit=10)
    docs = [[_words(s.id), _words(s.name), _words(s.description), _words(s.content)]
            for s in SKILLS]
    values = _expected_bm25(docs, [1, 2, 2, 1], ["release", "notes"])
    expected = dict(zip((s.id for s in SKILLS), values, strict=True))
    assert [h.id for h in hits] == sorted(
        (i for i, v in expected.items() if v < 0), key=lambda i: (expected[i], i)
    )
    for hit in hits:
        assert math.isclose(hit.bm25, expected[hit.id], rel_tol=1e-9)
        assert hit.score == -hit.bm25
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))


def test_name_weight_puts_a_name_match_above_a_content_match() -> None:
    index = Bm25Index.for_skills(
        [Skill("a", "Deploy", "", "nothing here"), Skill("b", "Other", "", "deploy nothing here")]
    )
    assert [h.id for h in index.search("deploy", 5)] == ["a", "b"]


def test_query_syntax_is_plain_text() -> None:
    index = Bm25Index.for_skills(SKILLS)
    for text in ('NOT release', 'release*', 'name:release', '"release', 'NEAR(release ship)',
                 "release) OR (", "^release", "release-checklist"):
        ids = [h.id for h in index.search(text, 5)]
        assert "release-checklist" in ids, text
    assert index.search("NOT", 5) == []  # the word 'not' occurs nowhere
    assert [h.id for h in index.search("AND", 5)] == ["incident-response"]  # 'Triage and …'
    assert fts_query('say "hi"') == '"say" OR "hi"'
    assert fts_query("  ?!  ") is None
    assert index.search("?!", 5) == []


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=40))
def test_any_search_string_is_safe(text: str) -> None:
    index = Bm25Index.for_skills(SKILLS)
    hits = index.search(text, 2)
    assert len(hits) <= 2
    assert {h.id for h in hits} <= {s.id for s in SKILLS}
    if not query_words(text):
        assert hits == []


def test_upsert_replaces_and_remove_deletes() -> None:
    index = Bm25Index.for_skills(SKILLS)
    assert [h.id for h in index.search("escalate", 5)] == ["incident-response"]
    index.upsert_skills([Skill("incident-response", "Incident response", "", "calm")])
    assert index.search("escalate", 5) == []
    assert len(index) == 3
    index.remove(["style-guide", "missing"])
    assert len(index) == 2
    assert "style-guide" not in [h.id for h in index.search("sentence case", 5)]


def test_exclusions_limit_and_ties_by_id() -> None:
    memories = [Memory(f"m{i}", "deploy window friday") for i in (3, 1, 2)]
    index = Bm25Index.for_memories(memories)
    assert [h.id for h in index.search("deploy", 2)] == ["m1", "m2"]
    assert [h.id for h in index.search("deploy", 5, exclude_ids=["m1"])] == ["m2", "m3"]
    assert index.search("deploy", 0) == []


def test_diacritics_and_case_fold_and_content_cut() -> None:
    index = Bm25Index.for_skills([Skill("x", "Café", "", "a" * 30 + " tail")], content_chars=20)
    assert [h.id for h in index.search("CAFE", 5)] == ["x"]
    assert index.search("tail", 5) == []
    full = Bm25Index.for_skills([Skill("x", "Café", "", "a" * 30 + " tail")])
    assert [h.id for h in full.search("tail", 5)] == ["x"]
