"""Metrics and pass/fail reasons, on hand-computed cases (no engine involved)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from axmem_gui.core.ax.profile import load_profile
from axmem_gui.core.suites import (
    CaseResult,
    SuiteCase,
    evaluate_case,
    rank_of,
    recall_at_k,
    reciprocal_rank,
    summarize,
)


def test_rank_of_is_one_based_and_none_when_absent() -> None:
    assert rank_of(["a", "b", "c"], "a") == 1
    assert rank_of(["a", "b", "c"], "c") == 3
    assert rank_of(["a", "b", "c"], "z") is None
    assert rank_of([], "a") is None


@pytest.mark.parametrize(
    ("returned", "relevant", "k", "expected"),
    [
        (["a", "b", "c", "d"], ["a", "c"], 2, 0.5),  # c is at 3, outside k=2
        (["a", "b", "c", "d"], ["a", "c"], 3, 1.0),
        (["x", "y"], ["a", "b", "c"], 2, 0.0),
        (["b", "x", "a"], ["a", "b", "c", "d"], 3, 0.5),
        (["a"], ["a", "a"], 1, 1.0),  # duplicates in the expectation count once
    ],
)
def test_recall_at_k(returned: list[str], relevant: list[str], k: int, expected: float) -> None:
    assert recall_at_k(returned, relevant, k) == expected


def test_recall_at_k_without_relevant_ids_is_undefined() -> None:
    assert recall_at_k(["a"], [], 3) is None


@pytest.mark.parametrize(
    ("returned", "relevant", "expected"),
    [
        (["a", "b"], ["a"], 1.0),
        (["x", "a"], ["a"], 0.5),
        (["x", "y", "z", "b", "a"], ["a", "b"], 0.25),  # first relevant hit decides
        (["x", "y"], ["a"], 0.0),
        ([], ["a"], 0.0),
    ],
)
def test_reciprocal_rank(returned: list[str], relevant: list[str], expected: float) -> None:
    assert reciprocal_rank(returned, relevant) == expected


def test_reciprocal_rank_without_relevant_ids_is_undefined() -> None:
    assert reciprocal_rank(["a"], []) is None


def _case(**kw: object) -> SuiteCase:
    base: dict[str, object] = {"name": "c", "kind": "discover", "searches": ("q",)}
    base.update(kw)
    return SuiteCase(**base)  # type: ignore[arg-type]


def test_default_k_is_the_calls_cap() -> None:
    assert _case(searches=("a", "b")).effective_k() == 4  # discover: 2 per string
    assert _case(kind="recall", searches=("a", "b", "c")).effective_k() == 9  # recall: 3
    # Ax trims and drops exact duplicates before searching: the cap follows.
    assert _case(searches=(" a", "a ", "A")).effective_k() == 4
    assert _case(searches=("a",), k=1).effective_k() == 1


def test_the_per_string_cap_comes_from_the_ax_profile() -> None:
    profile = replace(load_profile(), skill_search_top_k=5, memory_search_top_k=7)
    assert _case(searches=("a", "b")).effective_k(profile) == 10
    assert _case(kind="recall", searches=("a",)).effective_k(profile) == 7
    result = evaluate_case(_case(must_include=("x",)), ["y"] * 5 + ["x"], profile=profile)
    assert result.k == 5 and not result.passed  # rank 6 is outside the profile's top 5


def test_passing_case_records_ranks_and_metrics() -> None:
    case = _case(searches=("a", "b"), must_include=("s2", "s1"), must_exclude=("s9",))
    result = evaluate_case(case, ["s1", "s3", "s2"], frozenset({"s1", "s2", "s3", "s9"}))
    assert result.passed
    assert result.reasons == ()
    assert dict(result.ranks) == {"s2": 3, "s1": 1}
    assert result.k == 4
    assert result.recall_at_k == 1.0
    assert result.reciprocal_rank == 1.0


def test_failure_reasons_name_missing_out_of_k_and_excluded_ids() -> None:
    case = _case(
        searches=("q",), k=1, must_include=("want-top", "want-absent"), must_exclude=("bad",)
    )
    known = frozenset({"want-top", "want-absent", "bad", "other"})
    result = evaluate_case(case, ["bad", "want-top"], known)
    assert not result.passed
    assert result.reasons == (
        "'want-top' at rank 2, expected within the top 1",
        "missing 'want-absent': not returned",
        "unexpected 'bad' returned at rank 1",
    )
    assert dict(result.ranks) == {"want-top": 2, "want-absent": None}
    assert result.recall_at_k == 0.0
    assert result.reciprocal_rank == 0.5


def test_unknown_ids_are_named_as_such() -> None:
    case = _case(kind="recall", must_include=("typo-id",), must_exclude=("gone",), loaded=("x",))
    result = evaluate_case(case, [], frozenset({"real"}))
    assert not result.passed
    assert result.reasons == ("mustInclude 'typo-id' is not a memory id in the catalog",)
    assert result.warnings == (
        "mustExclude 'gone' is not a memory id in the catalog",
        "loaded 'x' is not a memory id in the catalog",
    )


def test_exclusion_only_case_passes_on_empty_result_without_metrics() -> None:
    result = evaluate_case(_case(must_exclude=("a",)), [], frozenset({"a"}))
    assert result.passed
    assert result.recall_at_k is None and result.reciprocal_rank is None


def _result(name: str, passed: bool, rec: float | None, rr: float | None) -> CaseResult:
    return CaseResult(name, "discover", passed, (), 2, {}, rec, rr, () if passed else ("x",))


def test_summary_averages_only_cases_with_relevant_ids() -> None:
    summary = summarize(
        [
            _result("a", True, 1.0, 1.0),
            _result("b", False, 0.5, 0.25),
            _result("c", True, None, None),  # exclusion-only: not averaged
        ]
    )
    assert (summary.total, summary.passed, summary.failed) == (3, 2, 1)
    assert summary.mean_recall_at_k == 0.75
    assert summary.mrr == 0.625


def test_summary_of_nothing() -> None:
    summary = summarize([])
    assert (summary.total, summary.passed, summary.failed) == (0, 0, 0)
    assert summary.mean_recall_at_k is None and summary.mrr is None
