"""Eval sets: parsing refuses what would make a case meaningless, with a message naming
the set, the case and the field."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from axmem_gui.core.errors import InputError
from axmem_gui.core.evals.model import (
    check_against,
    eval_set_from_json_value,
    eval_sets_from_json_text,
    eval_sets_to_json_text,
)
from tests.evals.conftest import SET_JSON, make_set


def _with(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    doc = copy.deepcopy(SET_JSON)
    target: Any = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return doc


@pytest.mark.parametrize(
    ("path", "value", "words"),
    [
        (("cases", 0, "skills", "lood"), ["x"], "unknown field 'lood'"),
        (("cases", 0, "skills", "avoid"), ["incident-triage"], "in both 'load' and 'avoid'"),
        (("cases", 0, "repeat"), 0, "'repeat' must be an integer from 1 to 100"),
        (("cases", 0, "threshold"), 1.5, "'threshold' must be a number from 0 to 1"),
        (("cases", 0, "inputs"), {}, "'inputs' must be a non-empty object, got an empty object"),
        (("cases", 1, "name"), "most severe", "duplicate case name 'most severe'"),
        (("agent",), "", "'agent' must be a non-empty string, got ''"),
        (("cases", 1, "skills"), {"load": [], "avoid": []}, "needs at least one skill or memory"),
    ],
)
def test_bad_sets_are_refused_with_a_message_naming_the_place(
    path: tuple[Any, ...], value: Any, words: str
) -> None:
    with pytest.raises(InputError) as err:
        eval_set_from_json_value(_with(path, value), "evals.json")
    assert words in str(err.value)
    assert str(err.value).startswith("evals.json")


def test_a_set_round_trips_through_json_text() -> None:
    eval_set = make_set()
    assert eval_sets_from_json_text(eval_sets_to_json_text([eval_set]), "x") == [eval_set]


def test_repeat_and_threshold_default_to_the_set_and_an_override_wins() -> None:
    doc = _with(("cases", 0, "repeat"), 5)
    eval_set = eval_set_from_json_value(doc, "x")
    first, second = eval_set.cases
    assert eval_set.repeat_of(first) == 5 and eval_set.repeat_of(second) == 2
    assert eval_set.repeat_of(first, 1) == 1
    assert eval_set.threshold_of(second) == 0.5


def test_check_against_names_missing_inputs_and_unknown_ids() -> None:
    problems = check_against(
        make_set(), ("document", "query", "audience"), ["incident-triage"], ["mem-checkout-owner"]
    )
    assert "case 'most severe': no value for input 'audience'" in problems
    assert "case 'most severe': no skill 'release-notes' in the agent's catalog" in problems
    assert "case 'search incidents': no skill 'search-tuning' in the agent's catalog" in problems


def test_sets_write_lone_surrogates_and_speak_the_one_type_vocabulary() -> None:
    # The eval writer used json.dumps: a request text cut inside an emoji (as Ax's own
    # UTF-16 cuts make) could not be written to a UTF-8 file. It escapes like JSON.stringify.
    value = copy.deepcopy(SET_JSON)
    value["cases"][0]["inputs"] = {k: "pear \ud83c" for k in value["cases"][0]["inputs"]}
    text = eval_sets_to_json_text([eval_set_from_json_value(value)])
    text.encode("utf-8")
    assert "\\ud83c" in text
    assert eval_sets_from_json_text(text)[0].to_json() == eval_set_from_json_value(value).to_json()
    # Types are named as in every other file's errors ("a number", not "int").
    with pytest.raises(InputError, match="expected an eval set or a list of them, got a number"):
        eval_sets_from_json_text("42")
    with pytest.raises(InputError, match="'evals' must be a list"):
        eval_sets_from_json_text('{"evals": {}}')


def test_catalog_digest_of_a_catalog_holding_a_lone_surrogate() -> None:
    # Ax accepts such a catalog; the eval run's digest of it raised UnicodeEncodeError.
    from axmem_gui.core.catalog import Catalog, Memory
    from axmem_gui.services.eval_running import catalog_digest

    cut = Catalog(skills=(), memories=(Memory("m", "x" * 79 + "\ud83c"),))
    whole = Catalog(skills=(), memories=(Memory("m", "x" * 79 + "🍐"),))
    assert catalog_digest(cut).startswith("sha256:")
    assert catalog_digest(cut) != catalog_digest(whole)


def test_values_the_agent_would_refuse_stop_the_set_before_it_runs(ws: Any) -> None:
    """A case whose value axllm's input check refuses (a string where a number is wanted,
    a list for a string) failed only once its run started, case by case: now the check a
    run makes first (and the case editor before saving) names it in axllm's words."""
    good = make_set()
    assert ws.evals.problems(good) == []
    value = copy.deepcopy(SET_JSON)
    first = next(iter(value["cases"][0]["inputs"]))
    value["cases"][0]["inputs"][first] = ["not", "text"]
    problems = ws.evals.problems(eval_set_from_json_value(value))
    assert problems == [f"case 'most severe': Expected '{first}' to be a string"]
