"""A workspace shared with other programs never loses a write (issue 25).

On POSIX, any close() of a descriptor of the workspace in this process (Qt's file dialog
sniffing file types does exactly that) drops every lock this process holds on it. The
desktop app's opens keep a lock holder process (store/lockholder.py), and every write is
checked first (store/sharing.py). These tests drop our locks as a library would, run the
real CLI between steps, and read /proc/locks."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from axmem_gui.core.catalog import Skill
from axmem_gui.core.errors import WorkspaceError
from axmem_gui.services.catalog import CatalogService
from axmem_gui.services.workspace import init_workspace
from axmem_gui.store import Workspace
from tests.helpers.proc_locks import LINUX, locks_of
from tests.helpers.shared_workspace import (
    cli,
    close_like_a_library,
    ids_in_file,
    sidecar,
    wait_gone,
)

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX record locks")

SHARED = (1073741826, 1073742335)  # SQLite's SHARED range on the database file
DMS = (128, 128)  # the -shm byte every connection of a WAL database holds shared


def _held(path: Path, pid: int) -> set[tuple[str, int, int]]:
    return {(lock.file, lock.start, lock.end) for lock in locks_of(path, pid)}


def _tagged(path: Path, skill_id: str) -> bool:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        row = conn.execute("SELECT tags FROM skills WHERE id = ?", [skill_id]).fetchone()
    finally:
        conn.close()
    return row is not None and "from-cli" in row[0]


@pytest.fixture
def path(tmp_path: Path) -> Path:
    p = tmp_path / "default.axmem"
    init_workspace(p, sample=True).close()
    return p


@pytest.mark.skipif(not LINUX, reason="reads /proc/locks")
def test_the_lock_holder_keeps_the_locks_a_library_drops(path: Path) -> None:
    ws = Workspace.open(path, hold_locks=True)
    try:
        ws.ensure_lock_holder()
        holder = ws.lock_holder_pid
        assert holder is not None
        mine = {("default.axmem", *SHARED), ("default.axmem-shm", *DMS)}
        assert _held(path, os.getpid()) == mine
        assert _held(path, holder) == mine
        wal, shm = sidecar(path, "-wal").stat().st_ino, sidecar(path, "-shm").stat().st_ino

        close_like_a_library(path)
        assert _held(path, os.getpid()) == set()  # what a file dialog does to us
        assert _held(path, holder) == mine  # nothing in this process can drop these

        first = ws.skills.ids()[0]
        cli("catalog", "tag", "--workspace", str(path), "add", "from-cli", "skills", first)
        # The CLI did not find itself alone: it neither deleted nor reinitialised ours.
        assert sidecar(path, "-wal").stat().st_ino == wal
        assert sidecar(path, "-shm").stat().st_ino == shm
        CatalogService(ws).create("skills", Skill("from-app", "From the app"))
        assert "from-app" in ids_in_file(path)
    finally:
        ws.close()
    # The holder closed last, checkpointed the real WAL and removed it.
    assert not sidecar(path, "-wal").exists()
    assert "from-app" in ids_in_file(path) and _tagged(path, first)
    assert wait_gone(holder)


def test_a_write_after_another_program_deleted_our_wal_goes_to_the_real_file(
    path: Path,
) -> None:
    """The belt for a holder that died: our locks dropped, the CLI found itself alone and
    deleted our -wal/-shm when it closed. Our next write must not go into the deleted
    WAL (lost; and a later close would checkpoint stale pages over the CLI's commit)."""
    ws = Workspace.open(path, hold_locks=True)
    try:
        ws.ensure_lock_holder()
        holder = ws.lock_holder_pid
        assert holder is not None
        os.kill(holder, signal.SIGKILL)
        assert wait_gone(holder)
        close_like_a_library(path)
        first = ws.skills.ids()[0]
        cli("catalog", "tag", "--workspace", str(path), "add", "from-cli", "skills", first)
        assert not sidecar(path, "-wal").exists()  # what the app had to survive

        CatalogService(ws).create("skills", Skill("from-app", "From the app"))
        assert ws.lock_holder_pid not in (None, holder)  # started again
        assert "from-app" in ids_in_file(path)
    finally:
        ws.close()
    assert "from-app" in ids_in_file(path) and _tagged(path, first)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    conn.close()


def test_without_a_holder_a_write_after_the_cli_deleted_our_wal_reaches_the_file(
    path: Path,
) -> None:
    """The same without any holder (the CLI's own opens, and the old app): the sharing
    check before each write notices the -wal it knew is gone and reopens; the old code
    wrote into the deleted WAL, and nobody else ever saw the write."""
    ws = Workspace.open(path)
    try:
        ws.skills.ids()
        close_like_a_library(path)
        first = ws.skills.ids()[0]
        cli("catalog", "tag", "--workspace", str(path), "add", "from-cli", "skills", first)
        assert not sidecar(path, "-wal").exists()
        CatalogService(ws).create("skills", Skill("from-app", "From the app"))
        assert "from-app" in ids_in_file(path)
    finally:
        ws.close()
    assert "from-app" in ids_in_file(path) and _tagged(path, first)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    conn.close()


@pytest.mark.skipif(not LINUX, reason="F_OFD_GETLK")
def test_a_write_whose_lock_was_dropped_mid_transaction_is_not_committed(path: Path) -> None:
    with Workspace.open(path) as ws:
        count = ws.skills.count()
        with pytest.raises(WorkspaceError, match="lost its write lock"), ws.transaction():
            ws.skills.upsert(Skill("half", "Half"))
            close_like_a_library(path)  # another thread opens a file dialog meanwhile
        assert ws.skills.count() == count
        ws.skills.upsert(Skill("whole", "Whole"))  # the next write takes its lock afresh
    assert "whole" in ids_in_file(path) and "half" not in ids_in_file(path)


def test_a_workspace_file_replaced_while_open_is_not_written(path: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.axmem"
    init_workspace(other).close()
    with Workspace.open(path) as ws:
        os.replace(other, path)
        with pytest.raises(WorkspaceError, match="moved, replaced or deleted"):
            ws.skills.upsert(Skill("lost", "Lost"))
    assert ids_in_file(path) == []


def test_the_holder_never_outlives_the_app(path: Path, tmp_path: Path) -> None:
    """kill -9 of the app: the holder sees its stdin close, does the final checkpoint of
    the real WAL (the app's last write included) and exits."""
    script = (
        "import sys\n"
        "from axmem_gui.core.catalog import Skill\n"
        "from axmem_gui.store import Workspace\n"
        "ws = Workspace.open(sys.argv[1], hold_locks=True)\n"
        "ws.ensure_lock_holder()\n"
        "ws.skills.upsert(Skill('last-word', 'Last word'))\n"
        "print(ws.lock_holder_pid, flush=True)\n"
        "sys.stdin.read()\n"
    )
    app = subprocess.Popen(
        [sys.executable, "-c", script, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert app.stdout is not None
    holder = int(app.stdout.readline())
    app.kill()
    app.wait()
    assert wait_gone(holder)
    assert not sidecar(path, "-wal").exists()
    assert "last-word" in ids_in_file(path)


def test_a_writer_waits_for_another_programs_transaction(path: Path) -> None:
    """`axmem catalog tag` beside a long import failed at once ("another program is
    writing"): it read, then asked for the write lock, and SQLite refuses a transaction
    that read before another writer's commit. Every write transaction is immediate now,
    so it waits for the lock (up to the busy timeout) and then sees the other's commit."""
    other = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys\n"
            "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "c.execute('BEGIN IMMEDIATE')\n"
            "c.execute(\"UPDATE skills SET revision = revision + 1\")\n"
            "print('holding', flush=True)\n"
            "sys.stdin.readline()\n"
            "c.execute('COMMIT')\n",
            str(path),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert other.stdout is not None and other.stdin is not None
    assert other.stdout.readline() == "holding\n"
    ids = ids_in_file(path)[:3]
    writing = threading.Event()
    outcome: list[object] = []

    def tag() -> None:  # a writer of its own (a connection belongs to its thread)
        with Workspace.open(path) as ws:
            # Set when the writer asks for the write lock: its first write statement
            # (old: after reading in a deferred transaction), or BEGIN IMMEDIATE.
            ws.db.conn.set_trace_callback(
                lambda sql: writing.set()
                if sql.startswith(("BEGIN IMMEDIATE", "UPDATE", "INSERT"))
                else None
            )
            try:
                outcome.append(CatalogService(ws).tag("skills", ids, "waited", add=True))
            except WorkspaceError as exc:
                outcome.append(exc)

    worker = threading.Thread(target=tag)
    worker.start()
    assert writing.wait(60)
    other.stdin.write("go\n")
    other.stdin.flush()
    worker.join()
    other.wait()
    assert isinstance(outcome[0], dict), outcome[0]
    with Workspace.open(path) as ws:
        assert all("waited" in ws.skills.get(i).tags for i in ids)  # type: ignore[union-attr]


def test_a_lock_holder_that_cannot_start_refuses_writes_with_the_reason(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from axmem_gui.store import lockholder

    monkeypatch.setattr(
        lockholder, "holder_command", lambda p: [str(path.parent / "no-such-program")]
    )
    with Workspace.open(path, hold_locks=True) as ws:
        assert ws.skills.count() > 0  # reading needs no holder
        with pytest.raises(WorkspaceError, match="cannot keep the workspace safe"):
            CatalogService(ws).create("skills", Skill("unguarded", "Unguarded"))
    assert "unguarded" not in ids_in_file(path)
