"""import(export(catalog)) == catalog, for every format."""

from __future__ import annotations

import json
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from axmem_gui.core.catalog import Memory
from axmem_gui.core.formats import (
    CatalogDoc,
    ImportedSkill,
    assign_folder_names,
    extra_value,
    imported_from_extra,
    parse_skill_md,
    read_ax_json,
    read_jsonl,
    read_skills_path,
    read_ts_module,
    render_skill_md,
    skills_dir_files,
    write_ax_json,
    write_jsonl,
    write_ts_module,
)
from axmem_gui.core.formats.skillmd import imported_from_parsed

from .strategies import (
    docs,
    folder_docs,
    folder_skills,
    materialize,
    memories,
    snapshot,
    unique_by_id,
)

FAST = settings(max_examples=200, deadline=None)
FOLDERS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(docs)
def test_ax_json_round_trip(doc: CatalogDoc) -> None:
    read = read_ax_json(write_ax_json(doc), "x.json")
    assert read.problems == ()
    assert read.doc == doc


@FAST
@given(docs)
def test_ts_module_round_trip(doc: CatalogDoc) -> None:
    read = read_ts_module(write_ts_module(doc), "x.ts")
    assert read.problems == ()
    assert read.doc == doc


@FAST
@given(unique_by_id(memories, max_size=6))
def test_jsonl_round_trip(mems: tuple[Memory, ...]) -> None:
    text = write_jsonl(mems)
    read = read_jsonl(text, "x.jsonl")
    assert read.problems == ()
    assert read.doc.memories == mems
    # One memory per line, even with U+2028 or CR in the content.
    assert text.count("\n") == len(mems)


def _by_id(doc: CatalogDoc) -> dict[str, object]:
    return {s.id: s for s in doc.skills}


@FOLDERS
@given(folder_docs)
def test_skills_dir_round_trip_and_stable_bytes(doc: CatalogDoc) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        first, second = Path(tmp, "first"), Path(tmp, "second")
        first.mkdir()
        second.mkdir()
        materialize(first, skills_dir_files(doc))
        read = read_skills_path(first)
        assert [p for p in read.problems if p.severity == "error"] == []
        # Folders carry no order: compare by id (ids are unique).
        assert _by_id(read.doc) == _by_id(doc)
        assert len(read.doc.skills) == len(doc.skills)
        assert read.doc.memories == doc.memories
        # Writing what was read gives the same bytes (the SKILL.md heads are reused).
        materialize(second, skills_dir_files(read.doc))
        assert snapshot(second) == snapshot(first)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None, suppress_health_check=list(HealthCheck))
@given(docs, folder_docs)
def test_all_formats_round_trip_long(doc: CatalogDoc, folder_doc: CatalogDoc) -> None:
    test_ax_json_round_trip.hypothesis.inner_test(doc)  # type: ignore[attr-defined]
    test_ts_module_round_trip.hypothesis.inner_test(doc)  # type: ignore[attr-defined]
    test_skills_dir_round_trip_and_stable_bytes.hypothesis.inner_test(folder_doc)  # type: ignore[attr-defined]


@FAST
@given(folder_skills)
def test_skill_extras_survive_json_storage(imported: ImportedSkill) -> None:
    """What the workspace would store for a skill (`extra_value` as JSON) gives the same
    skill back, resources and all."""
    with_layout = read_skill_layout(imported)
    stored = json.loads(json.dumps(extra_value(with_layout)))
    back = imported_from_extra(with_layout.skill, stored)
    assert back == with_layout
    assert back.layout == with_layout.layout


def read_skill_layout(imported: ImportedSkill) -> ImportedSkill:
    """The skill as a skills-dir reader returns it (with its SKILL.md layout)."""
    parsed = parse_skill_md(render_skill_md(imported, stored_id=imported.id))
    again = imported_from_parsed(parsed, "folder")
    return replace(again, resources=imported.resources)


def test_folder_names_are_portable_and_unique() -> None:
    ids = ["deploy", "Deploy", "CON", "a/b", " pad ", "café", "cafe\u0301", ".hidden", "x" * 300]
    names = assign_folder_names(ids)
    assert names[0] == ("deploy", None)
    assert names[5] == ("café", None)
    recorded = {
        skill_id: folder for (folder, stored), skill_id in zip(names, ids, strict=True) if stored
    }
    assert set(recorded) == {"Deploy", "CON", "a/b", " pad ", "cafe\u0301", ".hidden", "x" * 300}
    folders = [folder.casefold() for folder, _ in names]
    assert len(set(folders)) == len(folders)
    assert recorded["a/b"] == "a-b" and recorded[" pad "] == "pad"
