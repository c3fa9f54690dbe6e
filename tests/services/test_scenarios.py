"""Workspace scenarios: documents with a name, simulation, the prompt preview sections, and
`axmem simulate --workspace W --scenario NAME`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from axmem_gui.cli.main import main
from axmem_gui.core.ax.profile import load_profile
from axmem_gui.core.ax.render import user_turn_field
from axmem_gui.core.ax.scenario import Scenario
from axmem_gui.core.ax.search import MemorySearch, SkillSearch
from axmem_gui.core.ax.simulate import simulate
from axmem_gui.core.errors import InputError
from axmem_gui.core.scenarios import (
    ScenarioDocument,
    new_scenario_document,
    scenario_from_document,
    unique_name,
)
from axmem_gui.services.scenarios import (
    SECTION_HINTS,
    SECTION_LOADED,
    SECTION_MEMORIES,
    SECTION_SKILLS,
    TurnLoads,
    preview_from_simulation,
    preview_scenario,
    simulate_scenario,
    simulate_workspace_scenario,
    token_estimate,
    turn_calls_summary,
)
from axmem_gui.services.store_access import store_of
from axmem_gui.services.workspace import OpenWorkspace, init_workspace, open_workspace


@pytest.fixture
def ws(tmp_path: Path) -> OpenWorkspace:
    return init_workspace(tmp_path / "s.axmem", sample=True)


def test_documents_keep_their_name_outside_the_scenario(ws: OpenWorkspace) -> None:
    data = store_of(ws).scenarios.get("Ship 2.4.0")
    assert data is not None and data["name"] == "Ship 2.4.0"
    scenario = scenario_from_document(data)
    assert scenario.task is not None and scenario.task.startswith("Ship @acme/payments-sdk")
    assert len(scenario.turns) == 2
    doc = ScenarioDocument("Other", scenario).to_json()
    assert doc["name"] == "Other"
    assert scenario_from_document(doc) == scenario
    with pytest.raises(InputError, match="'name' must be a non-empty string"):
        scenario_from_document({**data, "name": " "})
    with pytest.raises(InputError, match=r"turns\[0\]\.discover\[1\] must be a string"):
        scenario_from_document({"name": "x", "turns": [{"discover": ["a", 3]}]}, "x")
    new = new_scenario_document("n", "do it")
    assert new.to_json() == {"name": "n", **Scenario("do it").to_json()}


def test_unknown_scenario_names_the_available_ones(ws: OpenWorkspace) -> None:
    with pytest.raises(InputError, match=r"no scenario named 'nope'.*'SEV1 on checkout'"):
        ws.scenarios.load("nope")
    assert unique_name(["a", "a 2"], "a") == "a 3"
    assert unique_name(["b"], "a") == "a"


def test_indexed_simulation_equals_the_plain_engine(ws: OpenWorkspace) -> None:
    profile = load_profile()
    catalog = ws.catalog.snapshot()
    for name in ws.scenarios.names():
        scenario = ws.scenarios.load(name)
        plain = simulate(
            catalog, scenario, profile,
            skill_search=SkillSearch(catalog.skills, profile),
            memory_search=MemorySearch(catalog.memories, profile),
        )
        fast = simulate_scenario(catalog, scenario, profile)
        assert fast.end_to_end_json() == plain.end_to_end_json()
        assert fast.internals_json() == plain.internals_json()
    _, sim = simulate_workspace_scenario(ws, "Ship 2.4.0")
    assert sim.turns[1].loaded_skills is not None


def test_preview_sections_are_the_engine_strings(ws: OpenWorkspace) -> None:
    scenario = ws.scenarios.load("SEV1 on checkout")
    sim = simulate_scenario(ws.catalog.snapshot(), scenario)
    for stage, section in (("executor", sim.executor_section),
                           ("distiller", sim.distiller_section)):
        for turn, view in enumerate(sim.turns):
            preview = preview_from_simulation(sim, stage, turn)
            assert section is not None
            assert preview.section(SECTION_SKILLS).text == section.text
            assert preview.section(SECTION_LOADED).text == user_turn_field(
                "Loaded Skills", view.loaded_skills
            )
            assert preview.section(SECTION_MEMORIES).text == user_turn_field(
                "Memories", view.memories
            )
            assert preview.section(SECTION_HINTS).text == user_turn_field(
                "Relevance Hints", view.relevance_hints
            )
            assert preview.chars == sum(s.chars for s in preview.sections)
            assert preview.tokens == token_estimate(preview.chars)
    # the preset skill is loaded from the first turn; the first call's skills later
    first = preview_from_simulation(sim, "executor", 0).section(SECTION_LOADED).text
    assert first is not None and first.startswith("Loaded Skills: ") and "style-guide" in first
    assert preview_from_simulation(sim, "executor", 99).turn == len(sim.turns) - 1


def test_preview_without_a_scenario_and_runtime_override(ws: OpenWorkspace) -> None:
    catalog = ws.catalog.snapshot()
    python = simulate_scenario(catalog, preview_scenario(None, "Python"))
    js = simulate_scenario(catalog, preview_scenario(None, "JavaScript"))
    py_text = preview_from_simulation(python, "executor", 0).section(SECTION_SKILLS).text
    js_text = preview_from_simulation(js, "executor", 0).section(SECTION_SKILLS).text
    assert py_text != js_text
    loaded = preview_from_simulation(js, "executor", 0).section(SECTION_LOADED)
    assert loaded.text is None and "omitted" in loaded.note
    assert preview_scenario(Scenario(runtime="Python")).runtime == "Python"


def test_turn_calls_summary_lists_loaded_ids(ws: OpenWorkspace) -> None:
    sim = simulate_scenario(ws.catalog.snapshot(), ws.scenarios.load("SEV1 on checkout"))
    summary = turn_calls_summary(sim)
    assert len(summary) == 3
    assert summary[2] == TurnLoads(None, None)
    first = summary[0].discover
    assert first is not None and "incident-response" in first


def test_cli_simulates_a_workspace_scenario(
    ws: OpenWorkspace, capsys: pytest.CaptureFixture[str]
) -> None:
    path = ws.path
    ws.close()
    assert main(["simulate", "--workspace", str(path), "--scenario", "Ship 2.4.0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    with open_workspace(path) as again:
        expected = simulate_scenario(again.catalog.snapshot(), again.scenarios.load("Ship 2.4.0"))
    assert out["endToEnd"] == json.loads(json.dumps(expected.end_to_end_json()))
    assert main(["simulate", "--workspace", str(path), "--scenario", "nope"]) == 2
    assert "no scenario named 'nope'" in capsys.readouterr().err
    assert main(["simulate", "--workspace", str(path)]) == 2
    assert "SCENARIO.json" in capsys.readouterr().err
