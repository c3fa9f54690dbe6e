"""Never lose a write: the real app beside the real CLI (issue 25, "Done when").

The desktop app runs in its own process (tests/reliability/app_driver.py: the real
`axmem_gui.app.main`, real main window, real Qt file dialogs), the CLI in others, and the
test kills the app with SIGKILL. On the old code, cancelling File > Open Workspace… made
Qt read and close `default.axmem`, `-wal` and `-shm`; the app lost its locks (2 -> 0 in
/proc/locks), `axmem info` then deleted the app's WAL, and the app's next edit went into
the deleted file: gone after a crash, and its close checkpointed stale pages over the
CLI's commit."""

from __future__ import annotations

import json
import os
import select
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.services.workspace import init_workspace
from tests.helpers.proc_locks import LINUX, locks_of
from tests.helpers.shared_workspace import cli, ids_in_file, wait_gone

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX record locks")

DRIVER = Path(__file__).with_name("app_driver.py")
REPO = Path(__file__).resolve().parents[2]
PATIENCE_S = 180.0  # against a hang only: every wait below is for an answer


class AppProcess:
    """The app in a subprocess, one command and one JSON answer at a time."""

    def __init__(self, workspace: Path, log: Path) -> None:
        self.log = log.open("wb")
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        self.process = subprocess.Popen(
            [sys.executable, str(DRIVER), str(workspace)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            env=env,
        )
        self._buffer = b""
        ready = self._line()
        assert ready.get("ready"), ready
        self.pid = int(ready["pid"])

    def _line(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        while b"\n" not in self._buffer:
            readable, _, _ = select.select([fd], [], [], PATIENCE_S)
            chunk = os.read(fd, 65536) if readable else b""
            if not chunk:
                raise AssertionError(f"the app stopped answering; see {self.log.name}")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return dict(json.loads(line))

    def ask(self, command: str) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(command.encode() + b"\n")
        self.process.stdin.flush()
        answer = self._line()
        assert "error" not in answer, answer
        return answer

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.log.close()

    def quit(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.write(b"quit\n")
        self.process.stdin.flush()
        code = self.process.wait(PATIENCE_S)
        self.log.close()
        return code


def _locks(path: Path, pid: int | None) -> list[str]:
    if not LINUX or pid is None:
        return []
    return sorted(f"{lock.file} {lock.start}-{lock.end}" for lock in locks_of(path, pid))


def _skill_folder(root: Path, skill_id: str) -> None:
    folder = root / skill_id
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {skill_id}\ndescription: imported by the test\n---\n\nBody of {skill_id}.\n",
        encoding="utf-8",
    )


def _tags(path: Path, skill_id: str) -> str:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        row = conn.execute("SELECT tags FROM skills WHERE id = ?", [skill_id]).fetchone()
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        conn.close()
    return "" if row is None else str(row[0])


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    path = folder / "default.axmem"
    init_workspace(path, sample=True).close()
    return path


def test_an_entry_added_in_the_app_survives_file_dialogs_the_cli_and_kill_9(
    workspace: Path, tmp_path: Path
) -> None:
    incoming = workspace.parent / "incoming"
    for skill_id in ("imported-one", "imported-two"):
        _skill_folder(incoming, skill_id)
    app = AppProcess(workspace, tmp_path / "app.log")
    try:
        holder = app.ask("info")["holder"]  # None on the old code: no lock holder
        before = {"app": _locks(workspace, app.pid), "holder": _locks(workspace, holder)}

        # File > Open Workspace…, Cancel; then any CLI command.
        app.ask("dialog open cancel")
        after = {"app": _locks(workspace, app.pid), "holder": _locks(workspace, holder)}
        print(f"/proc/locks before the dialog: {before}\n/proc/locks after it: {after}")
        cli("info", "--workspace", str(workspace))

        # File > Import Skills Folder…, Cancel; then a CLI commit.
        app.ask("dialog folder cancel")
        first = ids_in_file(workspace)[0]
        cli("catalog", "tag", "--workspace", str(workspace), "add", "from-cli", "skills", first)

        # Edit > New in the app: the CLI sees it at once, and so does the file.
        created = app.ask("new")
        assert created["saved"] and created["new"], created
        seen = cli("info", "--workspace", str(workspace)).stdout
        assert f"skills: {created['skills']}" in seen
        assert "· saved" in created["status"]

        # Both dialogs accepted: a folder imported, the workspace opened again.
        imported = app.ask(f"dialog folder accept {incoming}")
        assert imported["skills"] == created["skills"] + 2
        cli("info", "--workspace", str(workspace))
        app.ask(f"dialog open accept {workspace}")
        again = app.ask("new")
        assert again["saved"] and again["new"] != created["new"]
        last_holder = again["holder"]
    finally:
        app.kill()
    assert last_holder is None or wait_gone(last_holder)  # it never outlives the app
    ids = ids_in_file(workspace)
    for skill_id in (created["new"], again["new"], "imported-one", "imported-two"):
        assert skill_id in ids
    assert "from-cli" in _tags(workspace, first)
    assert holder is not None  # the app's open keeps a lock holder
    if LINUX:
        # The holder's locks are out of reach of any close() in the app; and the dialog
        # (an icon provider that reads no file) did not even drop the app's own. (Only
        # the locks a connection keeps count: a read mark comes and goes with each read.)
        kept = {"default.axmem 1073741826-1073742335", "default.axmem-shm 128-128"}
        for who in ("holder", "app"):
            assert kept <= set(before[who]) and kept <= set(after[who]), (who, before, after)


def test_a_cli_commit_made_while_the_app_is_open_survives_the_app_closing(
    workspace: Path, tmp_path: Path
) -> None:
    source = tmp_path / "cli.json"
    source.write_text(
        json.dumps({"skills": [{"id": "from-cli-import", "name": "CLI", "content": "x"}]}),
        encoding="utf-8",
    )
    app = AppProcess(workspace, tmp_path / "app.log")
    try:
        app.ask("dialog open cancel")
        cli("import", "--workspace", str(workspace), str(source))
        created = app.ask("new")
        assert created["saved"]
        cli("catalog", "tag", "--workspace", str(workspace), "add", "late", "skills",
            "from-cli-import")
        holder = app.ask("info")["holder"]
        assert app.quit() == 0
    except BaseException:
        app.kill()
        raise
    assert holder is None or wait_gone(holder)
    ids = ids_in_file(workspace)
    assert "from-cli-import" in ids and created["new"] in ids
    assert "late" in _tags(workspace, "from-cli-import")
