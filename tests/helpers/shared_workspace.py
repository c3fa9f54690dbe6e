"""Helpers for tests of a workspace shared between processes (issue 25): the real CLI in
a subprocess, what a library does to our locks, reading the file as another program."""

from __future__ import annotations

import os
import select
import sqlite3
import subprocess
import sys
from pathlib import Path


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """The real `axmem` command, in its own process."""
    done = subprocess.run(
        [sys.executable, "-m", "axmem_gui.cli.main", *args], capture_output=True, text=True
    )
    if check:
        assert done.returncode == 0, done.stderr
    return done


HOLD_WRITE_LOCK = (
    "import sqlite3, sys\n"
    "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
    "c.execute('BEGIN IMMEDIATE')\n"
    "c.execute(\"UPDATE workspace_settings SET value = value WHERE 0\")\n"
    "print('holding', flush=True)\n"
    "sys.stdin.readline()\n"
    "c.execute('COMMIT')\n"
)


class WriteLockHeld:
    """Another program in the middle of a write transaction on the workspace, until
    `release()` (it then commits and exits)."""

    def __init__(self, path: Path, script: str = HOLD_WRITE_LOCK) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", script, str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        assert self.process.stdout.readline() == "holding\n"

    def release(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.write("go\n")
            self.process.stdin.flush()
            self.process.wait()

    def __enter__(self) -> WriteLockHeld:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def sidecar(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def close_like_a_library(path: Path) -> None:
    """What Qt's MIME sniffing does to a workspace shown in a file dialog: open each of
    the file, -wal and -shm and close it again. On POSIX that close drops every lock this
    process holds on the file, SQLite's included."""
    for suffix in ("", "-wal", "-shm"):
        target = sidecar(path, suffix)
        if target.exists():
            os.close(os.open(target, os.O_RDONLY))


def ids_in_file(path: Path, kind: str = "skills") -> list[str]:
    """The ids another program sees (a fresh connection, read-only)."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return [r[0] for r in conn.execute(f"SELECT id FROM {kind} ORDER BY pk")]
    finally:
        conn.close()


def wait_gone(pid: int, patience_s: float = 60.0) -> bool:
    """Wait for a process that is not our child to exit (pidfd: an event, no polling).
    False if it still runs after `patience_s` (a bound against hanging only)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        readable, _, _ = select.select([fd], [], [], patience_s)
        return bool(readable)
    finally:
        os.close(fd)
