"""Realistic Agent Skills folders (tests/fixtures/skills): import -> export -> import is
byte-identical, resource files and executable bits included."""

from __future__ import annotations

import json
from pathlib import Path

from axmem_gui.core.formats import (
    CatalogDoc,
    extra_value,
    imported_from_extra,
    read_source,
    skills_dir_files,
)

from .strategies import materialize, snapshot

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "skills"


def _fixture_files() -> dict[str, tuple[bytes, bool]]:
    return {k: v for k, v in snapshot(FIXTURES).items() if not k.startswith(".")}


def test_fixtures_read_cleanly_with_their_extras() -> None:
    src = read_source(FIXTURES)
    assert src.problems == ()
    skills = {s.id: s for s in src.doc.skills}
    assert sorted(skills) == [
        "brand-voice",
        "incident-response",
        "pdf-form-filler",
        "release-checklist",
    ]
    release = skills["release-checklist"]
    assert release.skill.tags == ("release", "ops")
    assert release.frontmatter == {
        "license": "Apache-2.0",
        "allowed-tools": "Bash(git:*) Bash(npm:*) Read",
        "metadata": {"author": "platform-team", "version": "1.4"},
    }
    assert [(r.path, r.executable) for r in release.resources] == [
        ("references/changelog-style.md", False),
        ("scripts/bump_version.py", True),
    ]
    incident = skills["incident-response"]
    assert incident.skill.name == "Incident response"  # the name need not be the id
    assert incident.skill.tags == ("oncall", "incident")
    assert incident.skill.content.startswith("# Incident response — first 15 minutes 🚨\r\n")
    assert incident.frontmatter["metadata"] == {
        "owner": "sre@example.com",
        "updated": "2025-03-14",
    }
    pdf = skills["pdf-form-filler"]
    assert pdf.skill.description.endswith("the values to put in it.")
    stamp = next(r for r in pdf.resources if r.path == "assets/stamp.png")
    assert stamp.data.startswith(b"\x89PNG\r\n\x1a\n")
    brand = skills["brand-voice"]
    assert brand.skill.name == "Brand voice — 文体ガイド"
    assert brand.skill.content.startswith("# Brand voice\n")


def test_import_export_import_is_byte_identical(tmp_path: Path) -> None:
    first = read_source(FIXTURES)
    out = tmp_path / "export"
    out.mkdir()
    materialize(out, skills_dir_files(first.doc))
    assert snapshot(out) == _fixture_files()
    second = read_source(out)
    assert second.problems == ()
    assert sorted(second.doc.skills, key=lambda s: s.id) == sorted(
        first.doc.skills, key=lambda s: s.id
    )


def test_extras_survive_a_trip_through_json_storage(tmp_path: Path) -> None:
    """What the workspace stores per skill (`extra_value`, as JSON) is enough to write the
    folders back unchanged."""
    first = read_source(FIXTURES)
    stored = [
        (imported.skill, json.loads(json.dumps(extra_value(imported))))
        for imported in first.doc.skills
    ]
    restored = CatalogDoc(skills=tuple(imported_from_extra(s, e) for s, e in stored))
    out = tmp_path / "export"
    out.mkdir()
    materialize(out, skills_dir_files(restored))
    assert snapshot(out) == _fixture_files()
