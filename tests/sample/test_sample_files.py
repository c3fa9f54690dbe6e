"""The shipped sample workspace content is well-formed and realistic enough to demo with."""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

import pytest

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.formats import catalog_from_json_text
from axmem_gui.core.suites import suites_from_json_text


def _text(name: str) -> str:
    return (resources.files("axmem_gui") / "sample" / name).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return catalog_from_json_text(_text("catalog.json"), "sample/catalog.json")


def test_catalog_has_enough_real_skills(catalog: Catalog) -> None:
    assert len(catalog.skills) >= 14
    ids = [s.id for s in catalog.skills]
    assert len(set(ids)) == len(ids)
    for skill in catalog.skills:
        assert skill.name.strip() and skill.description.strip(), skill.id
        assert 200 <= len(skill.content) <= 1500, (skill.id, len(skill.content))
        assert re.search(r"^#{1,3} \S", skill.content, re.M), f"{skill.id}: no heading"
        assert re.search(r"^\d+\. \S", skill.content, re.M) or "```" in skill.content, skill.id
        assert skill.tags, skill.id
    with_code = [s.id for s in catalog.skills if "```" in s.content]
    assert len(with_code) >= len(catalog.skills) // 2


def test_catalog_has_enough_memories(catalog: Catalog) -> None:
    assert len(catalog.memories) >= 14
    ids = [m.id for m in catalog.memories]
    assert len(set(ids)) == len(ids)
    for memory in catalog.memories:
        assert 20 <= len(memory.content) <= 400, memory.id


def test_the_ax_documentation_examples_are_present(catalog: Catalog) -> None:
    release = catalog.skill("release-checklist")
    assert release is not None
    assert (release.name, release.description) == (
        "Release checklist",
        "Steps for shipping a new package release safely",
    )
    incident = catalog.skill("incident-response")
    assert incident is not None
    assert (incident.name, incident.description) == (
        "Incident response",
        "How to acknowledge, triage, and escalate incidents",
    )
    style = catalog.skill("style-guide")
    assert style is not None
    assert (style.name, style.description) == (
        "Writing style guide",
        "Tone and formatting rules for customer-facing docs",
    )
    window = catalog.memory("deploy-window")
    assert window is not None
    assert window.content.startswith("Production deploys are only allowed on Tuesday afternoons")
    assert catalog.memory("user-prefs") is not None


def test_deliberate_lint_findings_are_few_and_present(catalog: Catalog) -> None:
    """The lint feature has something to show: one camelCase id and one guide whose key
    terms sit only past Ax's 600-character search cut. The rest stay clean."""
    camel = [s.id for s in catalog.skills if re.search(r"[a-z][A-Z]", s.id)]
    assert camel == ["postmortemTemplate"]
    access = catalog.skill("access-reviews")
    assert access is not None
    for term in ("IAM", "Okta", "Offboarding", "kubeconfig"):
        assert access.content.find(term) > 600, term
        assert term.lower() not in access.content[:600].lower()


def _json(name: str) -> Any:
    return json.loads(_text(name))


def test_scenarios_are_complete_and_reference_the_catalog(catalog: Catalog) -> None:
    scenarios = _json("scenarios.json")
    assert isinstance(scenarios, list) and len(scenarios) >= 2
    names = [s["name"] for s in scenarios]
    assert "Ship 2.4.0" in names and "SEV1 on checkout" in names
    for sc in scenarios:
        assert set(sc) == {
            "name",
            "task",
            "presetSkills",
            "preloadedMemories",
            "turns",
            "relevanceRanking",
        }
        assert isinstance(sc["task"], str) and len(sc["task"]) > 40
        assert sc["turns"], sc["name"]
        for turn in sc["turns"]:
            for key in ("discover", "recall"):
                strings = turn[key]
                assert strings is None or (
                    isinstance(strings, list)
                    and all(isinstance(x, str) and x.strip() for x in strings)
                )
        for skill in sc["presetSkills"]:
            real = catalog.skill(skill["id"])
            assert real is not None and real.content == skill["content"]
        for memory in sc["preloadedMemories"]:
            real_memory = catalog.memory(memory["id"])
            assert real_memory is not None and real_memory.content == memory["content"]
        assert sc["relevanceRanking"] is True


def test_agent_config_is_the_ops_assistant() -> None:
    agents = _json("agents.json")
    assert isinstance(agents, list) and len(agents) == 1
    agent = agents[0]
    assert agent["name"] == "ops-assistant"
    assert agent["signature"] == "userRequest:string -> answer:string"  # both runtimes build it
    assert len(agent["instruction"]) > 100
    assert agent["catalog"] == {"skills": "all", "memories": "all"}
    assert agent["contextMap"] == {"maxChars": 1600, "infiniteEvolve": True}
    assert agent["contextFields"] == []
    assert agent["relevanceRanking"] is True
    assert agent["maxActorSteps"] == 6
    assert agent["runtime"] == "quickjs"


def test_sample_suite_is_large_and_refers_to_real_ids(catalog: Catalog) -> None:
    suites = suites_from_json_text(_text("suites.json"), "sample/suites.json")
    assert [s.name for s in suites] == ["ops-retrieval"]
    cases = suites[0].cases
    assert len(cases) >= 22
    skills = {s.id for s in catalog.skills}
    memories = {m.id for m in catalog.memories}
    for case in cases:
        ids = skills if case.kind == "discover" else memories
        for i in (*case.must_include, *case.must_exclude, *case.loaded):
            assert i in ids, (case.name, i)
    assert sum(1 for c in cases if c.kind == "recall") >= 6
    assert sum(1 for c in cases if c.kind == "recall" and c.loaded) >= 2
    assert sum(1 for c in cases if c.must_exclude) >= 5


def test_every_scenario_search_string_finds_something(catalog: Catalog) -> None:
    """A demo scenario whose search comes back empty would show a wasted turn."""
    from axmem_gui.core.ax.profile import load_profile
    from axmem_gui.core.ax.search import MemorySearch, SkillSearch

    profile = load_profile()
    skills = SkillSearch(catalog.skills, profile)
    memories = MemorySearch(catalog.memories, profile)
    for sc in _json("scenarios.json"):
        for turn in sc["turns"]:
            for search in turn["discover"] or []:
                assert skills.discover([search])[0].result_ids, (sc["name"], search)
            for search in turn["recall"] or []:
                assert memories.recall([search])[0].result_ids, (sc["name"], search)
