"""Unicode and Ax's edge rules against answers recorded from Node and the real package.

The expected values come from `tests/fixtures/ax_text/` (see its README: the output of
Node 20 / ICU 78 and of `@ax-llm/ax@24.0.21` itself, recorded once and committed).
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.core.ax.collation import collation_keys, locale_sorted
from axmem_gui.core.ax.icutext import icu_available, js_lower, js_nfkd, text_engine
from axmem_gui.core.ax.profile import load_profile
from axmem_gui.core.ax.scenario import Scenario, scenario_catalog_json
from axmem_gui.core.ax.search import MemorySearch, SkillSearch
from axmem_gui.core.ax.simulate import simulate
from axmem_gui.core.ax.tokenize import Tokenizer
from axmem_gui.core.formats import catalog_from_json_value

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "ax_text"
PROFILE = load_profile()


def _fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


NODE = _fixture("node-text.json")
E2E = _fixture("ax-e2e.json")["cases"] + _fixture("ax-e2e-random-seed1.json")["cases"]


def test_the_engine_uses_icu() -> None:
    # pyicu-wheels is a dependency with wheels for every platform CI runs on
    assert icu_available()
    engine = text_engine()
    assert engine.name == "ICU" and engine.icu_version is not None
    assert int(engine.unicode_version.split(".")[0]) >= 16
    assert "ICU" in engine.describe()


@pytest.mark.parametrize("items", NODE["collation"], ids=lambda items: " ".join(items[:4]))
def test_locale_compare_order_is_nodes(items: list[str]) -> None:
    shuffled = list(reversed(items))
    assert locale_sorted(shuffled, key=str) == items


def test_issue_examples_sort_like_node() -> None:
    assert locale_sorted(["a", "🥰"], key=str) == ["🥰", "a"]
    assert locale_sorted(["a", "₿", "$"], key=str) == ["$", "₿", "a"]
    assert locale_sorted(["丬", "丷"], key=str) == ["丷", "丬"]  # radical-stroke order
    assert locale_sorted(["中", "㐀"], key=str) == ["㐀", "中"]


def test_every_ascii_string_of_one_or_two_characters_sorts_like_node() -> None:
    strings = [chr(a) + chr(b) for a in range(128) for b in range(128)]
    strings += [chr(a) for a in range(128)]
    rank = NODE["asciiPairsRank"]["rank"]
    assert len(rank) == len(strings)
    keys = collation_keys(strings)
    order = sorted(range(len(strings)), key=keys.__getitem__)
    for left, right in itertools.pairwise(order):
        assert (keys[left] == keys[right]) == (rank[left] == rank[right]), (
            strings[left],
            strings[right],
        )
        assert rank[left] <= rank[right], (strings[left], strings[right])


@pytest.mark.parametrize(("text", "lower"), NODE["lower"])
def test_to_lower_case_is_nodes(text: str, lower: str) -> None:
    assert js_lower(text) == lower


@pytest.mark.parametrize(("text", "nfkd"), NODE["nfkd"])
def test_nfkd_is_nodes(text: str, nfkd: str) -> None:
    assert js_nfkd(text) == nfkd


def test_text_functions_take_lone_surrogates() -> None:
    assert js_lower("A\ud83c") == "a\ud83c"
    assert js_nfkd("ﬁ\udc00") == "fi\udc00"
    assert locale_sorted(["\ud83c", "a\ud83c", "a"], key=str) == ["a", "a\ud83c", "\ud83c"]


def test_new_unicode_name_is_found_by_its_upper_case() -> None:
    # U+A7CC/U+A7CD (Unicode 16): Python 3.11's str.lower() leaves U+A7CC alone
    catalog = catalog_from_json_value(
        {
            "skills": [
                {"id": "s", "name": "ꟍz", "content": "x"},
                {"id": "o", "name": "O", "content": "y"},
            ]
        }
    )
    _, found = SkillSearch(catalog.skills, PROFILE).discover("ꟌZ")
    assert [s.id for s in found] == ["s"]
    assert Tokenizer(PROFILE).prose("ꟌZ") == ["ꟍz"]


def test_memory_search_ties_follow_icu_order() -> None:
    catalog = catalog_from_json_value(
        {"memories": [{"id": i, "content": "pear"} for i in ("a", "🥰", "丬", "丷")]}
    )
    _, found = MemorySearch(catalog.memories, PROFILE).recall("pear")
    assert [m.id for m in found] == ["🥰", "a", "丷"]


# ------------------------------------------------------------------ end to end against Ax


def _turn_errors(sim: Any) -> list[list[Any]]:
    return [[t.index, e] for t in sim.turns for e in t.errors]


@pytest.mark.parametrize("entry", E2E, ids=lambda e: e["case"]["id"])
def test_simulation_gives_axs_answers(entry: dict[str, Any]) -> None:
    case, ax = entry["case"], entry["ax"]
    catalog = catalog_from_json_value(scenario_catalog_json(case), case["id"])
    sim = simulate(catalog, Scenario.from_json(case, case["id"]), PROFILE)
    assert [list(p) for p in sim.on_loaded_skills] == ax["onLoadedSkills"]
    assert [list(p) for p in sim.on_loaded_memories] == ax["onLoadedMemories"]
    assert _turn_errors(sim) == ax["turnErrors"]
    assert len(sim.turns) == ax["executorTurns"]
    if ax["errors"]:
        assert list(sim.errors) == ax["errors"]
    if sim.turns:
        assert sim.turns[-1].loaded_skills == ax["finalLoadedSkills"]
        assert sim.turns[-1].memories == ax["finalMemories"]
    assert sim.hints_text == ax["relevanceHints"]


def test_memory_payload_keeps_the_catalog_objects_keys_and_order() -> None:
    raw = {"tags": "urgent", "content": "alpha memory", "metadata": {"k": 1}, "id": "m1"}
    catalog = catalog_from_json_value({"memories": [raw]})
    payload = catalog.memories[0].to_payload()
    assert payload == raw and list(payload) == list(raw)
    assert catalog.memories[0].tags == ()  # not a list of strings: no studio tags


def test_without_icu_the_fallback_is_named_and_keeps_ascii_order() -> None:
    # A platform without a pyicu-wheels wheel: `import icu` fails (simulated here).
    code = (
        "import sys; sys.modules['icu'] = None\n"
        "from axmem_gui.core.ax.icutext import text_engine\n"
        "from axmem_gui.core.ax.collation import locale_sorted\n"
        "print(text_engine().describe())\n"
        "print(' '.join(locale_sorted(['b', 'A', 'a', '_x', '10', '9'], key=str)))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    described, order = proc.stdout.splitlines()
    assert described.startswith("no ICU: fallback to pyuca DUCET")
    assert order == "_x 10 9 a A b"
