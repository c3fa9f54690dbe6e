"""Hostile session files through the `axmem` command (issue 26), as a user would run it:
each replay ends within its limits with a clear report, the process exits normally, and
a crash of the runtime or a stuck child is a clear error. On main `axmem replay` of the
loop never returned, the deep object exited 139 (SIGSEGV), the hog took gigabytes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.cli.main import main
from axmem_gui.services import agent_runner, sessions
from tests.engine.conftest import INPUTS
from tests.engine.conftest import workspace_path as workspace_path  # (a fixture)
from tests.fakes.fake_openai_server import FakeOpenAIServer
from tests.helpers.faulty_worker import faulty_command
from tests.helpers.hostile_code import HOSTILE_CODE, LIMIT_KIND, hostile_session
from tests.helpers.session_docs import session_json

ROOT = Path(__file__).resolve().parents[2]
#: Only against a hang of the old code: no run here comes near it.
HANG_GUARD_S = 900


def _axmem(*args: str) -> tuple[subprocess.CompletedProcess[str], int]:
    """`axmem ARGS` in a process of its own; and the most memory it and the children it
    waited for (its agent worker) held, in KiB (Linux's wait4 counts both)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "axmem_gui.cli.main", *args],
            stdout=out,
            stderr=err,
            text=True,
            env=env,
            cwd=ROOT,
        )
        reaped: list[tuple[int, int, Any]] = []
        reaper = threading.Thread(target=lambda: reaped.append(os.wait4(process.pid, 0)))
        reaper.start()
        reaper.join(HANG_GUARD_S)
        if reaper.is_alive():
            process.kill()
            reaper.join()
        _pid, status, usage = reaped[0]
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        done = subprocess.CompletedProcess(process.args, process.returncode, out.read(), err.read())
    return done, int(usage.ru_maxrss)


def _file(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.axsession.json"
    sessions.write_session_file(hostile_session(name), path)
    return path


@pytest.mark.parametrize("name", sorted(HOSTILE_CODE))
def test_axmem_replay_of_a_hostile_file_ends_within_its_limits(name: str, tmp_path: Path) -> None:
    done, peak_kib = _axmem("replay", str(_file(tmp_path, name)))
    assert done.returncode == 0, done.stderr  # identical: the cage stops it the same way
    assert done.stdout.startswith("identical:")
    kind = LIMIT_KIND[name]
    if kind:
        assert "model code stopped by a limit (forward 0, code of call #0)" in done.stdout
    # The memory hog's 4 GB stayed at its 64 MiB limit (plus what Python itself takes).
    assert peak_kib < 1_500_000


def test_axmem_replay_of_a_time_bomb_past_its_hour_is_a_clear_difference(
    tmp_path: Path,
) -> None:
    done, _ = _axmem("replay", str(_file(tmp_path, "bomb")))
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("DIFFERENT")
    assert "Error: Execution timed out (limit: 0.5 s of CPU time)" in done.stdout


def test_a_file_that_fails_verify_needs_force(tmp_path: Path) -> None:
    doc = session_json(hostile_session("loop"))
    # what the file says the model was asked is not what its digest says
    doc["exchanges"][0]["request"]["chat_prompt"][-1]["content"] += " (tampered)"
    path = tmp_path / "tampered.axsession.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    refused, _ = _axmem("replay", str(path))
    assert refused.returncode == 2
    assert "does not hold what it claims" in refused.stderr
    assert "replay it anyway with --force" in refused.stderr
    forced, _ = _axmem("replay", "--force", str(path))
    assert forced.returncode == 1 and forced.stdout.startswith("DIFFERENT")


def test_axmem_run_whose_model_writes_an_endless_loop_finishes(
    server: FakeOpenAIServer, workspace_path: Path, tmp_path: Path
) -> None:
    server.state.actor_code = [HOSTILE_CODE["loop"]]
    out = tmp_path / "run.axsession.json"
    done, _ = _axmem(
        "run", "--workspace", str(workspace_path), "--agent", "triage",
        "--input", f"document={INPUTS[0]['document']}", "--input", f"query={INPUTS[0]['query']}",
        "--provider", "openai-compatible", "--model", "scripted-a",
        "--base-url", server.base_url, "--max-retries", "0",
        "--code-time-limit", "0.5", "-o", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "model code stopped by a limit (forward 0, code of call #0)" in done.stderr
    assert "Execution timed out (limit: 0.5 s of CPU time)" in done.stderr
    assert sessions.replay(sessions.read_session_file(out)).identical


@pytest.mark.parametrize(("how", "signal"), [("segv", "SIGSEGV"), ("abort", "SIGABRT")])
def test_axmem_survives_a_crash_of_the_runtime(
    how: str,
    signal: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _file(tmp_path, "deep")
    monkeypatch.setattr(agent_runner, "worker_command", lambda: faulty_command(how, 0))
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"axmem: error: the replay's process crashed ({signal}" in err
    assert "while running the model's code" in err
    # the same command goes on working
    monkeypatch.undo()
    assert main(["replay", str(path)]) == 0
