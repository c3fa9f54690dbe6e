"""Import plans: adds, updates, unchanged, conflicts and the three policies."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from axmem_gui.core.catalog import EntryKind, Memory, Skill
from axmem_gui.core.formats import (
    CatalogDoc,
    ImportedSkill,
    ImportPlan,
    Origin,
    Policy,
    Problem,
    SkillResource,
    SourceCatalog,
    build_plan,
    fresh_id,
    read_ax_json,
)

EXISTING_SKILLS = {
    "a": ImportedSkill(Skill("a", "A", "", "old")),
    "same": ImportedSkill(Skill("same", "Same", "", "body")),
    "a-2": ImportedSkill(Skill("a-2", "taken", "", "x")),
}
EXISTING_MEMORIES = {"m": Memory("m", "old memory")}

INCOMING = (
    '{"skillsCatalog": ['
    '{"id": "a", "name": "A", "content": "new"},'
    '{"id": "same", "name": "Same", "content": "body"},'
    '{"id": "fresh", "name": "Fresh", "content": "f"}],'
    '"memoriesCatalog": [{"id": "m", "content": "new memory"}]}'
)


def _plan(
    policy: Policy, overrides: Mapping[tuple[EntryKind, str], Policy] | None = None
) -> ImportPlan:
    src = read_ax_json(INCOMING, "in.json")
    return build_plan([src], EXISTING_SKILLS, EXISTING_MEMORIES, policy, overrides=overrides)


def _actions(plan: ImportPlan) -> list[tuple[str, str, str, str]]:
    return [(i.kind, i.action, i.source_id, i.target_id) for i in plan.items]


def test_skip_keeps_the_workspace_entries() -> None:
    plan = _plan("skip")
    assert _actions(plan) == [
        ("skill", "skip", "a", "a"),
        ("skill", "unchanged", "same", "same"),
        ("skill", "add", "fresh", "fresh"),
        ("memory", "skip", "m", "m"),
    ]
    assert [i.source_id for i in plan.conflicts] == ["a", "m"]
    assert [i.source_id for i in plan.writes] == ["fresh"]
    assert plan.ok


def test_overwrite_updates_conflicting_entries() -> None:
    plan = _plan("overwrite")
    assert [(i.action, i.source_id) for i in plan.writes] == [
        ("update", "a"),
        ("add", "fresh"),
        ("update", "m"),
    ]
    assert plan.updates[0].existing == EXISTING_SKILLS["a"]
    assert plan.summary() == {
        "add": 1,
        "update": 2,
        "unchanged": 1,
        "skip": 0,
        "keep-both": 0,
        "conflicts": 2,
        "errors": 0,
        "warnings": 0,
    }


def test_keep_both_adds_under_a_fresh_deterministic_id() -> None:
    plan = _plan("keep-both")
    kept = {i.source_id: i.target_id for i in plan.kept_both}
    assert kept == {"a": "a-3", "m": "m-2"}  # a-2 is taken in the workspace
    written = plan.kept_both[0].entry_to_write()
    assert isinstance(written, ImportedSkill)
    assert written.skill == Skill("a-3", "A", "", "new")
    assert _plan("keep-both") == plan  # same input, same plan


def test_per_entry_overrides() -> None:
    plan = _plan("skip", overrides={("memory", "m"): "overwrite"})
    assert [(i.kind, i.action) for i in plan.writes] == [("skill", "add"), ("memory", "update")]


def test_fresh_id_skips_taken_ids() -> None:
    assert fresh_id("x", {"x", "x-2", "x-3"}) == "x-4"
    assert fresh_id(" sp ", set()) == " sp -2"


def test_same_id_from_two_sources_is_an_error() -> None:
    one = read_ax_json('[{"id": "dup", "name": "1", "content": ""}]', "one.json")
    two = read_ax_json('[{"id": "dup", "name": "2", "content": ""}]', "two.json")
    plan = build_plan([one, two], {}, {}, "overwrite")
    assert not plan.ok
    assert [str(p) for p in plan.errors] == [
        "two.json: skills[0] 'dup': field 'id' is also imported from "
        "one.json: skills[0] 'dup' (skill id 'dup'); import one of them, or rename one"
    ]


def test_read_problems_make_the_plan_not_ok() -> None:
    bad = SourceCatalog("bad.json", "ax-json", problems=(Problem("bad.json", "broken"),))
    plan = build_plan([bad], {}, {}, "skip")
    assert not plan.ok and plan.errors == bad.problems


def test_extras_count_as_a_difference_unless_the_store_cannot_keep_them() -> None:
    with_files = ImportedSkill(
        Skill("s", "S", "", "c"), {"license": "MIT"}, (SkillResource("a.txt", b"x"),)
    )
    src = SourceCatalog(
        "d",
        "skills-dir",
        doc=CatalogDoc(skills=(with_files,)),
        skill_origins=(Origin("d/s/SKILL.md", "skill 's'"),),
    )
    plain = {"s": ImportedSkill(Skill("s", "S", "", "c"))}
    assert build_plan([src], plain, {}, "overwrite").items[0].action == "update"
    relaxed = build_plan([src], plain, {}, "overwrite", compare_extra=False)
    assert relaxed.items[0].action == "unchanged"


def test_unknown_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown conflict policy"):
        build_plan([], {}, {}, "merge")  # type: ignore[arg-type]
