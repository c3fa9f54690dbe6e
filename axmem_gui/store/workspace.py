"""The workspace: one SQLite file (`.axmem`) holding catalogs, scenarios, suites, agent
configs, recorded sessions and context map snapshots."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import WorkspaceError
from axmem_gui.core.filehandles import FileHandle
from axmem_gui.core.workspace import WorkspaceCounts
from axmem_gui.store.connection import open_database
from axmem_gui.store.repositories import (
    ContextMapRepository,
    DocumentRepository,
    EvalRunRepository,
    MemoryRepository,
    RevisionLog,
    SessionRepository,
    SettingsRepository,
    SkillRepository,
    SuiteRepository,
    explain_sqlite_error,
)


class Workspace:
    """An open workspace. Not thread-safe: each thread opens its own."""

    def __init__(
        self,
        path: Path,
        db: Database,
        read_only: bool,
        schema_version: int,
        backup: Path | None,
        handle: FileHandle | None = None,
    ) -> None:
        self.path = path
        #: Raw descriptors on the file, released only after `db` closes (filehandles).
        self._handle = handle
        self.db = db
        self.read_only = read_only
        self.schema_version = schema_version
        self.backup_path = backup
        self.skills = SkillRepository(db, read_only)
        self.memories = MemoryRepository(db, read_only)
        self.revisions = RevisionLog(db)
        self.scenarios = DocumentRepository(db, "scenarios", read_only)
        self.suites = SuiteRepository(db, "suites", read_only)
        self.agents = DocumentRepository(db, "agents", read_only)
        self.sessions = SessionRepository(db, read_only)
        self.contextmaps = ContextMapRepository(db, read_only)
        self.evals = DocumentRepository(db, "evals", read_only)
        self.eval_runs = EvalRunRepository(db, read_only)
        self.settings = SettingsRepository(db, read_only)

    @classmethod
    def open(cls, path: Path | str, *, create: bool = False, read_only: bool = False) -> Workspace:
        """Open a workspace file; with `create`, a missing or empty file becomes a new one.

        Raises WorkspaceError (file untouched) for foreign, damaged or newer files."""
        p = Path(path)
        opened = open_database(p, create=create, read_only=read_only)
        return cls(
            p, opened.db, opened.read_only, opened.schema_version, opened.backup_path, opened.handle
        )

    @contextmanager
    def transaction(self, *, immediate: bool = False) -> Iterator[Workspace]:
        """All or nothing; nests (inner blocks are savepoints). SQLite failures surface
        as WorkspaceError with a message the user can act on.

        `immediate` (outermost block only): take the write lock at the start, waiting for
        it as long as the busy timeout. A block that reads, then writes what it read
        decides, needs it when another connection may write meanwhile: a deferred
        transaction that read before another connection committed cannot write at all."""
        try:
            if immediate and not self.db.conn.in_transaction:
                self.db.execute("BEGIN IMMEDIATE")
                try:
                    yield self
                    self.db.execute("COMMIT")
                except BaseException:
                    if self.db.conn.in_transaction:  # (a failed COMMIT leaves it open)
                        self.db.conn.rollback()
                    raise
            else:
                with self.db.atomic():
                    yield self
        except sqlite3.Error as exc:
            raise WorkspaceError(explain_sqlite_error(exc)) from exc

    @staticmethod
    def new_batch_id() -> str:
        return uuid.uuid4().hex

    def catalog(self) -> Catalog:
        return Catalog(skills=tuple(self.skills.all()), memories=tuple(self.memories.all()))

    def counts(self) -> WorkspaceCounts:
        return WorkspaceCounts(
            skills=self.skills.count(),
            memories=self.memories.count(),
            scenarios=self.scenarios.count(),
            suites=self.suites.count(),
            agents=self.agents.count(),
            sessions=self.sessions.count(),
            contextmaps=self.contextmaps.count(),
            evals=self.evals.count(),
        )

    def data_version(self) -> int:
        """Changes when another connection commits: cheap polling for external edits."""
        return int(self.db.execute("PRAGMA data_version").fetchone()[0])

    def checkpoint(self) -> None:
        """Fold the write-ahead log into the main file (before moving the file)."""
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def integrity_check(self) -> str:
        return str(self.db.execute("PRAGMA integrity_check").fetchone()[0])

    def info(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "schema_version": self.schema_version,
            "read_only": self.read_only,
            "counts": self.counts().to_json(),
        }

    def close(self) -> None:
        try:
            if not self.read_only:
                self.db.execute("PRAGMA optimize")
        except (sqlite3.Error, WorkspaceError):
            # Only a statistics refresh; never block closing (another writer, or damage
            # in sqlite_stat1 that the guarded cursor reports as a damaged file: the reads
            # that need damaged data say so, closing does not).
            pass
        finally:
            try:
                self.db.close()
            finally:
                if self._handle is not None:
                    self._handle.release()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
