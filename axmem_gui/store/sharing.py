"""Sharing a workspace with other programs (design pattern 14): checks before every write.

The workspace is one SQLite file in WAL mode that the app, the CLI, scripts and the
sqlite3 tool may use at once. Its safety rests on POSIX locks that any close() in this
process can drop (see `lockholder`). The app therefore keeps a lock holder process, and
every write transaction of every connection goes through `WorkspaceDatabase.atomic`,
which checks, in this order:

1. the lock holder (when this open has one) is alive, else starts it again;
2. the file at the workspace path is still the file this connection writes;
3. our `-wal` and `-shm` are still the files at their paths (another program that found
   itself alone may have deleted them): if not, and nothing else in this process uses the
   file, the connection is reopened before writing, otherwise the write is refused;
   never does a write go into a WAL another program replaced;
4. the schema cookie did not change since the schema was last checked, else the schema is
   checked again (`schema_check`): another program may have added a trigger meanwhile;

then takes the write lock at once (`BEGIN IMMEDIATE`, waiting up to the busy timeout:
writers wait, they do not fail at the first conflict), and, on Linux, checks just before
COMMIT that this process still holds SQLite's WAL write lock (an `F_OFD_GETLK` probe
sees this process's own POSIX locks): a write whose lock was dropped mid-transaction is
rolled back rather than committed beside another writer.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import struct
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from axmem_gui.core.errors import WorkspaceBusyError, WorkspaceError
from axmem_gui.core.filehandles import FileHandle, acquire, users_of
from axmem_gui.store.lean_sqlite_utils import Database
from axmem_gui.store.lockholder import LockHolder, LockHolderError
from axmem_gui.store.schema_check import foreign_objects, refusal

if sys.platform != "win32":
    import fcntl

#: How long a writer waits for another program's write transaction (the busy timeout):
#: the CLI and the app's background saves wait this long before saying the workspace is busy.
WRITE_WAIT_S = 10.0
#: Where SQLite's WAL write lock lives in the -shm (WALINDEX_LOCK_OFFSET + WAL_WRITE_LOCK).
_SHM_WRITE_LOCK_BYTE = 120
_F_OFD_GETLK = 36  # Linux (fcntl.h); Python's fcntl module does not name it
_FLOCK = struct.Struct("hhqqi4x")  # struct flock on Linux x86-64 and aarch64


class _Holders:
    """One lock holder per workspace file in this process, shared by every open of it
    that asks for one (locks are per process, so one holder serves them all)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holders: dict[tuple[int, int], tuple[LockHolder, int]] = {}

    def lease(self, key: tuple[int, int], path: Path) -> LockHolder:
        with self._lock:
            holder, users = self._holders.get(key, (LockHolder(path), 0))
            self._holders[key] = (holder, users + 1)
        return holder

    def release(self, key: tuple[int, int]) -> None:
        with self._lock:
            holder, users = self._holders[key]
            if users > 1:
                self._holders[key] = (holder, users - 1)
                return
            del self._holders[key]
        holder.stop()


#: Process-wide, like the locks it protects (and like `filehandles`' registry).
HOLDERS = _Holders()


def holder_supported() -> bool:
    """POSIX only: Windows locks belong to handles, a close() elsewhere cannot drop them."""
    return os.name == "posix"


def _sidecar(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


class Guard:
    """The checks before every write of one connection (see the module docstring)."""

    def __init__(
        self,
        path: Path,
        handle: FileHandle,
        schema_version: int,
        holder_key: tuple[int, int] | None,
    ) -> None:
        self.path = path
        self._handle = handle
        self._schema_version = schema_version
        self._holder_key = holder_key
        self._holder = None if holder_key is None else HOLDERS.lease(holder_key, path)
        self._cookie: int | None = None
        self._probes: dict[str, FileHandle] = {}

    # setup --------------------------------------------------------------------------
    def start(self, conn: sqlite3.Connection, *, wait: bool) -> None:
        """After the connection read the file once: check the schema and note its cookie,
        note the sidecars it uses, and start the lock holder (waiting for it with `wait`).
        Raises WorkspaceError for a schema that is not ours."""
        self.check_schema(conn)
        self._take_probes()
        if self._holder is not None:
            with contextlib.suppress(LockHolderError):  # said by the first write, if still so
                self._holder.spawn()
            if wait:
                self.ensure_holder()

    def _take_probes(self) -> None:
        for suffix in ("-wal", "-shm"):
            with contextlib.suppress(OSError):
                self._probes[suffix] = acquire(_sidecar(self.path, suffix))

    def _drop_probes(self) -> None:
        probes, self._probes = self._probes, {}
        for probe in probes.values():
            probe.release()

    def close(self) -> None:
        """After the connection closed: let go of the probes, then of the holder (which
        closes last and does the final checkpoint)."""
        self._drop_probes()
        if self._holder_key is not None:
            self._holder, key, self._holder_key = None, self._holder_key, None
            HOLDERS.release(key)

    @property
    def holder(self) -> LockHolder | None:
        return self._holder

    # checks -------------------------------------------------------------------------
    def before_write(self, db: WorkspaceDatabase) -> None:
        self.ensure_holder()
        self._check_file()
        if self._sidecars_replaced():
            self._reopen(db)
        self.check_schema(db.conn)

    def ensure_holder(self) -> None:
        if self._holder is None:
            return
        try:
            self._holder.ensure()
        except LockHolderError as exc:
            raise WorkspaceError(
                f"{self.path}: cannot keep the workspace safe from other programs ({exc}); "
                "the change was not saved"
            ) from None

    def _check_file(self) -> None:
        try:
            st = self.path.stat()
        except OSError:
            st = None
        if st is None or (st.st_dev, st.st_ino) != self._handle.key:
            raise WorkspaceError(
                f"{self.path}: the workspace file was moved, replaced or deleted by another "
                "program while it was open here; the change was not saved. Open the "
                "workspace again."
            )

    def _sidecars_replaced(self) -> bool:
        for suffix, probe in self._probes.items():
            try:
                held = os.fstat(probe.fd)
                now = _sidecar(self.path, suffix).stat()
            except OSError:
                return True
            if held.st_nlink == 0 or (now.st_dev, now.st_ino) != probe.key:
                return True
        return False

    def _reopen(self, db: WorkspaceDatabase) -> None:
        """Our -wal/-shm were deleted by another program (it found itself alone: the
        lock holder was gone and something in this process had dropped our locks).
        SQLite shares one -shm mapping among the connections of a process, so a fresh
        connection is only fresh once every connection of this process to the file is
        closed: reopen only when this is the only one."""
        if users_of(self._handle.key) > 1 or not db.can_reconnect:
            raise WorkspaceError(
                f"{self.path}: another program deleted this workspace's write-ahead log "
                "while it was open here; the change was not saved. Close the other windows "
                "or jobs on this workspace and try again, or open the workspace again."
            )
        self._drop_probes()
        db.reconnect()
        self._take_probes()

    def check_schema(self, conn: sqlite3.Connection) -> None:
        cookie = int(conn.execute("PRAGMA schema_version").fetchone()[0])
        if cookie == self._cookie:
            return
        found = foreign_objects(conn, self._schema_version)
        if found:
            changed = "" if self._cookie is None else (
                "another program changed the schema while the workspace was open here; "
            )
            raise WorkspaceError(f"{self.path}: {changed}{refusal(found)}")
        self._cookie = cookie

    def before_commit(self) -> None:
        """Linux: this process must still hold SQLite's WAL write lock; a close() of some
        descriptor of the -shm in this process since BEGIN would have dropped it."""
        probe = self._probes.get("-shm")
        if probe is None or not sys.platform.startswith("linux"):
            return
        request = _FLOCK.pack(fcntl.F_WRLCK, os.SEEK_SET, _SHM_WRITE_LOCK_BYTE, 1, 0)
        try:
            answer = fcntl.fcntl(probe.fd, _F_OFD_GETLK, request)
        except OSError:
            return  # no OFD locks (old kernel): nothing to check with
        kind, _whence, _start, _len, pid = _FLOCK.unpack(answer)
        if kind != fcntl.F_WRLCK or pid != os.getpid():
            raise WorkspaceError(
                f"{self.path}: this app lost its write lock on the workspace during the "
                "change (something in the app closed the file); the change was not saved"
            )


class WorkspaceDatabase(Database):
    """sqlite-utils' Database whose outermost `atomic()` is a guarded, immediate write
    transaction. Every write of the store goes through `atomic()` (repositories,
    migrations, `Workspace.transaction`)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        *,
        read_only: bool,
        connect: Callable[[], sqlite3.Connection] | None = None,
    ) -> None:
        super().__init__(conn, execute_plugins=False)
        self.read_only = read_only
        self.guard: Guard | None = None
        self._connect = connect
        #: Seconds the last write transaction waited for the write lock.
        self.last_wait_s = 0.0

    @property
    def can_reconnect(self) -> bool:
        return self._connect is not None

    def reconnect(self) -> None:
        if self._connect is None:
            raise WorkspaceError("this connection cannot be reopened")
        # Closed first: a new connection of this process would share the old -shm mapping.
        # The lock holder's SHARED lock keeps this close from checkpointing the old WAL.
        self.conn.close()
        self.conn = self._connect()

    def set_busy_timeout(self, seconds: float) -> None:
        self.conn.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")

    def busy_timeout(self) -> float:
        return int(self.conn.execute("PRAGMA busy_timeout").fetchone()[0]) / 1000

    @contextmanager
    def atomic(self) -> Iterator[Database]:
        if self.conn.in_transaction:
            with super().atomic():
                yield self
            return
        if self.guard is not None:
            self.guard.before_write(self)
        started = time.monotonic()
        try:
            self.conn.execute("BEGIN" if self.read_only else "BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            self.last_wait_s = time.monotonic() - started
            if _is_busy(exc):
                raise WorkspaceBusyError(self.last_wait_s) from exc
            raise
        self.last_wait_s = time.monotonic() - started
        try:
            yield self
            if self.guard is not None:
                self.guard.before_commit()
            self.conn.execute("COMMIT")
        except BaseException:
            if self.conn.in_transaction:
                self.conn.rollback()
            raise


def _is_busy(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    text = str(exc).lower()
    return "locked" in text or "busy" in text
