"""The batched search checks give exactly what one ranked search per entry gives.

`TopRanker.top` is compared with `SearchIndex.rank` search by search, and the whole lint
report with a lint whose search checks run entry by entry (`per_entry_searchability_
findings`), on seeded random catalogs full of ties, stopwords, numbers, one-letter words,
emoji, CJK, accents, camelCase, padded, repeated and case-colliding ids, and on the sample.
"""

from __future__ import annotations

import random
from importlib import resources

import pytest

import axmem_gui.core.lint as lint_package
from axmem_gui.core.ax.documents import memory_columns, skill_columns
from axmem_gui.core.ax.index import SearchIndex
from axmem_gui.core.ax.jstext import js_trim
from axmem_gui.core.ax.profile import load_profile
from axmem_gui.core.ax.ranking import RankOptions
from axmem_gui.core.ax.tokenize import Tokenizer
from axmem_gui.core.catalog import Catalog, Memory, Skill
from axmem_gui.core.formats import catalog_from_json_text
from axmem_gui.core.lint import LintOptions, LintReport, lint_catalog
from axmem_gui.core.lint.incremental import LintSession
from axmem_gui.core.lint.searchability import per_entry_searchability_findings
from axmem_gui.core.lint.toprank import TopRanker

# Few words, so that many documents tie; stopwords, numbers and one-letter words that a
# search drops; non-ASCII words a search keeps.
WORDS = (
    "deploy", "rollback", "vault", "token", "audit", "release", "ledger", "shard",
    "the", "and", "help", "use", "2024", "117", "x", "a",
    "数据库", "🚀", "café", "Straße", "naïve", "ＡＰＩ", "İstanbul", "vault\x1cshard", "٣٤",
)  # fmt: skip
IDS = ("deploy-vault", "rollbackToken", "the-and", "2024", "x", " padded ", "Audit-Ledger",
       "audit-ledger", "数据库-备份", "🚀-launch", "café-menu", "")  # fmt: skip


def _text(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def _id(rng: random.Random, i: int) -> str:
    roll = rng.random()
    if roll < 0.25:
        return rng.choice(IDS)  # repeats, collisions, padding, empty
    if roll < 0.5:
        return f"{rng.choice(WORDS)}-{rng.choice(WORDS)}"  # ids that tie
    return f"{rng.choice(WORDS)}-{rng.choice(WORDS)}-{i}"


def _catalog(rng: random.Random, skills: int, memories: int) -> Catalog:
    return Catalog(
        skills=tuple(
            Skill(
                _id(rng, i),
                rng.choice((_text(rng, 1, 3), _text(rng, 1, 3), "the help", "")),
                _text(rng, 0, 8),
                # sometimes past the 600-character cut
                _text(rng, 0, 60) if rng.random() < 0.7 else _text(rng, 150, 250),
            )
            for i in range(skills)
        ),
        memories=tuple(
            Memory(f"mem:{_id(rng, i)}" if rng.random() < 0.8 else _id(rng, i), _text(rng, 0, 30))
            for i in range(memories)
        ),
    )


def _sample() -> Catalog:
    text = (resources.files("axmem_gui") / "sample" / "catalog.json").read_text(encoding="utf-8")
    return catalog_from_json_text(text, "sample/catalog.json")


def _per_entry_lint(
    catalog: Catalog, options: LintOptions, monkeypatch: pytest.MonkeyPatch
) -> LintReport:
    """`lint_catalog` with the search checks made entry by entry, one search each."""
    with monkeypatch.context() as patch:
        patch.setattr(lint_package, "searchability_findings", per_entry_searchability_findings)
        return lint_catalog(catalog, options)


@pytest.mark.parametrize("seed", range(6))
def test_top_ranker_returns_what_the_index_ranks(seed: int) -> None:
    rng = random.Random(seed)
    profile = load_profile()
    tokenizer = Tokenizer(profile)
    catalog = _catalog(rng, 60, 250)
    for columns in (
        skill_columns(catalog.skills, profile),
        memory_columns(catalog.memories, profile),
    ):
        index = SearchIndex(tokenizer)
        handles = index.extend_columns(columns)
        queries = [js_trim(t) for t in columns.ids]
        queries += [_text(rng, 1, 4) for _ in range(150)]
        tokens = [tuple(tokenizer.prose(q)) for q in queries]
        ranker = TopRanker(
            columns.ids, [index.terms_of(h) for h in handles], {t for q in tokens for t in q}
        )
        for query, terms in zip(queries, tokens, strict=True):
            for k in (1, 2, 3, 5):
                expected = index.rank(query, RankOptions.best_effort(k)).ranked
                got = ranker.top(terms, k)
                assert [(h.id, h.raw) for h in got] == [(e.id, e.raw) for e in expected], query
                # Only the hits tying the first (the competing-skills check's question).
                ties = [(e.id, e.raw) for e in expected if e.raw == expected[0].raw]
                got = ranker.top(terms, k, ties=True)
                assert [(h.id, h.raw) for h in got] == ties, query


@pytest.mark.parametrize("seed", range(8))
def test_report_equals_the_per_entry_searches(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    catalog = _catalog(rng, rng.randint(0, 80), rng.randint(0, 300))
    options = LintOptions(budget_tokens=400, competition=seed % 4 != 3)
    expected = _per_entry_lint(catalog, options, monkeypatch)
    assert lint_catalog(catalog, options) == expected
    if len({s.id for s in catalog.skills}) == len(catalog.skills) and len(
        {m.id for m in catalog.memories}
    ) == len(catalog.memories):
        assert LintSession(catalog, options).report == expected


def test_sample_report_equals_the_per_entry_searches(monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = _sample()
    expected = _per_entry_lint(catalog, LintOptions(), monkeypatch)
    assert expected.findings  # the sample has findings to compare
    assert lint_catalog(catalog) == expected
    assert LintSession(catalog).report == expected


def test_an_entry_of_stopwords_only_is_unreachable_and_its_id_words_count() -> None:
    """Reachability is read off the indexed terms: an id of stopwords with nothing else
    is unreachable; one distinctive id word is enough to reach the entry."""
    catalog = Catalog(
        skills=(Skill("the-and", "the", "", "and use"), Skill("vault-x", "help", "", "")),
        memories=(Memory("mem:the", "the and"), Memory("use", "")),
    )
    codes = {(f.entry_id, f.code) for f in lint_catalog(catalog).findings}
    assert ("the-and", "unreachable") in codes
    assert ("use", "unreachable") in codes
    assert ("vault-x", "unreachable") not in codes
    assert ("mem:the", "unreachable") not in codes  # 'mem' is a search term
