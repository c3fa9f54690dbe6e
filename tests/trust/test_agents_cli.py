"""`axmem agents list|show|add|edit|remove`: JSON in and out, revision checks."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.services.workspace import init_workspace
from tests.helpers.cli import run_cli

CONFIG: dict[str, Any] = {
    "name": "helper",
    "signature": "request:string -> answer:string",
    "instruction": "Answer briefly.",
    "catalog": {"skills": "all", "memories": {"tags": ["ops"]}},
    "contextMap": {"maxChars": 1200, "infiniteEvolve": True},
}


@pytest.fixture
def ws_path(tmp_path: Path) -> Path:
    path = tmp_path / "a.axmem"
    init_workspace(path).close()
    return path


def test_add_show_edit_remove_round_trip(
    ws_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    w = ["--workspace", str(ws_path)]
    code, out, _ = run_cli(capsys, "agents", "list", *w)
    assert code == 0 and "no agent configs yet" in out

    source = tmp_path / "helper.json"
    source.write_text(json.dumps(CONFIG), encoding="utf-8")
    code, out, _ = run_cli(capsys, "agents", "add", *w, str(source))
    added = json.loads(out)
    assert code == 0 and added["revision"] == 1 and added["config"]["name"] == "helper"
    assert added["config"]["contextMap"]["maxChars"] == 1200

    code, out, _ = run_cli(capsys, "agents", "list", *w, "--json")
    assert [(a["name"], a["revision"]) for a in json.loads(out)] == [("helper", 1)]

    # show | edit: the show document is accepted as input, the revision guards the edit.
    code, out, _ = run_cli(capsys, "agents", "show", *w, "helper")
    shown = json.loads(out)
    shown["config"]["instruction"] = "Answer in detail."
    edited_file = tmp_path / "edited.json"
    edited_file.write_text(json.dumps(shown), encoding="utf-8")
    code, out, _ = run_cli(
        capsys, "agents", "edit", *w, "helper", str(edited_file), "--revision", "1"
    )
    assert code == 0 and json.loads(out)["revision"] == 2

    code, _, err = run_cli(
        capsys, "agents", "edit", *w, "helper", str(edited_file), "--revision", "1"
    )
    assert code == 2 and "changed since revision 1 (it is at revision 2)" in err

    code, _, err = run_cli(capsys, "agents", "remove", *w, "helper", "--revision", "1")
    assert code == 2 and "not removed" in err
    code, out, _ = run_cli(capsys, "agents", "remove", *w, "helper", "--revision", "2")
    assert code == 0 and json.loads(out) == {"removed": "helper"}
    code, _, err = run_cli(capsys, "agents", "show", *w, "helper")
    assert code == 2 and "no agent named 'helper'" in err


def test_add_from_stdin_rename_and_bad_input(
    ws_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    w = ["--workspace", str(ws_path)]
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(CONFIG)))
    assert run_cli(capsys, "agents", "add", *w, "-")[0] == 0
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(CONFIG)))
    code, _, err = run_cli(capsys, "agents", "add", *w, "-")
    assert code == 2 and "already exists" in err

    renamed = tmp_path / "renamed.json"
    renamed.write_text(json.dumps({**CONFIG, "name": "helper-2"}), encoding="utf-8")
    code, out, _ = run_cli(capsys, "agents", "edit", *w, "helper", str(renamed))
    assert code == 0 and json.loads(out)["name"] == "helper-2"
    code, out, _ = run_cli(capsys, "agents", "list", *w, "--json")
    assert [a["name"] for a in json.loads(out)] == ["helper-2"]

    broken = tmp_path / "broken.json"
    broken.write_text('{"name": "x", ', encoding="utf-8")
    code, _, err = run_cli(capsys, "agents", "add", *w, str(broken))
    assert code == 2 and "not valid JSON" in err and str(broken) in err

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**CONFIG, "name": "ctx", "signature": "context:string -> a:string"}))
    code, _, err = run_cli(capsys, "agents", "add", *w, str(bad))
    assert code == 2 and "context" in err
    code, out, _ = run_cli(capsys, "agents", "list", *w, "--json")
    assert [a["name"] for a in json.loads(out)] == ["helper-2"]  # nothing half-written


def test_add_and_edit_name_the_runtime_that_refuses_the_signature(
    ws_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 31: @ax-llm/ax 24.0.21 refuses `request:string -> answer:string` ("Field name
    "request" is too generic"); axllm, which runs it here, accepts it. The config is stored
    and the refusal named; a signature axllm refuses is not stored."""
    w = ["--workspace", str(ws_path)]
    source = tmp_path / "helper.json"
    source.write_text(json.dumps(CONFIG), encoding="utf-8")
    code, out, err = run_cli(capsys, "agents", "add", *w, str(source))
    assert code == 0
    [refusal] = json.loads(out)["runtimeRefusals"]
    assert refusal["runtime"] == "@ax-llm/ax 24.0.21"
    assert refusal["message"] == 'Invalid Signature: Field name "request" is too generic'
    assert 'warning: @ax-llm/ax 24.0.21 refuses this signature: Invalid Signature: Field ' \
        'name "request" is too generic (Use a more descriptive name' in err
    source.write_text(json.dumps({**CONFIG, "signature": "userRequest:string -> answer:string"}))
    code, out, err = run_cli(capsys, "agents", "edit", *w, "helper", str(source))
    assert code == 0 and json.loads(out)["runtimeRefusals"] == [] and err == ""
    both_refuse = "userRequest:string -> answer:string, answer:string"
    source.write_text(json.dumps({**CONFIG, "signature": both_refuse}))
    code, _, err = run_cli(capsys, "agents", "edit", *w, "helper", str(source))
    assert code == 2 and "axllm 25.4.6 refuses this signature" in err
    assert "Duplicate output field name" in err
    code, out, _ = run_cli(capsys, "agents", "show", *w, "helper")
    assert json.loads(out)["config"]["signature"] == "userRequest:string -> answer:string"
