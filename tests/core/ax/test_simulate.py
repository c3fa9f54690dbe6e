"""Scenario files and the turn-by-turn simulation."""

from __future__ import annotations

from typing import Any

import pytest

from axmem_gui.core.ax.profile import load_profile
from axmem_gui.core.ax.scenario import Scenario, ScenarioTurn
from axmem_gui.core.ax.simulate import simulate
from axmem_gui.core.catalog import Catalog, Memory, Skill
from axmem_gui.core.errors import InputError

PROFILE = load_profile()
CATALOG = Catalog(
    skills=(
        Skill("release-checklist", "Release checklist", "Steps for a release", "1. Bump"),
        Skill("incident-response", "Incident response", "Escalate incidents", "Page"),
    ),
    memories=(
        Memory("deploy-window", "Deploys only on Tuesday afternoons."),
        Memory("team-roster", "The platform team is Alice and Bob."),
    ),
)


def test_scenario_round_trip() -> None:
    raw = {
        "task": "ship it",
        "presetSkills": [{"name": "Guide", "content": "G"}],
        "preloadedMemories": [{"id": "m", "content": "c"}],
        "turns": [{"discover": ["release"], "recall": None}, {"discover": None, "recall": "x"}],
        "relevanceRanking": {"topK": 1},
    }
    scenario = Scenario.from_json(raw)
    assert scenario.turns[1] == ScenarioTurn(discover=None, recall="x")
    assert Scenario.from_json(scenario.to_json()) == scenario
    assert scenario.to_json()["turns"][0] == {"discover": ["release"], "recall": None}


def test_golden_case_keys_are_accepted() -> None:
    scenario = Scenario.from_json(
        {"id": "c", "note": "n", "skills": [], "discoverCalls": [["a"], ["b"]],
         "recallCalls": [["m"]]}
    )  # fmt: skip
    assert scenario.turns == (
        ScenarioTurn(discover=("a",), recall=("m",)),
        ScenarioTurn(discover=("b",), recall=None),
    )
    assert scenario.query == "task" and scenario.rank_task() == "task -"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ([], "a scenario must be an object"),
        ({"task": 3}, "'task' must be a string"),
        ({"turns": {}}, "'turns' must be a list"),
        ({"turns": [{"discover": [1]}]}, r"turns\[0\].discover\[0\] must be a string"),
        ({"turns": [{"discovr": "x"}]}, "unknown key"),
        ({"turns": [], "discoverCalls": []}, "either 'turns' or"),
        ({"presetSkills": [1]}, r"presetSkills\[0\] must be an object"),
        ({"relevanceRanking": "yes"}, "'relevanceRanking' must be true, false or an object"),
        ({"taks": "x"}, "unknown key"),
    ],
)
def test_bad_scenarios_name_the_problem(raw: Any, message: str) -> None:
    with pytest.raises(InputError, match=message):
        Scenario.from_json(raw, "s.json")


def test_turns_accumulate_state_and_callbacks() -> None:
    scenario = Scenario(
        task="release the deploy",
        preloaded_memories=({"id": " team-roster ", "content": "preloaded"},),
        turns=(
            ScenarioTurn(discover=("release",), recall=("deploy tuesday",)),
            ScenarioTurn(discover=("  ",), recall=("alice",)),
        ),
    )
    sim = simulate(CATALOG, scenario, PROFILE)
    assert len(sim.turns) == 3
    first, second, last = sim.turns
    assert first.loaded_skills is None
    assert first.memories == "### Memory\n\nID: `team-roster`\n\npreloaded"
    assert second.loaded_skills is not None and "ID: `release-checklist`" in second.loaded_skills
    assert second.errors == ("[POLICY] discover(...) skills entries must be non-empty strings.",)
    # the refused discover threw: the turn's code stopped there and recall never ran (Ax)
    assert second.recall is None
    assert last.memories is not None and last.memories.index("deploy-window") < last.memories.index(
        "team-roster"
    )
    assert [[e["id"] for e in p] for p in sim.on_loaded_skills] == [["release-checklist"]]
    assert [[e["id"] for e in p] for p in sim.on_loaded_memories] == [["deploy-window"]]
    assert first.relevance_hints == last.relevance_hints  # computed once per forward
    events = sim.hints.events()
    assert [e["domain"] for e in events] == ["skills", "memories"]
    assert all(e["taskChars"] == len("release the deploy -") for e in events)


def test_relevance_ranking_false_removes_hints() -> None:
    sim = simulate(CATALOG, Scenario(task="release", relevance_ranking=False), PROFILE)
    assert sim.hints.events() == []
    assert sim.turns[0].relevance_hints is None
    assert "Relevance Hints" not in sim.executor_field_titles
    assert sim.internals_json()["hints"] == {"disabled": True, "rendered": None}


def test_calls_without_a_catalog_are_errors_not_crashes() -> None:
    sim = simulate(Catalog(), Scenario(turns=(ScenarioTurn(discover="x", recall="y"),)), PROFILE)
    # calling an undefined discover throws, so the recall after it never runs
    assert len(sim.turns[0].errors) == 1 and sim.turns[0].recall is None
    sim = simulate(Catalog(), Scenario(turns=(ScenarioTurn(recall="y"),)), PROFILE)
    assert len(sim.turns[0].errors) == 1
    assert sim.executor_section is None
