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
