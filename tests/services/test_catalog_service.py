"""The one catalog service every change goes through (GUI undo commands, import, CLI)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.catalog_rows import Entry
from axmem_gui.core.errors import ConflictError, InputError, WorkspaceError
from axmem_gui.services.catalog import CatalogService, Write
from axmem_gui.store import Workspace


def held(catalog: CatalogService, kind: str, entry_id: str) -> tuple[Entry, int] | None:
    found = catalog.get(kind, entry_id)
    return None if found is None else (found.entry, found.revision)


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    with Workspace.open(tmp_path / "c.axmem", create=True) as workspace:
        yield workspace


@pytest.fixture
def catalog(ws: Workspace) -> CatalogService:
    return CatalogService(ws)


def test_create_edit_delete_with_revisions(catalog: CatalogService) -> None:
    skill = Skill("deploy", "Deploy", "How to deploy")
    assert catalog.create("skills", skill) == 1
    with pytest.raises(ConflictError):
        catalog.create("skills", skill)  # expects the id to be free
    edited = replace(skill, name="Deploy safely")
    assert catalog.edit("skills", edited, expected_revision=1) == 2
    with pytest.raises(ConflictError, match="deploy"):
        catalog.edit("skills", replace(skill, name="Stale"), expected_revision=1)
    assert held(catalog, "skills", "deploy") == (edited, 2)
    gone = catalog.delete("skills", ["deploy", "missing"])
    assert [(g.entry, g.revision) for g in gone] == [(edited, 2)]
    assert catalog.get("skills", "deploy") is None


def test_a_batch_of_writes_is_all_or_nothing(ws: Workspace, catalog: CatalogService) -> None:
    catalog.create("memories", Memory("m1", "one"))
    writes = [
        Write("m2", Memory("m2", "two"), 0),
        Write("m1", Memory("m1", "changed"), 7),  # stale: the store is at revision 1
    ]
    with pytest.raises(ConflictError):
        catalog.write("memories", writes)
    assert catalog.get("memories", "m2") is None
    assert held(catalog, "memories", "m1") == (Memory("m1", "one"), 1)
    revisions = catalog.write("memories", [writes[0], Write("m1", Memory("m1", "x"), 1)])
    assert revisions == {"m2": 1, "m1": 2}
    batch = ws.memories.history("m2")[-1].batch
    assert batch is not None and {r.entry_id for r in ws.revisions.batch(batch)} == {"m1", "m2"}


def test_a_write_cannot_change_an_id_or_store_an_empty_one(catalog: CatalogService) -> None:
    with pytest.raises(WorkspaceError, match="cannot change the id"):
        catalog.write("skills", [Write("a", Skill("b", "B"))])
    with pytest.raises(InputError, match="skill id: must not be empty"):
        catalog.create("skills", Skill("  ", "Blank"))


def test_rename_refuses_empty_and_taken_ids(catalog: CatalogService) -> None:
    catalog.create("skills", Skill("a", "A"))
    catalog.create("skills", Skill("b", "B"))
    with pytest.raises(InputError, match="must not be empty"):
        catalog.rename("skills", "a", " ")
    with pytest.raises(WorkspaceError, match="skill 'b' already exists"):
        catalog.rename("skills", "a", "b")
    catalog.rename("skills", "a", "c")
    found = catalog.get("skills", "c")
    assert found is not None and isinstance(found.entry, Skill) and found.entry.name == "A"
    assert catalog.get("skills", "a") is None


def test_tags_are_checked_and_only_changed_entries_written(catalog: CatalogService) -> None:
    catalog.create("skills", Skill("a", "A", tags=("ops",)))
    catalog.create("skills", Skill("b", "B"))
    with pytest.raises(InputError, match="tag: must be non-empty and contain no comma"):
        catalog.tag("skills", ["a"], "x,y", add=True)
    assert catalog.tag("skills", ["a", "b", "nope"], " ops ", add=True) == {"b": 2}
    assert catalog.tag("skills", ["a", "b"], "ops", add=False) == {"a": 2, "b": 3}


def test_restore_brings_back_a_deleted_entry_from_its_history(catalog: CatalogService) -> None:
    memory = Memory("m", "remember this")
    catalog.create("memories", memory)
    catalog.delete("memories", ["m"])
    deleted = catalog.history("memories", "m")[-1]
    assert deleted.op == "delete"
    catalog.restore("memories", deleted)
    # A new life of the id continues its revision numbers (created 1, deleted 2, now 3),
    # so its history never lists the same number twice.
    assert held(catalog, "memories", "m") == (memory, 3)
    history = catalog.history("memories", "m")
    assert history[-1].op == "restore"
    assert [r.revision for r in history] == [1, 2, 3]


def test_new_entries_get_unique_ids(catalog: CatalogService) -> None:
    first = catalog.new_entry("skills")
    catalog.create("skills", first)
    second = catalog.new_entry("skills")
    assert (first.id, second.id) == ("new-skill", "new-skill-2")
