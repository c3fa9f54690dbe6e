"""Lower-casing and NFKD where Node's ICU (78, Unicode 17) is newer than the wheel's (77):
Node's answers (tests/fixtures/ax_text/newer-unicode-node.json, `make golden`) on probes
mixing the new capitals, the new combining marks, U+A7F1, capital sigmas (whose final form
depends on cased neighbours, some of them new), old marks and lone surrogates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.core.ax.collation import locale_sorted
from axmem_gui.core.ax.icutext import js_lower, js_nfkd, text_engine
from axmem_gui.core.ax.newer_unicode import newer_text
from axmem_gui.core.ax.profile import load_profile
from axmem_gui.core.ax.search import MemorySearch, SkillSearch
from axmem_gui.core.ax.tokenize import Tokenizer
from axmem_gui.core.formats import catalog_from_json_value

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "ax_text"
NODE = json.loads((FIXTURES / "newer-unicode-node.json").read_text(encoding="utf-8"))
PROFILE = load_profile()


def test_the_fixture_is_nodes_and_newer_than_the_wheel() -> None:
    assert NODE["icu"] == "78.2" and NODE["unicode"] == "17.0"
    assert text_engine().icu_version is not None
    assert newer_text(text_engine().icu_version) is not None
    assert newer_text("78.2") is None and newer_text("79.1") is None


@pytest.mark.parametrize("answer", NODE["answers"], ids=lambda a: ascii(a["text"])[:40])
def test_lower_and_nfkd_are_nodes(answer: dict[str, Any]) -> None:
    assert js_lower(answer["text"]) == answer["lower"]
    assert js_nfkd(answer["text"]) == answer["nfkd"]


def test_the_former_residuals_now_find_what_ax_finds() -> None:
    # (tools/conformance/known_differences.json listed these until Node's data came in)
    skills = catalog_from_json_value({"skills": [{"id": "s", "name": "\ua7cfz", "content": "x"}]})
    assert [s.id for s in SkillSearch(skills.skills, PROFILE).discover(["\ua7ceZ"])[1]] == ["s"]
    memories = catalog_from_json_value(
        {"memories": [{"id": "m", "content": "server"}, {"id": "n", "content": "other"}]}
    )
    found = MemorySearch(memories.memories, PROFILE).recall(["\ua7f1erver"], [])[1]
    assert [m.id for m in found] == ["m"]  # U+A7F1 decomposes to S
    assert Tokenizer(PROFILE).prose("\ua7f1q") == []  # "sq", a stopword, as in Ax


PROBES = json.loads((FIXTURES / "newer-unicode-probes.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("given", "items"), list(zip(PROBES["collation"], NODE["collation"], strict=True))
)
def test_han_and_tangut_moved_by_unicode_17_sort_like_node(
    given: list[str], items: list[str]
) -> None:
    # (were the icu78-collation-han residual: ICU 77 had them at their Unicode 16 places;
    # U+2F992 and U+52B3 are canonically equivalent: equal, so they keep the given order)
    assert locale_sorted(given, key=str) == items


def test_a_final_sigma_sees_the_new_cased_letters() -> None:
    assert js_lower("\u03a3\ua7ce") == "\u03c3\ua7cf"  # followed by a cased letter
    assert js_lower("\ua7cf\u03a3") == "\ua7cf\u03c2"  # final after one
    assert js_lower("A\u03a3\u1acf") == "a\u03c2\u1acf"  # a new mark is case-ignorable
