"""Turn rules recorded from the real @ax-llm/ax 24.0.21 (tests/fixtures/ax_turns/, `make
golden`): a refused call is recorded with Ax's error, a throw ends the turn's code (a recall
after a refused or undefined `discover` never runs), a `"\\n"` description merges into the
definition's newline collapse, and an empty task makes no call though the agent exists."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.core.ax.conformance import run_cases
from axmem_gui.core.ax.profile import load_profile

from .golden import comparable_case, differences

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "ax_turns"


def _load(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


CASES = _load("cases.json")
EXPECTED = {c["id"]: c for c in _load("expected.json")["cases"]}
JSRUNTIME = {c["id"]: c for c in _load("jsruntime.json")["cases"]}
OURS = {c["id"]: c for c in run_cases(CASES, load_profile("24.0.21"))["cases"]}


@pytest.mark.parametrize("case_id", list(EXPECTED))
def test_every_case_gives_axs_answer(case_id: str) -> None:
    diffs = differences(OURS[case_id], comparable_case(EXPECTED[case_id]), case_id)
    assert not diffs, "\n".join(diffs)


@pytest.mark.parametrize("case_id", list(JSRUNTIME))
def test_payloads_are_those_of_axs_own_code_runtime(case_id: str) -> None:
    ours, ax = OURS[case_id]["endToEnd"], JSRUNTIME[case_id]
    assert ours["onLoadedSkills"] == ax["onLoadedSkills"]
    assert ours["onLoadedMemories"] == ax["onLoadedMemories"]


def test_discover_without_a_skills_catalog_ends_the_turn() -> None:
    ours = OURS["discover-without-skills-ends-the-turn"]
    # turn 0: discover is not defined, so recall(['alpha']) never runs; turn 1 recalls beta
    assert [c["queries"] for c in ours["internals"]["memories"]["calls"]] == [["beta"]]
    assert ours["endToEnd"]["onLoadedMemories"] == [[{"id": "n", "content": "beta"}]]
    assert "skills" not in ours["internals"] or "calls" not in ours["internals"]["skills"]


def test_a_refused_call_is_recorded_with_axs_error() -> None:
    calls = OURS["refused-recall-and-empty-lists"]["internals"]
    assert calls["skills"]["calls"][0] == {
        "queries": None,
        "error": "[POLICY] discover(...) skills requires at least one entry.",
        "perQuery": [],
        "resultIds": [],
    }
    assert calls["memories"]["calls"][0] == {
        "queries": None,
        "alreadyLoadedIds": [],
        "error": "[POLICY] recall(...) entries must be non-empty strings.",
        "perQuery": [],
        "resultIds": [],
    }


def test_a_newline_description_last_merges_into_the_blank_line() -> None:
    block = OURS["newline-description-last"]["internals"]["skills"]["executorDefinitionBlock"]
    assert block == "### Available Skills\n- `a` — A\n- `b` — R — "


def test_an_empty_task_makes_no_call_but_the_agent_has_its_definitions() -> None:
    ours = OURS["empty-task-with-catalog"]
    assert ours["endToEnd"]["executorTurns"] == []
    assert ours["internals"]["skills"]["calls"] == []
    assert ours["internals"]["memories"]["calls"] == []
    assert ours["internals"]["skills"]["executorDefinitionBlock"] == (
        "### Available Skills\n- `alpha` — Alpha"
    )
