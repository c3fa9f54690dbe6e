"""rankDocuments: scores, ordering, guards and options."""

from __future__ import annotations

import math

import pytest

from axmem_gui.core.ax.documents import skill_document
from axmem_gui.core.ax.profile import load_profile
from axmem_gui.core.ax.ranking import (
    RankDocument,
    RankField,
    RankOptions,
    Suppression,
    rank_documents,
)
from axmem_gui.core.ax.tokenize import Tokenizer
from axmem_gui.core.catalog import Skill

PROFILE = load_profile()
TOK = Tokenizer(PROFILE)
BEST2 = RankOptions.best_effort(2)
STRICT = RankOptions.strict(PROFILE)


def doc(doc_id: str, text: str) -> RankDocument:
    return RankDocument(doc_id, (RankField(doc_id, 1, True), RankField(text)))


def test_worked_example_from_the_spec() -> None:
    skills = [
        Skill("release-checklist", "Release checklist",
              "Steps for shipping a new package release safely", "1. Bump version"),
        Skill("incident-response", "Incident response", "How to escalate", "page"),
        Skill("style-guide", "Writing style guide", "Tone rules", "plain"),
    ]  # fmt: skip
    result = rank_documents(
        "how do I ship a release", [skill_document(s, PROFILE) for s in skills], BEST2, TOK
    )
    assert result.tokens == ("ship", "release")
    assert result.effective_terms == ("release",)  # "shipping" is not "ship"
    (entry,) = result.ranked
    assert entry.id == "release-checklist"
    # tf = 1 (id) + 2 (name) + 2 (description); idf = ln(1 + 3/1)
    assert entry.raw == pytest.approx(math.log(4) * 5 / 6, abs=1e-15)
    assert entry.raw == 1.1552453009332422
    assert (entry.score, entry.coverage, entry.matched_terms) == (1, 1, ("release",))


def test_ties_break_by_locale_order_of_id_then_catalog_order() -> None:
    docs = [doc("beta", "okapi"), doc("Alpha", "okapi"), doc("alpha", "okapi")]
    result = rank_documents("okapi", docs, RankOptions.best_effort(5), TOK)
    assert [e.id for e in result.ranked] == ["alpha", "Alpha", "beta"]
    same = [doc("dup", "okapi one"), doc("dup", "okapi two")]
    result = rank_documents("okapi", same, RankOptions.best_effort(5), TOK)
    assert [m.position for m in result.matches] == [0, 1]


def test_top_k_cuts_but_matches_keep_the_full_ranking() -> None:
    docs = [doc(f"d{i}", "deploy " * (i + 1)) for i in range(4)]
    result = rank_documents("deploy", docs, BEST2, TOK)
    assert [e.id for e in result.ranked] == ["d3", "d2"]
    assert [m.id for m in result.matches] == ["d3", "d2", "d1", "d0"]
    assert result.match_count == 4


def test_guards() -> None:
    one = [doc("only", "zebra")]
    assert rank_documents("zebra", one, STRICT, TOK).suppression is Suppression.TOO_FEW_DOCS
    assert rank_documents("zebra", one, BEST2, TOK).result_ids == ("only",)

    two = [doc("a1", "zebra"), doc("a2", "quokka")]
    assert rank_documents("the of and", two, STRICT, TOK).suppression is Suppression.NO_TERMS
    assert rank_documents("unknown", two, STRICT, TOK).suppression is Suppression.NO_TERMS

    tied = [doc("t1", "zebra quokka"), doc("t2", "zebra quokka")]
    result = rank_documents("zebra quokka", tied, STRICT, TOK)
    assert result.suppression is Suppression.ALL_NEAR_TOP and result.ranked == ()
    assert len(rank_documents("zebra quokka", tied, BEST2, TOK).ranked) == 2
    tied_plus = [*tied, doc("other", "nothing")]
    assert len(rank_documents("zebra quokka", tied_plus, STRICT, TOK).ranked) == 2

    words = " ".join(f"w{i}x" for i in range(14))
    many = [doc(f"k{i}", f"w{i}x") for i in range(14)] + [doc("none", "blank")]
    weak = rank_documents(words, many, STRICT, TOK)
    assert weak.suppression is Suppression.WEAK_TOP  # coverage 1/14 < 0.08


def test_options_from_the_relevance_ranking_object() -> None:
    opts = RankOptions.from_js({"topK": 1, "minScore": 0, "other": "ignored"}, PROFILE)
    assert opts == RankOptions(top_k=1, min_score=0, margin_ratio=0.15, min_docs=2)
    assert RankOptions.from_js({"topK": None}, PROFILE) == STRICT
    assert RankOptions.from_js(None, PROFILE) == STRICT
    # Ax never checks the types; its comparisons and slice convert like Number(value)
    assert RankOptions.from_js({"topK": "3"}, PROFILE, "agent.json").top_k == 3
    assert RankOptions.from_js({"minDocs": True}, PROFILE).min_docs == 1
    assert math.isnan(RankOptions.from_js({"minScore": "abc"}, PROFILE).min_score)


def test_negative_top_k_behaves_like_array_slice() -> None:
    docs = [doc(f"d{i}", "deploy " * (i + 1)) for i in range(3)]
    opts = RankOptions(top_k=-1, min_score=0, margin_ratio=0, min_docs=1)
    assert [e.id for e in rank_documents("deploy", docs, opts, TOK).ranked] == ["d2", "d1"]
