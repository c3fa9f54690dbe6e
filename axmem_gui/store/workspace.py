"""The workspace: one SQLite file (`.axmem`) holding catalogs, scenarios, suites, agent
configs, recorded sessions and context map snapshots."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import WorkspaceError
from axmem_gui.core.filehandles import FileHandle
from axmem_gui.core.workspace import WorkspaceCounts
from axmem_gui.store.connection import open_database
from axmem_gui.store.entries import MemoryRepository, RevisionLog, SkillRepository
from axmem_gui.store.errors import explain_sqlite_error
from axmem_gui.store.lean_sqlite_utils import Database
from axmem_gui.store.repositories import (
    ContextMapRepository,
    DocumentRepository,
    EvalRunRepository,
    SessionRepository,
    SettingsRepository,
    SuiteRepository,
)
from axmem_gui.store.sharing import Guard, WorkspaceDatabase


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
        guard: Guard | None = None,
    ) -> None:
        self.path = path
        #: Raw descriptors on the file, released only after `db` closes (filehandles).
        self._handle = handle
        #: The checks before every write and the lock holder, closed after `db`.
        self._guard = guard
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
    def open(
        cls,
        path: Path | str,
        *,
        create: bool = False,
        read_only: bool = False,
        hold_locks: bool = False,
    ) -> Workspace:
        """Open a workspace file; with `create`, a missing or empty file becomes a new one.
        `hold_locks` (the desktop app): a lock holder process keeps the file's shared
        locks while it is open, whatever closes a descriptor in this process
        (store/lockholder.py).

        Raises WorkspaceError (file untouched) for foreign, damaged or newer files."""
        p = Path(path)
        opened = open_database(p, create=create, read_only=read_only, hold_locks=hold_locks)
        return cls(
            p,
            opened.db,
            opened.read_only,
            opened.schema_version,
            opened.backup_path,
            opened.handle,
            opened.guard,
        )

    @contextmanager
    def transaction(self, *, immediate: bool = True) -> Iterator[Workspace]:
        """All or nothing; nests (inner blocks are savepoints). SQLite failures surface
        as WorkspaceError with a message the user can act on.

        Every outermost block takes the write lock at its start (BEGIN IMMEDIATE),
        waiting for it up to the busy timeout, after the sharing checks
        (store/sharing.py): a block that reads, then writes what it read decides, must,
        because a deferred transaction that read before another connection committed
        cannot write at all. (`immediate` is kept for callers that say so; every write
        transaction is immediate.)"""
        del immediate
        try:
            with self.db.atomic():
                yield self
        except sqlite3.Error as exc:
            raise WorkspaceError(explain_sqlite_error(exc)) from exc

    @property
    def write_wait_s(self) -> float:
        """How long a write waits for another program's write lock (the busy timeout)."""
        db = self.db
        return db.busy_timeout() if isinstance(db, WorkspaceDatabase) else 0.0

    def set_write_wait(self, seconds: float) -> None:
        if isinstance(self.db, WorkspaceDatabase):
            self.db.set_busy_timeout(seconds)

    @property
    def last_write_wait_s(self) -> float:
        """How long the last write transaction waited for the write lock."""
        db = self.db
        return db.last_wait_s if isinstance(db, WorkspaceDatabase) else 0.0

    def check_schema(self) -> None:
        """WorkspaceError when another program added a trigger, view or other object
        since the schema was last checked (cheap when the schema cookie did not move)."""
        if self._guard is not None:
            self._guard.check_schema(self.db.conn)

    def ensure_lock_holder(self) -> None:
        """Wait until the lock holder (if this open has one) holds the file's locks.
        Raises WorkspaceError when it cannot."""
        if self._guard is not None:
            self._guard.ensure_holder()

    @property
    def lock_holder_pid(self) -> int | None:
        holder = None if self._guard is None else self._guard.holder
        return None if holder is None else holder.pid

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
                # Last: the holder closes after every connection of this process, so its
                # close does the final checkpoint (when no other program has the file).
                if self._guard is not None:
                    self._guard.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
