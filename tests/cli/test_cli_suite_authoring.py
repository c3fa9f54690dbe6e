"""`axmem suite add|edit|remove|import|export`: suites and cases as JSON in and out, with
revision checks, over a real workspace file."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.cli.main import main

CASE = {
    "name": "ship a release",
    "kind": "discover",
    "searches": ["how do I ship a release"],
    "mustInclude": ["release-checklist"],
}


@pytest.fixture
def ws(tmp_path: Path, capsys: Any) -> str:
    path = tmp_path / "ops.axmem"
    assert main(["init", str(path), "--sample"]) == 0
    capsys.readouterr()
    return str(path)


def run(capsys: Any, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def suites(capsys: Any, ws: str) -> dict[str, dict[str, Any]]:
    code, out, _ = run(capsys, "suite", "list", "-w", ws, "--json")
    assert code == 0
    return {row["name"]: row for row in json.loads(out)}


def test_add_a_suite_add_a_case_run_it_and_pass(ws: str, capsys: Any, tmp_path: Path) -> None:
    assert run(capsys, "suite", "add", "mine", "-w", ws, "--description", "my checks")[0] == 0
    assert suites(capsys, ws)["mine"]["cases"] == 0
    case_file = tmp_path / "case.json"
    case_file.write_text(json.dumps(CASE), encoding="utf-8")
    code, out, _ = run(capsys, "suite", "add", "mine", "--case", str(case_file), "-w", ws, "--json")
    assert code == 0 and json.loads(out) == {"changed": [{"suite": "mine", "revision": 2}]}
    code, out, _ = run(capsys, "suite", "run", "--suite", "mine", "-w", ws, "--json")
    assert code == 0 and json.loads(out)["passed"] is True
    # A duplicate case name is refused with a message naming it.
    code, _, err = run(capsys, "suite", "add", "mine", "--case", str(case_file), "-w", ws)
    assert code == 2 and "already has a case named 'ship a release'" in err


def test_add_a_case_from_stdin_creates_the_suite(
    ws: str, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(CASE)))
    assert run(capsys, "suite", "add", "fresh", "--case", "-", "-w", ws)[0] == 0
    assert suites(capsys, ws)["fresh"]["cases"] == 1


def test_edit_export_import_roundtrip_and_revision_checks(
    ws: str, capsys: Any, tmp_path: Path
) -> None:
    before = suites(capsys, ws)
    name = next(iter(before))
    code, out, _ = run(capsys, "suite", "export", "--suite", name, "-w", ws)
    assert code == 0
    exported = json.loads(out)
    assert exported["name"] == name
    exported["description"] = "edited from the CLI"
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(exported), encoding="utf-8")
    stale = str(before[name]["revision"] + 5)
    code, _, err = run(
        capsys, "suite", "edit", name, str(edited), "--expect-revision", stale, "-w", ws
    )
    assert code == 2 and "changed elsewhere" in err
    revision = str(before[name]["revision"])
    code, _, _ = run(
        capsys, "suite", "edit", name, str(edited), "--expect-revision", revision, "-w", ws
    )
    assert code == 0
    assert suites(capsys, ws)[name]["revision"] == before[name]["revision"] + 1
    # Renaming through edit.
    exported["name"] = "renamed"
    edited.write_text(json.dumps(exported), encoding="utf-8")
    assert run(capsys, "suite", "edit", name, str(edited), "-w", ws)[0] == 0
    assert set(suites(capsys, ws)) == (set(before) - {name}) | {"renamed"}
    # Import refuses existing names unless --replace, and writes nothing then.
    out_file = tmp_path / "all.json"
    assert run(capsys, "suite", "export", "-o", str(out_file), "-w", ws)[0] == 0
    code, _, err = run(capsys, "suite", "import", str(out_file), "-w", ws)
    assert code == 2 and "already has suite(s) " in err and "nothing was imported" in err
    assert run(capsys, "suite", "import", str(out_file), "--replace", "-w", ws)[0] == 0
    # Remove a case, then the suite.
    case_name = exported["cases"][0]["name"]
    assert run(capsys, "suite", "remove", "renamed", "--case", case_name, "-w", ws)[0] == 0
    assert suites(capsys, ws)["renamed"]["cases"] == len(exported["cases"]) - 1
    assert run(capsys, "suite", "remove", "renamed", "-w", ws)[0] == 0
    assert "renamed" not in suites(capsys, ws)
    code, _, err = run(capsys, "suite", "remove", "renamed", "-w", ws)
    assert code == 2 and "no suite named 'renamed'" in err


def test_bad_case_json_names_the_field(ws: str, capsys: Any, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**CASE, "mustInclud": ["x"]}), encoding="utf-8")
    code, _, err = run(capsys, "suite", "add", "x", "--case", str(bad), "-w", ws)
    assert code == 2 and "unknown field 'mustInclud'" in err and err.count("\n") == 1
