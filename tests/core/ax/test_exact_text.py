"""Issue 31's examples, and their neighbours, against the real package: canonically
equivalent strings in collation (Node's collator normalizes), lone surrogates in strings
that also hold an astral character, and the halves of an emoji that the 600-unit content
cut and the 80-unit snippet cut leave.

Inputs: tests/fixtures/ax_text/exact-text-cases.json; what @ax-llm/ax 24.0.21 did with them
under Node 20.20 / ICU 78.2: exact-text-expected.json (`make golden` regenerates it). Each
case goes through the core API, the indexed search and `axmem conformance run`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.cli.main import main
from axmem_gui.core.ax.collation import locale_sorted
from axmem_gui.core.ax.conformance import run_cases
from axmem_gui.core.ax.icutext import js_lower, js_nfkd
from axmem_gui.core.ax.profile import load_profile
from axmem_gui.core.ax.scenario import Scenario, scenario_catalog_json
from axmem_gui.core.ax.search import MemorySearch, SkillSearch
from axmem_gui.core.ax.simulate import simulate
from axmem_gui.core.ax.tokenize import Tokenizer
from axmem_gui.core.formats import catalog_from_json_value

from .golden import comparable_case, differences

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "ax_text"
CASES_FILE = FIXTURES / "exact-text-cases.json"
CASES = json.loads(CASES_FILE.read_text(encoding="utf-8"))
EXPECTED = json.loads((FIXTURES / "exact-text-expected.json").read_text(encoding="utf-8"))
WANT = {c["id"]: comparable_case(c) for c in EXPECTED["cases"]}
PROFILE = load_profile()
EMOJI = "\U0001f600"


def _case(case_id: str) -> dict[str, Any]:
    return next(c for c in CASES["cases"] if c["id"] == case_id)


def test_the_fixture_is_the_packages_answer() -> None:
    assert EXPECTED["package"] == "@ax-llm/ax@24.0.21"
    assert EXPECTED["icu"].startswith("78.") and EXPECTED["collatorLocale"] == "en-US"
    assert [c["id"] for c in EXPECTED["cases"]] == [c["id"] for c in CASES["cases"]]
    assert all(not c["reimplMismatches"] for c in EXPECTED["cases"])


@pytest.mark.parametrize("case", CASES["cases"], ids=lambda c: c["id"])
def test_case_through_the_core(case: dict[str, Any]) -> None:
    got = run_cases({"cases": [case]}, PROFILE)["cases"][0]
    diffs = differences(got, WANT[case["id"]], case["id"])
    assert not diffs, "\n".join(diffs[:20])


@pytest.mark.parametrize("case", CASES["cases"], ids=lambda c: c["id"])
def test_case_through_the_index(case: dict[str, Any]) -> None:
    catalog = catalog_from_json_value(scenario_catalog_json(case), case["id"])
    sim = simulate(
        catalog,
        Scenario.from_json(case, case["id"]),
        PROFILE,
        skill_search=SkillSearch.indexed(catalog.skills, PROFILE) if catalog.skills else None,
        memory_search=MemorySearch.indexed(catalog.memories, PROFILE)
        if catalog.memories
        else None,
    )
    got = {"id": case["id"], "endToEnd": sim.end_to_end_json(), "internals": sim.internals_json()}
    diffs = differences(got, WANT[case["id"]], case["id"])
    assert not diffs, "\n".join(diffs[:20])


def test_probes_and_cases_through_the_conformance_command(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    assert main(["conformance", "run", str(CASES_FILE), "-o", str(out)]) == 0
    got = json.loads(out.read_text(encoding="utf-8"))
    diffs = differences(got["tokenizer"], EXPECTED["tokenizer"], "tokenizer")
    diffs += differences(got["collation"], EXPECTED["collation"], "collation")
    for got_case in got["cases"]:
        diffs += differences(got_case, WANT[got_case["id"]], got_case["id"])
    assert not diffs, "\n".join(diffs[:20])


# --------------------------------------------------------------- the issue's own words


def test_canonically_equivalent_ids_sort_like_node() -> None:
    # Ax lists Å first; without normalization ICU put ạ́ (marks out of order) first.
    assert locale_sorted(["a\u0301\u0323", "\u00c5"], key=str) == ["\u00c5", "a\u0301\u0323"]
    ax = EXPECTED["cases"][0]["endToEnd"]["executorSystemAvailableSkills"]
    assert ax == "### Available Skills\n- `\u00c5` — B\n- `a\u0301\u0323` — A"
    # shadda+fatha in either order compare 0: catalog order stays (V8's sort is stable)
    shadda_first, fatha_first = "\u0645\u0651\u064e", "\u0645\u064e\u0651"
    for ids in ([shadda_first, fatha_first], [fatha_first, shadda_first]):
        assert locale_sorted(ids, key=str) == ids


def test_a_lone_surrogate_beside_an_emoji_is_kept() -> None:
    tokenizer = Tokenizer(PROFILE)
    assert tokenizer.prose(EMOJI + " ab\ud83c") == [EMOJI, "ab\ud83c"]
    assert js_lower("\u0130" + EMOJI + "\ud800") == "i\u0307" + EMOJI + "\ud800"
    assert js_nfkd("\ufb01" + EMOJI + "\udfff") == "fi" + EMOJI + "\udfff"
    # in Ax's order, not input order
    assert locale_sorted([EMOJI + "\udc00", EMOJI + "\ud83d"], key=str) == [
        EMOJI + "\ud83d",
        EMOJI + "\udc00",
    ]
    recall = EXPECTED["cases"][5]["internals"]["memories"]["calls"][0]
    assert recall["resultIds"] == ["hi"]


def test_half_an_emoji_from_the_600_cut_is_not_u_fffd() -> None:
    case = _case("half-emoji-600-cut")
    catalog = catalog_from_json_value(scenario_catalog_json(case))
    search = MemorySearch(catalog.memories, PROFILE)
    assert [m.id for m in search.recall(["deploy\ufffd"], [])[1]] == []
    assert [m.id for m in search.recall(["deploy\ud83d"], [])[1]] == ["cut"]


def test_deleting_a_mark_can_join_a_surrogate_pair() -> None:
    from axmem_gui.core.ax.icutext import js_canonical

    assert js_canonical("x\ud83d\ude00y") == "x" + EMOJI + "y"
    assert js_canonical("\ude00\ud83d") == "\ude00\ud83d"
    assert Tokenizer(PROFILE).prose("x\ud83d\u0301\ude00y") == ["x" + EMOJI + "y"]
