"""Regression detection between runs, run-result JSON, and JUnit XML validity."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from axmem_gui.core.errors import InputError
from axmem_gui.core.suites import (
    SuiteCase,
    SuiteRunResult,
    compare_runs,
    evaluate_case,
    run_result_from_json_text,
    run_result_from_json_value,
    summarize,
    to_junit_xml,
)


def _run(name: str, outcomes: dict[str, list[str]], suite: str = "ops") -> SuiteRunResult:
    """Each case wants 'a' and 'b' within the top 2 and must not see 'bad'."""
    cases = []
    for case_name, returned in outcomes.items():
        case = SuiteCase(
            case_name, "discover", ("q",), must_include=("a", "b"), must_exclude=("bad",), k=2
        )
        cases.append(evaluate_case(case, returned))
    return SuiteRunResult(suite=suite, cases=tuple(cases), engine=name)


def test_a_case_that_passed_and_now_fails_is_a_regression() -> None:
    before = _run("v1", {"kept": ["a", "b"], "broke": ["b", "a"], "mended": ["a"], "old": ["a"]})
    after = _run(
        "v2", {"kept": ["a", "b"], "broke": ["a", "bad"], "mended": ["a", "b"], "new": ["x"]}
    )
    cmp = compare_runs(before, after)
    assert cmp.regressions == ("broke",)
    assert cmp.has_regressions
    assert cmp.fixed == ("mended",)
    assert cmp.still_failing == ()
    assert cmp.added == ("new",)
    assert cmp.removed == ("old",)
    # 'b' fell out of 'broke' entirely; nothing dropped in 'kept'.
    assert dict(cmp.rank_drops) == {"broke": ("b",)}


def test_no_regression_when_nothing_changes_and_failures_stay_failing() -> None:
    run = _run("v1", {"ok": ["a", "b"], "bad": ["x"]})
    cmp = compare_runs(run, run)
    assert not cmp.has_regressions
    assert cmp.still_failing == ("bad",)
    assert cmp.fixed == () and cmp.added == () and cmp.removed == ()


def test_rank_drop_is_reported_even_while_passing() -> None:
    before = _run("v1", {"c": ["a", "b"]})
    after = _run("v1", {"c": ["b", "a"]})
    cmp = compare_runs(before, after)
    assert cmp.regressions == ()
    assert dict(cmp.rank_drops) == {"c": ("a",)}


def test_run_result_json_round_trip_keeps_what_comparison_needs() -> None:
    run = _run("ax-exact", {"ok": ["a", "b"], "fail": ["bad"]})
    text = json.dumps(run.to_json())
    back = run_result_from_json_text(text, "prev.json")
    assert back.suite == "ops"
    assert [(c.name, c.passed, c.returned, dict(c.ranks)) for c in back.cases] == [
        (c.name, c.passed, c.returned, dict(c.ranks)) for c in run.cases
    ]
    assert back.summary == run.summary
    assert compare_runs(back, run).regressions == ()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([], "prev.json: expected an object with a 'cases' list"),
        ({"cases": [1]}, "prev.json: cases[0]: must be an object"),
        ({"cases": [{"name": "x"}]}, "prev.json: cases[0]: needs a string 'name' and a boolean"),
        ({"cases": [{"name": "x", "passed": True, "returned": "a"}]}, "malformed 'returned'"),
        ({"cases": [{"name": "x", "passed": True, "recallAtK": "1"}]}, "recallAtK: must be a"),
    ],
)
def test_bad_run_results_are_refused(value: object, message: str) -> None:
    with pytest.raises(InputError) as err:
        run_result_from_json_value(value, "prev.json")
    assert message in str(err.value)


def test_junit_xml_parses_back_with_counts_and_failure_details() -> None:
    run = _run("ax-exact", {"passes": ["a", "b"], 'misses <b> & "quotes"': ["a", "bad"]})
    xml = to_junit_xml([run])
    root = ET.fromstring(xml.encode("utf-8"))
    assert root.tag == "testsuites"
    assert root.get("tests") == "2" and root.get("failures") == "1"
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == "ops"
    assert suite.get("tests") == "2" and suite.get("failures") == "1" and suite.get("errors") == "0"
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["engine"] == "ax-exact"
    assert props["mrr"] == "1.000000"
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["passes", 'misses <b> & "quotes"']
    assert cases[0].find("failure") is None
    failure = cases[1].find("failure")
    assert failure is not None
    assert failure.get("message") == "missing 'b': not returned"
    assert "unexpected 'bad' returned at rank 2" in (failure.text or "")
    assert "returned: a, bad" in (failure.text or "")
    assert cases[1].get("classname") == "ops.discover"


def test_junit_xml_survives_control_characters_and_many_suites() -> None:
    case = SuiteCase("bell\x07 case", "recall", ("q",), must_include=("m\x00",))
    run = SuiteRunResult("s\x1b", (evaluate_case(case, []),))
    other = _run("x", {"ok": ["a", "b"]}, suite="second")
    root = ET.fromstring(to_junit_xml([run, other]))
    assert [s.get("name") for s in root.findall("testsuite")] == ["s\\u001b", "second"]
    testcase = root.find("testsuite/testcase")
    assert testcase is not None and testcase.get("name") == "bell\\u0007 case"
    assert root.get("tests") == "2" and root.get("failures") == "1"


def test_summary_by_kind_matches_overall() -> None:
    run = _run("v", {"a": ["a", "b"], "b": []})
    assert summarize(run.cases) == run.summary
    assert run.summary.passed == 1 and not run.all_passed
