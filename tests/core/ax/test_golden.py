"""The whole golden set from @ax-llm/ax 24.0.21: every string, every id and its order,
every score (within 1e-9, and in fact bit for bit), through the core API, the indexed
search and the `axmem conformance run` command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.cli.main import main
from axmem_gui.core.ax.conformance import run_cases
from axmem_gui.core.ax.profile import load_profile
from axmem_gui.core.ax.scenario import Scenario, scenario_catalog_json
from axmem_gui.core.ax.search import MemorySearch, SkillSearch
from axmem_gui.core.ax.simulate import simulate
from axmem_gui.core.formats import catalog_from_json_value

from .golden import GOLDEN_DIR, comparable_case, differences, golden_file


@pytest.fixture(scope="module")
def cases() -> Any:
    return golden_file("cases.json")


@pytest.fixture(scope="module")
def expected() -> Any:
    return golden_file("expected.json")


def _all_differences(got: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    diffs = differences(got["tokenizer"], expected["tokenizer"], "tokenizer")
    diffs += differences(got["collation"], expected["collation"], "collation")
    assert [c["id"] for c in got["cases"]] == [c["id"] for c in expected["cases"]]
    for got_case, want_case in zip(got["cases"], expected["cases"], strict=True):
        diffs += differences(got_case, comparable_case(want_case), want_case["id"])
    return diffs


def test_golden_set_through_core(cases: Any, expected: Any) -> None:
    got = run_cases(cases, load_profile("24.0.21"))
    assert len(got["cases"]) == len(expected["cases"]) == 48
    diffs = _all_differences(got, expected)
    assert not diffs, "\n".join(diffs[:30])


def test_golden_scores_are_bit_identical(cases: Any, expected: Any) -> None:
    got = run_cases(cases, load_profile())
    pairs = 0
    for got_case, want_case in zip(got["cases"], expected["cases"], strict=True):
        for domain in ("skills", "memories"):
            want_calls = want_case["internals"][domain].get("calls", [])
            got_calls = got_case["internals"][domain].get("calls", [])
            for got_call, want_call in zip(got_calls, want_calls, strict=True):
                for gq, wq in zip(got_call["perQuery"], want_call["perQuery"], strict=True):
                    for g, w in zip(gq["ranked"], wq["ranked"], strict=True):
                        for key in ("raw", "coverage", "score"):
                            assert g[key] == w[key], (want_case["id"], g["id"], key)
                            pairs += 1
        for g, w in zip(
            got_case["endToEnd"]["relevanceRankingEvents"],
            want_case["endToEnd"]["relevanceRankingEvents"],
            strict=True,
        ):
            for gs, ws in zip(g["shortlist"], w["shortlist"], strict=True):
                assert gs["score"] == ws["score"]
    assert pairs > 100


def test_golden_stopwords_match_the_profile(expected: Any) -> None:
    profile = load_profile()
    assert profile.stopwords == frozenset(expected["stopwords"])
    assert len(profile.stopwords) == 1159


def test_golden_set_through_the_index(cases: Any, expected: Any) -> None:
    """The inverted index gives the same end-to-end results as the plain ranker."""
    profile = load_profile()
    want_by_id = {c["id"]: c for c in expected["cases"]}
    for case in cases["cases"]:
        catalog = catalog_from_json_value(scenario_catalog_json(case))
        sim = simulate(
            catalog,
            Scenario.from_json(case),
            profile,
            skill_search=SkillSearch.indexed(catalog.skills, profile) if catalog.skills else None,
            memory_search=MemorySearch.indexed(catalog.memories, profile)
            if catalog.memories
            else None,
        )
        got = {
            "id": case["id"],
            "endToEnd": sim.end_to_end_json(),
            "internals": sim.internals_json(),
        }
        diffs = differences(got, comparable_case(want_by_id[case["id"]]), case["id"])
        assert not diffs, "\n".join(diffs[:30])


def test_golden_set_through_the_conformance_command(tmp_path: Path, expected: Any) -> None:
    out = tmp_path / "out.json"
    code = main(["conformance", "run", str(GOLDEN_DIR / "cases.json"), "-o", str(out)])
    assert code == 0
    got = json.loads(out.read_text(encoding="utf-8"))
    diffs = _all_differences(got, expected)
    assert not diffs, "\n".join(diffs[:30])
