"""`axmem eval ...` end to end through main(): authoring sets with JSON in and out, a run
with --json and --junit and its exit code, comparing two runs."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from axmem_gui.cli.main import main
from tests.evals.conftest import SET_JSON
from tests.fakes.fake_openai_server import FakeOpenAIServer


def _run(ws_path: Path, server: FakeOpenAIServer, *extra: str) -> list[str]:
    return [
        "eval", "run", "-w", str(ws_path), "--provider", "openai-compatible",
        "--model", "scripted-a", "--base-url", server.base_url, "--max-retries", "0", "-q",
        *extra,
    ]  # fmt: skip


def test_authoring_a_set_without_the_gui(
    ws_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", "show", "-w", str(ws_path), "triage-triggers"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["cases"][0]["skills"] == SET_JSON["cases"][0]["skills"]
    shown["name"] = "copy"
    shown["cases"][0]["threshold"] = 1
    path = tmp_path / "copy.json"
    path.write_text(json.dumps(shown), encoding="utf-8")
    assert main(["eval", "add", "-w", str(ws_path), str(path)]) == 0
    assert "added eval set 'copy' (2 cases)" in capsys.readouterr().out
    # Adding it again needs --replace: a typo must not overwrite a set silently.
    assert main(["eval", "add", "-w", str(ws_path), str(path)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["eval", "add", "-w", str(ws_path), "--replace", str(path)]) == 0
    assert main(["eval", "list", "-w", str(ws_path), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out.split("\n", 1)[1])
    assert [(s["name"], s["cases"]) for s in listed] == [("copy", 2), ("triage-triggers", 2)]
    assert main(["eval", "remove", "-w", str(ws_path), "copy"]) == 0
    assert main(["eval", "remove", "-w", str(ws_path), "copy"]) == 2
    assert "no eval set named 'copy'" in capsys.readouterr().err


def test_a_bad_set_file_is_refused_with_one_line(
    ws_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"name": "x", "agent": "triage", "cases": [{"name": "a"}]}', "utf-8")
    assert main(["eval", "add", "-w", str(ws_path), str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cases[0] (a): field 'inputs' is missing" in err


def test_run_json_junit_and_the_exit_code(
    server: FakeOpenAIServer,
    ws_path: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    junit = tmp_path / "evals.xml"
    assert main(_run(ws_path, server, "--json", "--junit", str(junit), "--repeat", "1")) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["passed"] and report["totals"]["counted"] == 2
    assert [c["runs"]["planned"] for c in report["cases"]] == [1, 1]
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("tests") == "2" and suite.get("failures") == "0"
    # Every run is in the workspace as a session.
    assert main(["sessions", "list", "-w", str(ws_path), "--json"]) == 0
    ids = {s["id"] for s in json.loads(capsys.readouterr().out)}
    assert {r["session_id"] for r in report["runs"]} <= ids

    # A model that answers with nothing usable: every run fails, the case is below its
    # threshold, exit 1; the text report names the reason.
    server.state.fault_always = "500"
    assert main(_run(ws_path, server, "--repeat", "1")) == 1
    out = capsys.readouterr().out
    assert "FAIL most severe: 0/0 hits" in out
    assert "run 1: failed: the model server answered HTTP 500" in out


def test_compare_two_runs_and_exit_1_on_a_regression(
    server: FakeOpenAIServer,
    ws_path: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    first = tmp_path / "first.json"
    assert main(_run(ws_path, server, "--json", "--repeat", "1")) == 0
    first.write_text(capsys.readouterr().out, encoding="utf-8")
    server.state.fault_always = "500"
    assert main(_run(ws_path, server, "--repeat", "1")) == 1
    capsys.readouterr()
    assert main(["eval", "compare", "-w", str(ws_path), str(first), "last"]) == 1
    out = capsys.readouterr().out
    assert "REGRESSION most severe: 100% -> n/a" in out and "2 regression(s)" in out
    assert main(["eval", "compare", "-w", str(ws_path), str(first), str(first)]) == 0
    assert main(["eval", "runs", "-w", str(ws_path), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out.split("no regression\n", 1)[-1])) == 2
