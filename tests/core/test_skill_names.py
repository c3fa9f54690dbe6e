"""Issue #30: skill ids against the Agent Skills naming rule (agentskills.io's
specification and its reference validator, skills-ref): 1-64 characters after NFKC,
lowercase letters, digits and hyphens, no hyphen at either end, no two in a row. An id
that breaks it is offered a fix, and a skills-folder export never writes a folder name
that breaks it (renaming a skill to "Deploy Freeze!" exported a folder of that name)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from axmem_gui.core.catalog import Skill
from axmem_gui.core.formats import CatalogDoc, assign_folder_names, read_skills_path
from axmem_gui.core.formats.model import ImportedSkill
from axmem_gui.core.formats.skillsdir import skills_dir_files
from axmem_gui.core.skill_names import (
    MAX_NAME_CHARS,
    agent_skill_name,
    agent_skill_name_problem,
    is_agent_skill_name,
)
from tests.core.formats.strategies import materialize


def test_the_specifications_examples() -> None:
    for good in ("pdf-processing", "data-analysis", "code-review", "a", "x" * 64, "café", "v2"):
        assert agent_skill_name_problem(good) is None, good
    for bad, why in (
        ("PDF-Processing", "uppercase"),
        ("-pdf", "starts or ends"),
        ("pdf-", "starts or ends"),
        ("pdf--processing", "two hyphens"),
        ("pdf processing", "other than letters"),
        ("pdf_processing", "other than letters"),
        ("Deploy Freeze!", "uppercase"),
        ("x" * 65, "65 characters"),
        ("", "empty"),
        ("cafe\u0301", "normalization"),
    ):
        problem = agent_skill_name_problem(bad)
        assert problem is not None and why in problem, (bad, problem)


def test_the_fix_follows_the_rule() -> None:
    assert agent_skill_name("Deploy Freeze!") == "deploy-freeze"
    assert agent_skill_name("postmortemTemplate") == "postmortem-template"
    assert agent_skill_name("  --Café  au lait--  ") == "cafe-au-lait"
    assert agent_skill_name("!!!") == "skill"
    taken = {"deploy-freeze", "deploy-freeze-2"}
    assert agent_skill_name("Deploy freeze", taken.__contains__) == "deploy-freeze-3"
    long = agent_skill_name("word " * 40, lambda n: n.endswith("word"))
    assert len(long) <= MAX_NAME_CHARS and is_agent_skill_name(long)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=120))
def test_any_text_gives_a_name_that_follows_the_rule(text: str) -> None:
    assert is_agent_skill_name(agent_skill_name(text))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=80), min_size=1, max_size=8, unique=True))
def test_no_export_folder_breaks_the_rule(ids: list[str]) -> None:
    folders = [folder for folder, _stored in assign_folder_names(ids)]
    assert all(is_agent_skill_name(f) for f in folders), folders
    assert len({f.casefold() for f in folders}) == len(folders)


def test_a_renamed_skill_exports_under_a_valid_folder_and_keeps_its_id() -> None:
    skill = Skill("Deploy Freeze!", "Deploy freeze", "When deploys are frozen", "# Freeze\n")
    doc = CatalogDoc(skills=(ImportedSkill(skill),))
    files = skills_dir_files(doc)
    assert [f.path for f in files] == ["deploy-freeze/SKILL.md"]
    assert b"ax-id: Deploy Freeze!" in files[0].data
    with tempfile.TemporaryDirectory() as tmp:
        materialize(Path(tmp), files)
        [back] = read_skills_path(Path(tmp)).doc.skills
    assert back.skill.id == "Deploy Freeze!" and back.skill.content == skill.content
