"""Suite JSON: what is accepted, what is refused (with a message naming entry and field)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from axmem_gui.core.errors import InputError
from axmem_gui.core.suites import (
    CASE_KINDS,
    Suite,
    SuiteCase,
    suites_from_json_text,
    suites_from_json_value,
    suites_to_json_text,
)


def _suite(*cases: dict[str, Any], name: str = "s") -> dict[str, Any]:
    return {"name": name, "cases": list(cases)}


GOOD = {"name": "c1", "kind": "discover", "searches": ["release"], "mustInclude": ["a"]}


def test_accepts_object_list_and_envelope() -> None:
    one = suites_from_json_value(_suite(GOOD))
    many = suites_from_json_value([_suite(GOOD, name="x"), _suite(GOOD, name="y")])
    wrapped = suites_from_json_value({"suites": [_suite(GOOD)]})
    assert [s.name for s in one] == ["s"]
    assert [s.name for s in many] == ["x", "y"]
    assert wrapped == one
    case = one[0].cases[0]
    assert case == SuiteCase("c1", "discover", ("release",), must_include=("a",))


def test_a_bare_string_is_one_search() -> None:
    case = suites_from_json_value(_suite({**GOOD, "searches": "ship"}))[0].cases[0]
    assert case.searches == ("ship",)


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ({**GOOD, "kind": "search"}, "cases[0] (c1): field 'kind' must be 'discover' or 'recall'"),
        ({**GOOD, "searches": []}, "cases[0] (c1): field 'searches' must be a non-empty list"),
        (
            {**GOOD, "searches": ["ok", "  "]},
            "cases[0] (c1): searches[1] is refused by Ax: "
            "[POLICY] discover(...) skills entries must be non-empty strings.",
        ),
        (
            {**GOOD, "searches": [3]},
            "cases[0] (c1): searches[0] is refused by Ax: "
            "[POLICY] discover(...) skills entries must be strings.",
        ),
        (
            {**GOOD, "kind": "recall", "searches": ["\u3000"]},
            "searches[0] is refused by Ax: [POLICY] recall(...) entries must be non-empty",
        ),
        ({**GOOD, "mustInclude": "a"}, "field 'mustInclude' must be a list, got a string"),
        ({**GOOD, "mustExclude": [""]}, "field 'mustExclude[0]' must be a non-empty string"),
        ({**GOOD, "mustInclude": [], "mustExclude": []}, "needs at least one id in mustInclude"),
        ({**GOOD, "mustExclude": ["a"]}, "id 'a' is in both mustInclude and mustExclude"),
        ({**GOOD, "loaded": ["m"]}, "field 'loaded' only applies to recall cases"),
        ({**GOOD, "k": 0}, "field 'k' must be a positive integer, got 0"),
        ({**GOOD, "k": True}, "field 'k' must be a positive integer, got a boolean"),
        ({**GOOD, "k": 1.5}, "field 'k' must be a positive integer, got a number"),
        ({**GOOD, "mustinclude": ["a"]}, "cases[0] (c1): unknown field 'mustinclude'"),
        ({**GOOD, "name": ""}, "cases[0]: field 'name' must be a non-empty string"),
        ("c1", "cases[0]: a case must be an object, got a string"),
    ],
)
def test_bad_cases_are_refused_with_a_precise_message(case: Any, message: str) -> None:
    with pytest.raises(InputError) as err:
        suites_from_json_value(_suite(case), "suites.json")
    assert str(err.value).startswith("suites.json: suite 's': cases[0]")
    assert message in str(err.value)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (42, "suites.json: expected a suite object or a list of suites, got a number"),
        ({"cases": []}, "suites.json: field 'name' is missing"),
        ({"name": "s"}, "suites.json: suite 's': field 'cases' is missing"),
        (
            {"name": "s", "cases": [], "extra": 1},
            "suites.json: suite 's': unknown field 'extra' (allowed: cases, description, name)",
        ),
        ([_suite(name="a"), _suite(name="a")], "suites.json: [1]: duplicate suite name 'a'"),
        (_suite(GOOD, GOOD), "suites.json: suite 's': cases[1]: duplicate case name 'c1'"),
        ({"suites": {}}, "suites.json: 'suites' must be a list"),
    ],
)
def test_bad_suites_are_refused(value: Any, message: str) -> None:
    with pytest.raises(InputError) as err:
        suites_from_json_value(value, "suites.json")
    assert str(err.value) == message


def test_invalid_json_names_line_and_column() -> None:
    with pytest.raises(InputError) as err:
        suites_from_json_text('{"name": "s",\n  "cases": [,]}', "bad.json")
    assert str(err.value).startswith("bad.json: not valid JSON (line 2, column")


_ids = st.lists(st.text(min_size=1, max_size=8).filter(str.strip), max_size=3, unique=True)


@st.composite
def _suites(draw: st.DrawFn) -> Suite:
    cases = []
    for i in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(CASE_KINDS))
        include = tuple(draw(_ids))
        exclude = tuple(x for x in draw(_ids) if x not in include) or ("never-" + str(i),)
        cases.append(
            SuiteCase(
                name=f"case {i}",
                kind=kind,
                searches=tuple(
                    draw(st.lists(st.text(min_size=1).filter(str.strip), min_size=1, max_size=3))
                ),
                must_include=include,
                must_exclude=exclude,
                loaded=tuple(draw(_ids)) if kind == "recall" else (),
                k=draw(st.none() | st.integers(1, 9)),
                note=draw(st.text(max_size=10)),
            )
        )
    return Suite(draw(st.text(min_size=1).filter(str.strip)), tuple(cases), draw(st.text()))


@settings(max_examples=150, deadline=None)
@given(_suites())
def test_json_round_trip(suite: Suite) -> None:
    text = suites_to_json_text([suite])
    assert suites_from_json_text(text) == [suite]
    assert json.loads(text)["name"] == suite.name
