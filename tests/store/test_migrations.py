"""Every earlier schema version opens, migrates, and keeps its data (with a backup)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlite_utils import Database

from axmem_gui.core.catalog import Skill
from axmem_gui.core.errors import WorkspaceError
from axmem_gui.store import Workspace, schema


def _workspace_at_version(path: Path, version: int) -> None:
    names = schema.known_migration_names()
    db = Database(path)
    db.execute(f"PRAGMA application_id = {schema.APPLICATION_ID}")
    schema.migrations.apply(db, stop_before=names[version] if version < len(names) else None)
    db.execute(f"PRAGMA user_version = {version}")
    if version >= 1:
        db.execute(
            "INSERT INTO skills (id, name, description, content, tags, created_at, updated_at) "
            "VALUES ('legacy', 'Legacy', 'd', 'body', '[\"old\"]', 't', 't')"
        )
    db.conn.commit()
    db.close()


@pytest.mark.parametrize("version", range(1, schema.latest_version()))
def test_older_schema_is_migrated_with_backup(tmp_path: Path, version: int) -> None:
    path = tmp_path / "old.axmem"
    _workspace_at_version(path, version)
    with Workspace.open(path) as ws:
        assert ws.schema_version == schema.latest_version()
        assert ws.skills.get("legacy") == Skill("legacy", "Legacy", "d", "body", ("old",))
        ws.sessions.save({"id": "after-upgrade", "exchanges": []})
        backup = ws.backup_path
    assert backup is not None and backup.exists()
    conn = sqlite3.connect(backup)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == version
    assert conn.execute("SELECT count(*) FROM _sqlite_migrations").fetchone()[0] == version
    conn.close()


def test_current_schema_needs_no_backup(tmp_path: Path) -> None:
    path = tmp_path / "new.axmem"
    Workspace.open(path, create=True).close()
    with Workspace.open(path) as ws:
        assert ws.backup_path is None
    assert list(tmp_path.glob("*.bak")) == []


def test_migrations_are_append_only() -> None:
    # Released migration names are part of every user's file: never rename or reorder.
    assert schema.known_migration_names()[:3] == ["m001_catalog", "m002_documents", "m003_sessions"]


@pytest.mark.parametrize("journal", ["delete", "wal"])
def test_failed_upgrade_leaves_the_file_and_nothing_beside_it(
    tmp_path: Path, journal: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A v4 file whose upgrade fails in SQLite (m005 made to add a column that exists).
    # In WAL mode (every workspace the app writes) the backup stayed: inspecting the file
    # had created an empty -wal, taken for a pending one (found by AXMEM_FUZZ_SEED=21).
    path = tmp_path / "odd.axmem"
    _workspace_at_version(path, 4)
    db = Database(path)
    db.execute(f"PRAGMA journal_mode = {journal}")
    db.conn.commit()
    db.close()
    m005 = next(m for m in schema.migrations._migrations if m.name == "m005_skill_extra")
    monkeypatch.setattr(m005, "fn", lambda db: db.execute("ALTER TABLE skills ADD COLUMN pk TEXT"))
    before = path.read_bytes()
    with pytest.raises(WorkspaceError, match="could not prepare the workspace"):
        Workspace.open(path)
    assert path.read_bytes() == before
    # The backup written before the attempt goes with it (found by fuzzing mutated files).
    assert [p.name for p in tmp_path.iterdir()] == ["odd.axmem"]


@pytest.mark.parametrize("journal", ["delete", "wal"])
def test_a_table_changed_by_another_program_is_refused_untouched(
    tmp_path: Path, journal: str
) -> None:
    # A v4 file whose skills table already has the column m005 adds: not our schema.
    path = tmp_path / "odd.axmem"
    _workspace_at_version(path, 4)
    db = Database(path)
    db.execute("ALTER TABLE skills ADD COLUMN extra TEXT")
    db.execute(f"PRAGMA journal_mode = {journal}")
    db.conn.commit()
    db.close()
    before = path.read_bytes()
    with pytest.raises(WorkspaceError, match="a table named 'skills' whose definition"):
        Workspace.open(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["odd.axmem"]
