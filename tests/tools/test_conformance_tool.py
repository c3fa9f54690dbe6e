"""The differential conformance tool (tools/conformance): seeded inputs, comparison, shrinking.

Its run against the real package needs Node and npm (`make conformance`, a CI step); these
tests cover the parts that decide what is generated and what counts as a difference."""

from __future__ import annotations

import copy
import datetime as dt
import json
import time
from pathlib import Path
from typing import Any

from axmem_gui.core.ax.conformance import run_case
from axmem_gui.core.ax.profile import DEFAULT_AX_VERSION, load_profile
from tests.core.ax.golden import golden_file
from tools.conformance.__main__ import (
    FIXED_SEED,
    daily_seed,
    known_class,
    load_known,
    replace_chars,
    residual_chars,
)
from tools.conformance.compare import (
    cli_run,
    compare_case,
    compare_context_map,
    compare_ours,
    ours_case,
    ours_context_map,
)
from tools.conformance.generate import KINDS, generate, kind_of
from tools.conformance.shrink import shrink


def test_same_seed_same_inputs_and_other_seed_other_inputs() -> None:
    a, b, c = generate(FIXED_SEED), generate(FIXED_SEED), generate(FIXED_SEED + 1)
    assert json.dumps(a) == json.dumps(b)
    assert json.dumps(a) != json.dumps(c)


def test_a_run_has_at_least_300_cases_of_every_kind() -> None:
    data = generate(FIXED_SEED)
    assert len(data["cases"]) + len(data["contextMap"]) >= 300
    kinds = {kind_of(c["id"]) for c in data["cases"]}
    assert kinds == set(KINDS)


def test_inputs_hold_the_hostile_material_the_issue_names() -> None:
    data = generate(FIXED_SEED)
    text = json.dumps(data)  # ASCII-escaped: lone surrogates survive as \udXXX
    for needle in ("\\ud800", "\\udfff", "\\ud83d\\ude80", "\\u65e5\\u672c", "\\u3000"):
        assert needle in text, needle
    cases = data["cases"]
    cut = [c for c in cases if kind_of(c["id"]) == "cut-600"]

    def unit(text: str, i: int) -> int:  # the i-th UTF-16 code unit
        return int.from_bytes(text.encode("utf-16-le")[2 * i : 2 * i + 2], "little")

    # an astral emoji whose surrogate pair straddles the 600-unit cut (units 599 and 600)
    assert any(
        0xD800 <= unit(s["content"], 599) <= 0xDBFF for c in cut for s in c.get("skills", [])
    )
    assert any(c.get("task") == "" for c in cases)
    assert any(len(c.get("skills", [])) >= 150 for c in cases)
    assert any("relevanceRanking" in c for c in cases)
    assert any(c.get("preloadedMemories") for c in cases)
    assert any("enabled" in s or "tags" in s for c in cases for s in c.get("skills", []))


def test_the_new_kinds_hold_what_issue_31_found() -> None:
    """Marks out of canonical order in four scripts, lone surrogates beside astral
    characters, and half emoji left by both cuts in texts that hold a whole one."""
    from axmem_gui.core.ax.icutext import js_nfkd
    from axmem_gui.core.ax.jstext import collapse_whitespace, js_trim, utf16_slice

    cases = generate(FIXED_SEED)["cases"]

    def of(kind: str) -> list[dict[str, Any]]:
        return [c for c in cases if kind_of(c["id"]) == kind]

    ids = {e["id"] for c in of("nonfcd-marks") for e in c["skills"] + c["memories"]}
    non_canonical = {i for i in ids if js_nfkd(i) != i and js_nfkd(i[:1]) == i[:1]}
    scripts = {"Latin": "aeo", "Arabic": "\u0645\u0628\u0644", "Hebrew": "\u05e9\u05d1",
               "Indic": "\u0915\u0995\u0a15"}  # fmt: skip
    for script, letters in scripts.items():
        assert any(i[0] in letters for i in non_canonical), script

    def astral_and_lone(text: str) -> bool:
        has_astral = any(ord(ch) > 0xFFFF for ch in text)
        return has_astral and any(0xD800 <= ord(ch) <= 0xDFFF for ch in text)

    texts = [json.dumps(c, ensure_ascii=False) for c in of("astral-surrogates")]
    assert sum(map(astral_and_lone, texts)) >= len(texts) // 2

    def halves(kind: str, cut: int, snippet: bool) -> int:
        count = 0
        for c in of(kind):
            for entry in c.get("skills", []) + c.get("memories", []):
                text = js_trim(collapse_whitespace(entry["content"])) if snippet else entry[
                    "content"
                ]
                kept = utf16_slice(text, cut)
                count += 0xD800 <= ord(kept[-1]) <= 0xDBFF and astral_and_lone(kept)
        return count

    assert halves("half-emoji-600", 600, snippet=False) >= 20
    assert halves("half-emoji-80", 80, snippet=True) >= 20


def test_daily_seed_is_the_utc_date() -> None:
    assert daily_seed(dt.date(2026, 12, 1)) == 20261201


def test_a_changed_answer_is_a_difference_and_the_golden_answer_is_not(tmp_path: Path) -> None:
    profile = load_profile(DEFAULT_AX_VERSION)
    cases = golden_file("cases.json")["cases"]
    expected = golden_file("expected.json")["cases"]
    case, ax = cases[0], expected[0]
    assert compare_case(case, ax, profile, tmp_path) == []
    tampered = copy.deepcopy(ax)
    tampered["internals"]["skills"]["calls"][0]["perQuery"][0]["ranked"][0]["raw"] += 1e-6
    assert compare_case(case, tampered, profile, tmp_path) == [
        ".internals.skills.calls[0].perQuery[0].ranked[0].raw: "
        f"ours {ax['internals']['skills']['calls'][0]['perQuery'][0]['ranked'][0]['raw']!r}, "
        f"Ax {tampered['internals']['skills']['calls'][0]['perQuery'][0]['ranked'][0]['raw']!r}"
    ]


def test_context_map_answers_are_compared_field_by_field() -> None:
    case: dict[str, Any] = {
        "id": "cm",
        "snapshot": {"version": 1, "text": "## CONTEXT UNDERSTANDING\n[cu-00001] a"},
        "payload": {"operations": [{"type": "ADD", "section": "parsing_schema", "content": "x"}]},
    }
    ours = ours_context_map(case)
    assert ours["status"] == "updated" and ours["step"] == 1
    assert compare_context_map(case, ours) == []
    other = {**ours, "snapshot": {**ours["snapshot"], "text": ours["snapshot"]["text"] + "y"}}
    assert len(compare_context_map(case, other)) == 1


def test_shrink_keeps_only_what_the_difference_needs() -> None:
    case = generate(FIXED_SEED)["cases"][0]
    case["skills"] = [*case.get("skills", []), {"id": "culprit", "name": "N", "content": "c"}]

    def differs(c: dict[str, Any]) -> bool:
        return any(s.get("id") == "culprit" for s in c.get("skills", []))

    small = shrink(case, differs, time.monotonic() + 30)
    assert small["skills"] == [{"id": "culprit", "name": "N", "content": "c"}]
    assert set(small) == {"id", "skills"}


def test_the_cli_path_reports_output_or_what_went_wrong(tmp_path: Path) -> None:
    case = generate(FIXED_SEED)["cases"][0]
    output, failure = cli_run({"cases": [case]}, tmp_path / "ok")
    assert failure is None and output is not None
    assert output["cases"][0] == run_case(case, load_profile(DEFAULT_AX_VERSION), "x")
    output, failure = cli_run({"cases": "not a list"}, tmp_path / "bad")
    assert output is None
    assert failure == "axmem conformance run exited 2: axmem: error: " + (
        f"{tmp_path / 'bad' / 'cases.json'}: 'cases' must be a list"
    )


def test_known_differences_are_icu_residuals_each_with_characters_and_a_reproduction() -> None:
    known = load_known()
    # Lower-casing, NFKD and the moved Han and Tangut follow Node's data now
    # (text-icu-78.2.json): only the collation of the characters new in Unicode 17 is left.
    assert set(known) == {"icu78-collation-unicode17"}
    sizes = {name: len(entry["charset"]) for name, entry in known.items()}
    assert sizes == {"icu78-collation-unicode17": 4803}  # docs/ax-text.md
    for name, entry in known.items():
        assert len(entry["reason"]) > 40
        for repro in entry["repros"]:
            assert name in residual_chars(repro, known), (name, repro)


def test_a_residual_counts_only_when_its_characters_alone_cause_the_difference() -> None:
    known = load_known()
    stand_ins = {"\ua7cf": "\u1d24", "\u1acf": "\u1acb", "\U0001f6d8": "\U0001f6d7"}
    case = {"id": "x", "memories": [{"id": "\ua7cf", "content": "coin"}], "recallCalls": [["c"]]}
    seen: list[Any] = []

    def still_differs(answer: bool) -> Any:
        def check(c: dict[str, Any]) -> bool:
            seen.append(c)
            return answer

        return check

    assert known_class(case, known, still_differs(False), stand_ins) == (
        "icu78-collation-unicode17"
    )
    # re-run with the character replaced by its stand-in from Node, not deleted
    assert seen[0]["memories"][0]["id"] == "\u1d24"
    # another cause in the same case (the difference stays with the stand-ins): unexpected
    assert known_class(case, known, still_differs(True), stand_ins) is None
    # no listed character: unexpected, whatever the kind
    plain = {"id": "s1-unicode-recent-000", "memories": [{"id": "m", "content": "a"}]}
    assert known_class(plain, known, still_differs(False), stand_ins) is None
    # a listed character without a stand-in is never excused
    assert known_class(case, known, still_differs(False), {}) is None
    assert replace_chars({"a": ["\ua7cfx", 3]}, {"\ua7cf": "\u1d24"}) == {"a": ["\u1d24x", 3]}


BPRIME = Path(__file__).resolve().parents[1] / "fixtures" / "conformance"


def test_half_an_emoji_beside_a_unicode_17_emoji_is_not_excused(monkeypatch: Any) -> None:
    """Issue 31: B' (a lone surrogate left by the 600-unit cut in a text holding an astral
    character) with the early emoji replaced by U+1F6D8, which is listed as a collation
    residual. The old rule replaced it by 'q', which also removed the only astral
    character, and excused the case. With the stand-in from Node the bug stays visible."""
    from axmem_gui.core.ax import icutext

    cases = json.loads((BPRIME / "bprime-unicode17-cases.json").read_text(encoding="utf-8"))
    ax = json.loads((BPRIME / "bprime-unicode17-expected.json").read_text(encoding="utf-8"))
    by_memories = {
        json.dumps(c["memories"]): a for c, a in zip(cases["cases"], ax["cases"], strict=True)
    }
    profile = load_profile(DEFAULT_AX_VERSION)

    def still_differs(case: dict[str, Any]) -> bool:
        answer = by_memories[json.dumps(case["memories"])]
        return bool(compare_ours(ours_case(case, profile), answer))

    known = load_known()
    stand_ins = cases["standInsFromNode"]
    original, deleted, stood_in = cases["cases"]
    assert "icu78-collation-unicode17" in residual_chars(original, known)
    # the engine as it is: identical to Ax in every variant
    assert not any(map(still_differs, cases["cases"]))
    # bug B back (PyICU's UTF-32 conversion turns the lone surrogate into U+FFFD)
    monkeypatch.setattr(icutext, "_utf16_units", lambda text: text)
    assert still_differs(original) and still_differs(stood_in)
    assert not still_differs(deleted)  # why the old rule excused it
    assert known_class(original, known, still_differs, stand_ins) is None
