"""Where the studio's runs (axllm) and a TypeScript app (Ax) show a catalog differently,
named entry by entry, and the lint findings that say so."""

from __future__ import annotations

from axmem_gui.core.ax.profile import AXLLM_PROFILE, TS_PROFILE, load_profile
from axmem_gui.core.ax.runtime_diff import CLEANUP, CUT, ORDER, runtime_differences, summary
from axmem_gui.core.catalog import Catalog, Memory, Skill
from axmem_gui.core.lint import lint_catalog

TS, AXLLM = load_profile(TS_PROFILE), load_profile(AXLLM_PROFILE)
EMOJI = "\U0001f600"


def _skills(*ids: str) -> tuple[Skill, ...]:
    return tuple(Skill(i, f"Name {i}", "", "content") for i in ids)


def test_the_issues_catalog_names_the_skills_axllm_lists_elsewhere() -> None:
    skills = _skills("Deploy-Freeze", "Zebra-runbook", "2fa-reset", "a-b", "aB", "a_b")
    found = runtime_differences(skills, (), TS, AXLLM)
    moved = {d.entry_id: d.message for d in found if d.kind == ORDER}
    # Ax: 2fa-reset, a_b, a-b, aB, Deploy-Freeze, Zebra-runbook
    # axllm: 2fa-reset, Deploy-Freeze, Zebra-runbook, a-b, aB, a_b
    assert set(moved) == {"Deploy-Freeze", "Zebra-runbook", "a_b"}
    assert "list it 2 of 6" in moved["Deploy-Freeze"] and "5 of 6" in moved["Deploy-Freeze"]
    assert "upper case" in moved["Zebra-runbook"] and "punctuation" in moved["a_b"]
    assert summary(found) == "order: a_b, Deploy-Freeze, Zebra-runbook"  # in Ax's order


def test_same_order_in_both_runtimes_says_nothing() -> None:
    skills = _skills("alpha", "beta-2", "gamma", "zeta")
    memories = (Memory("mem-a", "x"), Memory("mem-b", "y"))
    assert runtime_differences(skills, memories, TS, AXLLM) == []


def test_memories_accents_and_emoji_sort_after_ascii_in_axllm() -> None:
    memories = tuple(Memory(i, "x") for i in ("éclair", "zebra", f"{EMOJI}-note", "apple"))
    found = runtime_differences((), memories, TS, AXLLM)
    assert {d.entry_id for d in found if d.kind == ORDER} == {"éclair", f"{EMOJI}-note"}
    assert all(d.entry_kind == "memory" and d.message.startswith("Memories") for d in found)


def test_cuts_before_an_emoji_differ() -> None:
    long = EMOJI * 10 + " " + "w" * 600
    skills = (Skill("s", "S", "", long),)
    memories = (Memory("m", long), Memory("plain", "p" * 700))
    found = runtime_differences(skills, memories, TS, AXLLM)
    assert [(d.kind, d.entry_kind, d.entry_id) for d in found] == [
        (CUT, "skill", "s"),
        (CUT, "memory", "m"),
        (CUT, "memory", "m"),  # the 80-unit snippet too
    ]
    assert "10 more" in found[0].message


def test_a_padded_name_is_trimmed_by_axllm_only() -> None:
    skills = (Skill("s", "  Padded  ", "", "x"), Skill("t", "T", "", "y"))
    found = runtime_differences(skills, (), TS, AXLLM)
    assert [(d.kind, d.entry_id) for d in found] == [(CLEANUP, "s")]


def test_lint_reports_them_as_information() -> None:
    catalog = Catalog(skills=_skills("Deploy-Freeze", "apple", "zebra"))
    report = lint_catalog(catalog)
    runtime = [f for f in report.findings if f.code.startswith("runtime-")]
    assert [(f.code, f.severity, f.entry_id) for f in runtime] == [
        ("runtime-order", "info", "Deploy-Freeze")
    ]
    assert "axllm" in runtime[0].message
