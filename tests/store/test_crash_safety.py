"""A writer killed in the middle of a transaction leaves an intact file holding all of the
batch or none of it, and never loses what was committed before."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from axmem_gui.core.catalog import Skill
from axmem_gui.store import Workspace

BATCH = 4000

WRITER = r"""
import sys
from axmem_gui.core.catalog import Skill
from axmem_gui.store import Workspace

path, kill_after = sys.argv[1], int(sys.argv[2])
ws = Workspace.open(path)
with ws.transaction():
    for i in range(BATCH_SIZE):
        ws.skills.upsert(Skill(f"batch-{i}", f"Batch {i}", "desc", "x" * 200))
        if i == kill_after:
            print("mid", flush=True)
            sys.stdin.readline()  # parent kills us here, inside the transaction
print("committed", flush=True)
sys.stdin.readline()
""".replace("BATCH_SIZE", str(BATCH))


@pytest.mark.parametrize("kill_after", [0, 1500, BATCH - 1])
def test_killed_writer_leaves_all_or_nothing(tmp_path: Path, kill_after: int) -> None:
    path = tmp_path / "crash.axmem"
    with Workspace.open(path, create=True) as ws:
        ws.skills.upsert(Skill("committed-before", "C", "", "safe"))
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), str(kill_after)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "mid"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    with Workspace.open(path) as ws:
        assert ws.integrity_check() == "ok"
        assert ws.skills.get("committed-before") is not None
        assert ws.skills.count() == 1  # none of the uncommitted batch


def test_killed_after_commit_keeps_whole_batch(tmp_path: Path) -> None:
    path = tmp_path / "crash.axmem"
    Workspace.open(path, create=True).close()
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), "-1"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "committed"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    with Workspace.open(path) as ws:
        assert ws.integrity_check() == "ok"
        assert ws.skills.count() == BATCH
