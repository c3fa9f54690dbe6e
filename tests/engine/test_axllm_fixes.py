"""A recall that loads nothing: Ax TS goes on, axllm 25.4.6 failed the next actor turn
("Expected 'memories' to be a string"); the studio makes axllm behave as Ax does."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.engine.axllm_fixes import install_memories_fix
from tests.helpers.cli import run_cli


def test_a_recall_that_loads_nothing_does_not_fail_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws, out = tmp_path / "s.axmem", tmp_path / "out.axsession.json"
    assert run_cli(capsys, "init", "--sample", str(ws))[0] == 0
    code, stdout, stderr = run_cli(
        capsys, "run", "-w", str(ws), "--agent", "ops-assistant", "--input", "userRequest=hi",
        "--provider", "scripted", "--model", "scripted-a", "-q", "-o", str(out),
    )  # fmt: skip
    assert code == 0, stderr
    assert "forward 1: {" in stdout and "Memories" not in stderr
    doc: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    assert doc["status"] == "complete"
    recalls = [s for s in doc["forwards"][0]["searches"] if s["kind"] == "recall"]
    assert recalls and all(s["results"] == [] for s in recalls)
    # The turn after the empty recall has no Memories field, as in Ax (it deletes an
    # empty one), and nothing of the runtime's list leaks into the prompt.
    after = doc["exchanges"][recalls[0]["call_index"] + 1]
    user = after["request"]["chat_prompt"][-1]["content"]
    assert isinstance(user, str) and "\nMemories:" not in user and "[]" not in user
    code, stdout, _ = run_cli(capsys, "replay", str(out))
    assert code == 0 and stdout.startswith("identical: ")


def test_the_fix_drops_only_a_list_and_axllm_still_needs_it() -> None:
    assert install_memories_fix() and install_memories_fix()  # once per process
    module = importlib.import_module("axllm.agent")
    patched = module._agent_rlm_distiller_values
    original = patched.__wrapped__
    state: dict[str, Any] = {"loaded_memories": []}
    # axllm's own builder keeps the runtime's list: the defect this works around. When an
    # axllm release renders or drops it itself, this fails and the fix can go.
    assert original(state, {"userRequest": "hi", "memories": []}, {}).get("memories") == []
    assert "memories" not in patched(state, {"userRequest": "hi", "memories": []}, {})
    # A loaded text stays where the list stood (the recorded trace keeps the order).
    loaded = {"loaded_memories": [{"id": "m1", "content": "fact"}]}
    order = list(patched(loaded, {"userRequest": "hi", "memories": [], "more": "x"}, {}))
    assert order[:3] == ["userRequest", "memories", "more"]
    # A string the app passes itself is the app's, left as it is.
    kept = patched(state, {"memories": "my notes"}, {})
    assert kept["memories"] == "my notes"
    text = patched(loaded, {"memories": loaded["loaded_memories"]}, {})["memories"]
    assert text == original(loaded, {}, {})["memories"] and "m1" in text
