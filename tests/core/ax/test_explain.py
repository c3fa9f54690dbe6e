"""'Why was X (not) returned?' and per-field document tokens."""

from __future__ import annotations

import pytest

from axmem_gui.core.ax.documents import skill_fields
from axmem_gui.core.ax.explain import explain
from axmem_gui.core.ax.profile import load_profile
from axmem_gui.core.ax.search import MemorySearch, SkillSearch
from axmem_gui.core.ax.tokenize import Tokenizer
from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.errors import InputError

PROFILE = load_profile()
SKILLS = [
    Skill("s1", "Deploy one", "", "deploy"),
    Skill("s2", "Deploy two", "deploy deploy", "deploy"),
    Skill("s3", "Three", "", "deploy"),
    Skill("late", "Late", "", "x " * 300 + "needleword"),
]


@pytest.mark.parametrize("indexed", [False, True])
def test_below_the_cut_off(indexed: bool) -> None:
    search = SkillSearch.indexed(SKILLS, PROFILE) if indexed else SkillSearch(SKILLS, PROFILE)
    why = explain(search, "s3", "deploy")
    assert (why.rank, why.cutoff, why.returned) == (3, 2, False)
    assert why.reason == "ranked 3 of 3; only the top 2 are returned"
    assert why.score is not None and 0 < why.score < 1
    assert explain(search, "s2", "deploy").reason == "returned at rank 1"


def test_terms_beyond_the_content_cut_and_stopwords() -> None:
    why = explain(SkillSearch(SKILLS, PROFILE), "late", "fix the needleword")
    assert why.rank is None and not why.returned
    assert [(t.term, t.status) for t in why.terms] == [("needleword", "beyond-cut")]
    assert ("fix", "stopword") in why.dropped_query_words
    assert "needleword only occur beyond the content cut" in why.reason
    assert "stopwords ignored: fix, the" in why.reason
    content = next(f for f in why.fields if f.label == "content")
    assert content.cut_terms == ("needleword",)
    assert why.to_json()["fields"][-1]["cutChars"] == len("needleword")


def test_only_stopwords() -> None:
    why = explain(SkillSearch(SKILLS, PROFILE), "s1", "help with the task")
    assert why.reason.startswith("the query has no search terms")


def test_excluded_memory_and_unknown_id() -> None:
    search = MemorySearch([Memory("m", "deploy notes"), Memory("n", "deploy")], PROFILE)
    why = explain(search, "m", "deploy", already_loaded_ids=["m"])
    assert why.excluded and why.reason.startswith("excluded")
    with pytest.raises(InputError, match="no memory with id 'zzz'"):
        explain(search, "zzz", "deploy")


def test_fields_report_stopwords_numbers_and_short_words() -> None:
    skill = Skill("fixBugs", "Fix bugs", "help with 2024 a bugs", "c" * 10)
    fields = {f.label: f for f in skill_fields(skill, PROFILE, Tokenizer(PROFILE))}
    assert fields["id"].terms == ("fix", "bugs")  # identifiers keep stopwords
    assert fields["name"].terms == ("bugs",) and fields["name"].stopwords == ("fix",)
    assert fields["description"].numbers == ("2024",)
    assert fields["description"].too_short == ("a",)
    assert fields["content"].cut_text == ""
