"""Another process edits a workspace this process has open (the CLI beside the GUI).

On POSIX, closing any descriptor of a file drops every fcntl lock the process holds on
it, SQLite's included. A second open of the same file in this process (the retrieval
index job does one, read-only) must not do that: otherwise the other process believes
it is alone, checkpoints, deletes the -wal/-shm under our connection, and our next read
calls a healthy file damaged."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from axmem_gui.core.errors import InputError
from axmem_gui.core.filehandles import held_descriptors
from axmem_gui.services.files import read_utf8_file
from axmem_gui.services.workspace import init_workspace
from axmem_gui.store.workspace import Workspace


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "axmem_gui.cli.main", *args], capture_output=True, text=True
    )


def test_a_second_open_in_this_process_keeps_our_locks(tmp_path: Path) -> None:
    path = tmp_path / "X.axmem"
    init_workspace(path, sample=True).close()
    shm = path.with_name(path.name + "-shm")
    main = Workspace.open(path)  # connection A, the GUI's
    try:
        ids = [s.id for s in main.skills.all()]
        assert len(ids) >= 2 and main.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert shm.exists()
        # What the retrieval index job does, in the same process.
        with Workspace.open(path, read_only=True) as second:
            assert len(second.catalog().skills) == len(ids)
        with Workspace.open(path, read_only=True) as third:
            third.counts()

        for n, skill_id in enumerate(ids[:2], start=1):
            done = _cli("catalog", "delete", "--workspace", str(path), "skills", skill_id)
            assert done.returncode == 0, done.stderr
            # The other process saw us: it neither checkpointed away nor deleted the -shm.
            assert shm.exists()
            assert [s.id for s in main.skills.all()] == ids[n:]
        assert main.integrity_check() == "ok"
        assert main.counts().skills == len(ids) - 2
        assert held_descriptors(path) == 1  # one descriptor, shared, kept open
    finally:
        main.close()
    assert held_descriptors(path) == 0


def test_reading_the_open_workspace_as_a_plain_file_keeps_our_locks(tmp_path: Path) -> None:
    """Every reader of user files (imports, skill folder resources) goes through
    core.formats.fileio: naming the open workspace as, say, a suite file is refused
    without dropping our locks."""
    path = tmp_path / "X.axmem"
    init_workspace(path, sample=True).close()
    main = Workspace.open(path)
    try:
        ids = [s.id for s in main.skills.all()]
        with pytest.raises(InputError, match="binary"):
            read_utf8_file(path, "suite file")
        for n, skill_id in enumerate(ids[:2], start=1):
            done = _cli("catalog", "delete", "--workspace", str(path), "skills", skill_id)
            assert done.returncode == 0, done.stderr
            assert path.with_name(path.name + "-shm").exists()
            assert [s.id for s in main.skills.all()] == ids[n:]
    finally:
        main.close()
    assert held_descriptors(path) == 0
