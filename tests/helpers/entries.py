"""Typed edits of catalog entries for the randomized tests."""

from __future__ import annotations

from dataclasses import replace

from axmem_gui.core.catalog import Skill

SKILL_TEXT_FIELDS = ("name", "description", "content")


def with_text(skill: Skill, field: str, value: str) -> Skill:
    """`skill` with its text field `field` (one of SKILL_TEXT_FIELDS) set to `value`
    (spelled out so the type checker sees each field: `replace(**{field: value})` it cannot)."""
    if field == "name":
        return replace(skill, name=value)
    if field == "description":
        return replace(skill, description=value)
    assert field == "content", field
    return replace(skill, content=value)
