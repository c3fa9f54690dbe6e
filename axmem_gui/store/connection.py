"""Opening a workspace file: identify it, refuse what is not ours, migrate what is old.

Every check that can fail runs before anything is written, so a file we refuse is left
byte-for-byte untouched.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from axmem_gui.core.errors import WorkspaceError
from axmem_gui.core.filehandles import FileHandle, NotRegularFile, acquire
from axmem_gui.store import schema
from axmem_gui.store.errors import explain_sqlite_error
from axmem_gui.store.lean_sqlite_utils import Database
from axmem_gui.store.records import DAMAGED_HINT
from axmem_gui.store.schema_check import foreign_objects, refusal
from axmem_gui.store.sharing import (
    WRITE_WAIT_S,
    Guard,
    WorkspaceDatabase,
    holder_supported,
)

SQLITE_MAGIC = b"SQLite format 3\x00"


@dataclass(frozen=True)
class OpenedDatabase:
    db: WorkspaceDatabase
    read_only: bool
    schema_version: int
    backup_path: Path | None
    #: This open's share of the raw descriptors on the file (see filehandles): release
    #: it after closing `db`, never before.
    handle: FileHandle
    #: The checks before every write (None when read-only): close it after `db`.
    guard: Guard | None = None


def _damaged(exc: BaseException) -> WorkspaceError | None:
    """The WorkspaceError for a sign of a damaged file met while reading, else None.
    Only corruption is translated: full disks, locks and constraint errors stay as they
    are for the code that handles them."""
    if type(exc) is sqlite3.DatabaseError:
        return WorkspaceError(
            f"the workspace file is damaged (SQLite reported: {exc}); {DAMAGED_HINT}"
        )
    if isinstance(exc, sqlite3.OperationalError) and str(exc).startswith(
        ("no such table", "no such column", "malformed")
    ):
        # Every table and column is created by our migrations: a missing one means the
        # schema text was damaged or edited by another program.
        return WorkspaceError(
            f"the workspace file is damaged or its schema was changed (SQLite reported: "
            f"{exc}); {DAMAGED_HINT}"
        )
    if isinstance(exc, UnicodeDecodeError) or (
        isinstance(exc, sqlite3.OperationalError) and "decode to UTF-8" in str(exc)
    ):
        return WorkspaceError(
            f"the workspace file is damaged (text that is not valid UTF-8); {DAMAGED_HINT}"
        )
    return None


class _GuardedCursor(sqlite3.Cursor):
    """A cursor whose corruption errors surface as WorkspaceError, wherever they happen
    (a malformed page is often only found while stepping through rows)."""

    def execute(self, sql: str, parameters: Any = (), /) -> _GuardedCursor:
        try:
            super().execute(sql, parameters)
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            raise _damaged(exc) or exc from exc
        return self

    def executemany(self, sql: str, seq: Any, /) -> _GuardedCursor:
        try:
            super().executemany(sql, seq)
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            raise _damaged(exc) or exc from exc
        return self

    def fetchone(self) -> Any:
        try:
            return super().fetchone()
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            raise _damaged(exc) or exc from exc

    def fetchmany(self, size: int | None = 1) -> list[Any]:
        try:
            return super().fetchmany(size)
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            raise _damaged(exc) or exc from exc

    def fetchall(self) -> list[Any]:
        try:
            return super().fetchall()
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            raise _damaged(exc) or exc from exc

    def __next__(self) -> Any:
        try:
            return super().__next__()
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            raise _damaged(exc) or exc from exc


class GuardedConnection(sqlite3.Connection):
    """sqlite3.Connection whose every cursor is a `_GuardedCursor`."""

    def cursor(self, factory: Any = _GuardedCursor) -> Any:
        return super().cursor(factory)

    def execute(self, sql: str, parameters: Any = (), /) -> Any:
        return self.cursor().execute(sql, parameters)

    def executemany(self, sql: str, parameters: Any, /) -> Any:
        return self.cursor().executemany(sql, parameters)


def _utc_stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")


def _check_header(path: Path) -> FileHandle:
    """Refuse what is not an SQLite file (or empty), and return the handle the header was
    read through. Never opens and closes a descriptor of its own: on POSIX that close would
    drop every SQLite lock this process holds on the file (see filehandles)."""
    try:
        handle = acquire(path)
    except NotRegularFile as exc:
        if exc.is_dir:
            raise WorkspaceError(f"{path}: is a directory, not a workspace file") from None
        raise WorkspaceError(f"{path}: not a regular file, so not a workspace") from None
    except PermissionError:
        raise WorkspaceError(f"{path}: cannot read the workspace (permission denied)") from None
    except IsADirectoryError:
        raise WorkspaceError(f"{path}: is a directory, not a workspace file") from None
    except OSError as exc:
        raise WorkspaceError(f"{path}: cannot read the workspace: {exc.strerror}") from None
    try:
        try:
            head = handle.pread(len(SQLITE_MAGIC), 0)
        except OSError as exc:
            raise WorkspaceError(f"{path}: cannot read the workspace: {exc.strerror}") from None
        if len(head) > 0 and head != SQLITE_MAGIC:  # an empty file is a new workspace
            raise WorkspaceError(
                f"{path}: not an Ax Memory & Skills Studio workspace (not an SQLite database)"
            )
    except BaseException:
        handle.release()
        raise
    return handle


@dataclass(frozen=True)
class _Inspection:
    empty: bool
    applied: list[str]
    user_version: int
    migration_sets: list[str]


def _applied(conn: sqlite3.Connection) -> tuple[list[str], list[str]]:
    """(our applied migrations, every migration set recorded in the file)."""
    row = conn.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND name='_sqlite_migrations'"
    ).fetchone()
    if row is None:
        return [], []
    # Every column sqlite-utils reads is named, so a damaged table definition (a flipped
    # byte in `applied_at`) is refused here, untouched, not met later as a KeyError.
    applied = [
        r[0]
        for r in conn.execute(
            "SELECT name, applied_at FROM _sqlite_migrations WHERE migration_set = ? ORDER BY id",
            [schema.MIGRATION_SET],
        )
    ]
    sets = [
        str(r[0])
        for r in conn.execute("SELECT DISTINCT migration_set FROM _sqlite_migrations ORDER BY 1")
    ]
    return applied, sets


def _inspect(path: Path) -> _Inspection:
    """What the file holds, read through a read-only connection."""
    conn = _read_only_connection(path)
    try:
        try:
            tables = [
                r[0]
                for r in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
                )
            ]
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            user_version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            applied, sets = _applied(conn)
            known = schema.known_migration_names()
            ours = bool(applied) and applied == known[: len(applied)]
            foreign = foreign_objects(conn, len(applied)) if ours else []
        except (sqlite3.DatabaseError, UnicodeDecodeError, WorkspaceError) as exc:
            raise WorkspaceError(
                f"{path}: the workspace file is damaged or not a database ({exc})"
            ) from None
    finally:
        conn.close()
    if not tables:
        return _Inspection(True, [], user_version, [])
    if app_id != schema.APPLICATION_ID or not applied:
        raise WorkspaceError(
            f"{path}: an SQLite database, but not an Ax Memory & Skills Studio workspace"
        )
    if foreign:
        raise WorkspaceError(f"{path}: {refusal(foreign)}")
    return _Inspection(False, applied, user_version, sets)


def _check_version(path: Path, found: _Inspection) -> int:
    """The schema version, or WorkspaceError (the file untouched) when a newer or other
    program owns it: unknown migrations, another migration set, a higher user_version."""
    known = schema.known_migration_names()
    latest = len(known)
    unknown = [name for name in found.applied if name not in known]
    other_sets = [name for name in found.migration_sets if name != schema.MIGRATION_SET]
    if unknown or found.user_version > latest:
        version = max(len(found.applied), found.user_version)
        raise WorkspaceError(
            f"{path}: this workspace was written by a newer version of Ax Memory & Skills "
            f"Studio (schema {version}, this version reads up to {latest}); "
            "update the app to open it. The file was not modified."
        )
    if other_sets:
        raise WorkspaceError(
            f"{path}: this workspace also holds migrations of another program "
            f"({', '.join(other_sets[:3])}); it is not opened, so it is not changed. "
            "The file was not modified."
        )
    return len(found.applied)


def _backup(path: Path, handle: FileHandle, version: int, *, byte_copy: bool) -> Path:
    target = path.with_name(f"{path.name}.v{version}-{_utc_stamp()}.bak")
    if byte_copy:
        # Nothing pending in a WAL: the file alone is the database, and a byte copy lets a
        # failed upgrade put back exactly the bytes it found (_undo_upgrade). Otherwise the
        # backup API reads the file and its WAL as one.
        try:
            # Read through the held descriptor: closing one of our own would drop the
            # locks of this process's SQLite connections to the file (see filehandles).
            with target.open("xb") as dst_file:
                offset = 0
                while chunk := handle.pread(1 << 20, offset):
                    dst_file.write(chunk)
                    offset += len(chunk)
                dst_file.flush()
                os.fsync(dst_file.fileno())
        except OSError as exc:
            target.unlink(missing_ok=True)
            raise WorkspaceError(
                f"{path}: could not write a backup before upgrading ({exc}); nothing was changed"
            ) from None
        return target
    src = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        dst = sqlite3.connect(str(target))
        try:
            src.backup(dst)
        finally:
            dst.close()
    except sqlite3.Error as exc:
        raise WorkspaceError(
            f"{path}: could not write a backup before upgrading ({exc}); nothing was changed"
        ) from None
    finally:
        src.close()
    return target


def _undo_upgrade(path: Path, handle: FileHandle, backup: Path) -> bool:
    """A refused upgrade leaves the file as it found it and nothing beside it: the byte
    copy (see _backup) goes back into place (switching to WAL alone rewrites the header),
    then goes. False when that failed: the backup then stays, it is the user's copy.
    The descriptor written through is not closed here but handed to `handle` (closing it
    could drop this process's SQLite locks on the file, see filehandles)."""
    try:
        fd = os.open(path, os.O_RDWR | getattr(os, "O_BINARY", 0))
    except OSError:
        return False
    handle.adopt(fd)
    try:
        # closefd=False: leaving the block flushes but does not close the descriptor.
        with backup.open("rb") as src_file, os.fdopen(fd, "r+b", closefd=False) as dst_file:
            while chunk := src_file.read(1 << 20):
                dst_file.write(chunk)
            dst_file.truncate()
            dst_file.flush()
            os.fsync(fd)
        backup.unlink()
    except OSError:
        return False
    return True


def _writable(path: Path) -> bool:
    if path.exists():
        return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)
    return os.access(path.parent, os.W_OK)


def _read_only_connection(path: Path) -> sqlite3.Connection:
    """mode=ro first; a WAL file on read-only media may need immutable=1 (no -shm file
    can be created there), which is safe because nobody can write that medium either."""
    base = path.resolve().as_uri()
    try:
        conn = sqlite3.connect(f"{base}?mode=ro", uri=True, factory=GuardedConnection)
    except sqlite3.Error as exc:
        raise WorkspaceError(f"{path}: cannot open the workspace: {exc}") from None
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except WorkspaceError as exc:
        conn.close()
        raise WorkspaceError(f"{path}: {exc}") from None
    except sqlite3.OperationalError:
        conn.close()  # typically: WAL file on media where no -shm can be created
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise WorkspaceError(
            f"{path}: the workspace file is damaged or not a database ({exc})"
        ) from None
    wal = _sidecar(path, "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        # immutable=1 would ignore the WAL: a stale catalog shown as if it were current.
        raise WorkspaceError(
            f"{path}: the workspace has committed changes in {wal.name} that cannot be read "
            f"here (the folder is read-only and {path.name}-shm is missing); copy "
            f"{path.name} and {wal.name} to a writable folder and open the copy"
        )
    try:
        return sqlite3.connect(f"{base}?immutable=1", uri=True, factory=GuardedConnection)
    except sqlite3.Error as exc:
        raise WorkspaceError(f"{path}: cannot open the read-only workspace: {exc}") from None


def _configure(db: Database | sqlite3.Connection, read_only: bool) -> None:
    # No function call in a schema object may have side effects (a belt: the schema
    # check already refuses every object the migrations did not create).
    db.execute("PRAGMA trusted_schema = OFF")
    db.execute("PRAGMA foreign_keys = ON")
    db.execute(f"PRAGMA busy_timeout = {int(WRITE_WAIT_S * 1000)}")
    if not read_only:
        if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            db.execute("PRAGMA journal_mode = WAL")
        # FULL: a committed edit survives power loss too, not only a killed process.
        db.execute("PRAGMA synchronous = FULL")


def _sidecar(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def _sidecars(path: Path) -> set[str]:
    return {s for s in ("-wal", "-shm") if os.path.lexists(_sidecar(path, s))}


def _remove_new_sidecars(path: Path, before: set[str]) -> None:
    """Inspecting a WAL database creates -wal/-shm beside it; a refused file keeps none.
    Only files that were not there before (so no other program was using them) go."""
    for suffix in ("-wal", "-shm"):
        if suffix not in before:
            with contextlib.suppress(OSError):
                _sidecar(path, suffix).unlink()


def open_database(
    path: Path, *, create: bool, read_only: bool = False, hold_locks: bool = False
) -> OpenedDatabase:
    """Open (or create) the workspace at `path`, migrating it if it is older. With
    `hold_locks` (the desktop app), a lock holder process keeps the file's shared locks
    while it is open (see `lockholder`).

    Raises WorkspaceError, leaving the file untouched and nothing beside it, for files
    that are not ours, damaged, or written by a newer version."""
    path = Path(path)
    before = _sidecars(path)
    # Decided before anything opens the file: inspecting a WAL database through a
    # read-only connection creates an empty -wal beside it, which is not a pending one.
    wal = _sidecar(path, "-wal")
    pending_wal = "-wal" in before and (not wal.is_file() or wal.stat().st_size > 0)
    held: list[FileHandle] = []
    try:
        return _open_database(
            path,
            create=create,
            read_only=read_only,
            hold_locks=hold_locks,
            pending_wal=pending_wal,
            held=held,
        )
    except WorkspaceError:
        for handle in held:
            handle.release()
        _remove_new_sidecars(path, before)
        raise
    except BaseException:
        for handle in held:
            handle.release()
        raise


def _open_database(
    path: Path,
    *,
    create: bool,
    read_only: bool,
    hold_locks: bool,
    pending_wal: bool,
    held: list[FileHandle],
) -> OpenedDatabase:
    """`held` receives the handle on the file as soon as there is one, for the caller
    to release if the open fails."""
    exists = path.exists()
    if not exists and not create:
        raise WorkspaceError(f"{path}: no such workspace")
    if not exists and not path.parent.exists():
        raise WorkspaceError(f"{path}: the folder {path.parent} does not exist")
    if exists:
        held.append(_check_header(path))
        found = _inspect(path) if path.stat().st_size > 0 else _Inspection(True, [], 0, [])
        version = _check_version(path, found)
        empty = found.empty
    else:
        empty, version = True, 0
    if empty and not create:
        raise WorkspaceError(f"{path}: an empty database, not a workspace")

    file_read_only = not _writable(path)
    read_only = read_only or file_read_only
    latest = schema.latest_version()
    if read_only:
        if empty:
            raise WorkspaceError(f"{path}: cannot create a workspace here (read-only)")
        if version < latest:
            # A command that only reads never upgrades; say which of the two it is.
            how = (
                "but the file is read-only; copy it somewhere writable to open it"
                if file_read_only
                else "and this command only reads it; open it in the app or run "
                f"`axmem info -w {path}` once to upgrade it (a backup is kept)"
            )
            raise WorkspaceError(
                f"{path}: this workspace needs an upgrade (schema {version} to {latest}) {how}"
            )
        # No sqlite-utils plugins (entry points of whatever else is installed) run on a
        # workspace connection; finding them read every installed package's metadata
        # on each open (about 25 ms of the app's start-up).
        db = WorkspaceDatabase(_read_only_connection(path), read_only=True)
        _configure(db, read_only=True)
        return OpenedDatabase(db, True, version, None, held[0])

    backup_path = None
    # With nothing pending in a WAL, _backup makes a byte copy that can undo a failed upgrade.
    byte_copy = not pending_wal
    if not empty and version < latest:
        backup_path = _backup(path, held[0], version, byte_copy=byte_copy)
    try:
        connection = sqlite3.connect(str(path), factory=GuardedConnection)
        # (no plugins: as above)
        db = WorkspaceDatabase(connection, read_only=False, connect=lambda: _reconnect(path))
    except sqlite3.Error as exc:
        raise WorkspaceError(
            f"{path}: cannot open the workspace (SQLite reported: {exc})"
        ) from None
    try:
        _configure(db, read_only=False)
        if empty:
            db.execute(f"PRAGMA application_id = {schema.APPLICATION_ID}")
        if schema.migrations.pending(db):
            schema.migrations.apply(db)
        if db.execute("PRAGMA user_version").fetchone()[0] != latest:
            db.execute(f"PRAGMA user_version = {latest}")
    except sqlite3.Error as exc:
        db.close()
        kept = ""
        undone = byte_copy and backup_path is not None and _undo_upgrade(path, held[0], backup_path)
        if backup_path is not None and not undone:
            kept = f"; its state before the attempt is kept in {backup_path.name}"
        raise WorkspaceError(
            f"{path}: could not prepare the workspace: {explain_sqlite_error(exc)}{kept}"
        ) from None
    if not held:
        # A new file: hold it too, so a later header check in this process reuses this
        # descriptor instead of opening and closing one under our SQLite locks.
        try:
            held.append(acquire(path))
        except OSError as exc:
            db.close()
            raise WorkspaceError(f"{path}: cannot open the workspace: {exc}") from None
    holder_key = held[0].key if hold_locks and holder_supported() else None
    guard = Guard(path, held[0], latest, holder_key)
    try:
        # Checked again on this connection: another program may have changed the schema
        # since `_inspect` looked (later changes move the cookie the guard watches).
        guard.start(db.conn, wait=False)
    except BaseException:
        db.close()
        guard.close()
        raise
    db.guard = guard
    return OpenedDatabase(db, False, latest, backup_path, held[0], guard)


def _reconnect(path: Path) -> sqlite3.Connection:
    """A fresh connection for `WorkspaceDatabase.reconnect`, configured as on open."""
    try:
        conn = sqlite3.connect(str(path), factory=GuardedConnection)
        _configure(conn, read_only=False)
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error as exc:
        raise WorkspaceError(
            f"{path}: cannot open the workspace again (SQLite reported: {exc})"
        ) from None
    return conn
