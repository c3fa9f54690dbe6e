"""The per-edit lint session gives exactly `lint_catalog`'s report, edit after edit."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from axmem_gui.core.catalog import Catalog, Memory, Skill
from axmem_gui.core.lint import LintOptions, lint_catalog
from axmem_gui.core.lint.incremental import LintSession
from tests.helpers.entries import with_text

WORDS = ("deploy", "rollback", "canary", "vault", "token", "audit", "the", "and", "release",
         "schema", "budget", "review", "incident", "ledger", "shard", "help", "2024", "x")


def _text(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def _catalog(rng: random.Random, skills: int, memories: int) -> Catalog:
    return Catalog(
        skills=tuple(
            Skill(f"{rng.choice(WORDS)}-{rng.choice(WORDS)}-{i}", _text(rng, 1, 3),
                  _text(rng, 0, 8), _text(rng, 0, 160))
            for i in range(skills)
        ),
        memories=tuple(
            Memory(f"mem:{rng.choice(WORDS)}-{i}", _text(rng, 0, 30)) for i in range(memories)
        ),
    )


def _edit(rng: random.Random, session: LintSession) -> tuple[str, Skill | Memory]:
    catalog = session.catalog()
    if rng.random() < 0.6:
        skills = catalog.skills
        skill = rng.choice(skills)
        field = rng.choice(("name", "description", "content"))
        value = rng.choice(
            (_text(rng, 0, 4), "", "the and", rng.choice(skills).name, skill.id.replace("-", " "))
        )
        return "skills", with_text(skill, field, value)
    memories = catalog.memories
    memory = rng.choice(memories)
    value = rng.choice((_text(rng, 1, 30), memory.id, "", rng.choice(memories).content))
    return "memories", replace(memory, content=value)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_patched_report_equals_a_full_lint(seed: int) -> None:
    rng = random.Random(seed)
    session = LintSession(_catalog(rng, 40, 150), LintOptions(budget_tokens=300))
    assert session.report == lint_catalog(session.catalog(), LintOptions(budget_tokens=300))
    for _ in range(60):
        kind, entry = _edit(rng, session)
        assert session.patch(kind, {entry.id: entry})
        expected = lint_catalog(session.catalog(), LintOptions(budget_tokens=300))
        assert session.report == expected
    assert session.full_runs == 1


def test_additions_removals_and_duplicates_lint_from_scratch() -> None:
    rng = random.Random(9)
    catalog = _catalog(rng, 10, 20)
    session = LintSession(catalog)
    new = Skill("brand-new-skill", "Brand new", "A skill nobody had", "text")
    assert not session.patch("skills", {new.id: new})
    assert not session.patch("memories", {catalog.memories[0].id: None})
    grown = Catalog(skills=(*catalog.skills, new), memories=catalog.memories)
    assert session.refresh(grown) == lint_catalog(grown)
    assert session.full_runs == 2
    twice = Catalog(skills=(*grown.skills, grown.skills[0]), memories=grown.memories)
    assert session.refresh(twice) == lint_catalog(twice)
    # an unannounced edit of existing entries is found by diffing, and patched
    edited = replace(grown.skills[1], description="deploy deploy canary")
    changed = Catalog(skills=(grown.skills[0], edited, *grown.skills[2:]),
                      memories=grown.memories)
    session.refresh(grown)
    runs = session.full_runs
    assert session.refresh(changed) == lint_catalog(changed)
    assert session.full_runs == runs


def test_invisible_characters_follow_edits_of_a_name() -> None:
    catalog = Catalog(
        skills=(Skill("a\u2066b", "Alpha", "first skill", "x"), Skill("c", "Gamma", "third", "y")),
        memories=(Memory("m\x00", "zero"),),
    )
    session = LintSession(catalog)
    assert session.report == lint_catalog(catalog)
    assert sum(f.code == "invisible-characters" for f in session.report.findings) == 2
    edited = replace(catalog.skills[1], name="Gam\u200dma")
    assert session.patch("skills", {edited.id: edited})
    assert session.report == lint_catalog(session.catalog())
    assert sum(f.code == "invisible-characters" for f in session.report.findings) == 3
