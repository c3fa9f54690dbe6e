"""`axmem suite run|list`: exit codes, outputs, JUnit and baseline files."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from importlib import resources
from pathlib import Path

import pytest

from axmem_gui.cli.main import main
from axmem_gui.services.workspace import init_workspace

SAMPLE = resources.files("axmem_gui") / "sample"


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    catalog = tmp_path / "catalog.json"
    catalog.write_text((SAMPLE / "catalog.json").read_text(encoding="utf-8"), encoding="utf-8")
    suites = tmp_path / "suites.json"
    suites.write_text((SAMPLE / "suites.json").read_text(encoding="utf-8"), encoding="utf-8")
    return catalog, suites


def _failing_suite(tmp_path: Path) -> Path:
    path = tmp_path / "failing.json"
    suite = {
        "name": "wishful",
        "cases": [
            {"name": "fine", "kind": "discover", "searches": ["hotfix"],
             "mustInclude": ["hotfix-process"]},
            {"name": "wrong", "kind": "recall", "searches": ["tuesday"],
             "mustInclude": ["release-owner"], "mustExclude": ["deploy-window"]},
        ],
    }  # fmt: skip
    path.write_text(json.dumps(suite), encoding="utf-8")
    return path


def test_all_pass_exits_0_and_writes_junit(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog, suites = files
    junit = tmp_path / "report.xml"
    code = main(
        ["suite", "run", "--catalog", str(catalog), "--suite-file", str(suites),
         "--junit", str(junit)]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines()[0].startswith("ops-retrieval: 31/31 passed")
    assert "FAIL" not in out
    root = ET.parse(junit).getroot()
    assert root.get("tests") == "31" and root.get("failures") == "0"


def test_a_failing_case_exits_1_with_the_reason(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog, _ = files
    code = main(["suite", "run", "--catalog", str(catalog), "--suite-file",
                 str(_failing_suite(tmp_path))])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 1
    assert "wishful: 1/2 passed" in out
    assert "FAIL [recall] wrong: release-owner@-" in out
    assert "missing 'release-owner': not returned" in out
    assert "unexpected 'deploy-window' returned at rank 1" in out


def test_json_output_and_baseline_regression(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog, suites = files
    assert main(["suite", "run", "--catalog", str(catalog), "--suite-file", str(suites),
                 "--json"]) == 0  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert report["passed"] is True and report["regressions"] == 0
    (suite,) = report["suites"]
    assert suite["summary"]["total"] == 31 and suite["summary"]["failed"] == 0
    assert suite["comparison"] is None
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps(report), encoding="utf-8")

    # Drop the changelog guide from the catalog: the release-prep case regresses.
    data = json.loads(catalog.read_text(encoding="utf-8"))
    data["skills"] = [s for s in data["skills"] if s["id"] != "changelog-writing"]
    catalog.write_text(json.dumps(data), encoding="utf-8")
    code = main(["suite", "run", "--catalog", str(catalog), "--suite-file", str(suites),
                 "--baseline", str(baseline), "--json"])  # fmt: skip
    again = json.loads(capsys.readouterr().out)
    assert code == 1
    assert again["regressions"] == 2
    assert again["suites"][0]["comparison"]["regressions"] == [
        "breaking change",
        "release prep, three strings",
    ]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--suite-file", "{tmp}/missing.json"], "missing.json: suite file not found"),
        (["--suite-file", "{bad}"], "not valid JSON (line 1, column 2"),
        (["--suite", "nope"], "no suite named 'nope' (available: ops-retrieval)"),
        (["--catalog", "{tmp}/nocat.json"], "nocat.json: catalog file not found"),
        (["--baseline", "{bad}"], "bad.json: not valid JSON"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    files: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    message: str,
) -> None:
    catalog, suites = files
    bad = tmp_path / "bad.json"
    bad.write_text("{oops", encoding="utf-8")
    argv = [a.format(tmp=tmp_path, bad=bad) for a in argv]
    if "--catalog" not in argv:
        argv += ["--catalog", str(catalog)]
    if "--suite-file" not in argv:
        argv += ["--suite-file", str(suites)]
    junit = tmp_path / "never.xml"
    code = main(["suite", "run", *argv, "--junit", str(junit)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("axmem: error: ") and message in err
    assert err.count("\n") == 1
    assert not junit.exists()


def test_workspace_mode_records_runs_and_lists(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "team.axmem"
    init_workspace(ws, sample=True).close()
    assert main(["suite", "list", "-w", str(ws)]) == 0
    assert capsys.readouterr().out == "ops-retrieval\t31 cases\n"
    assert main(["suite", "run", "-w", str(ws)]) == 0
    first = capsys.readouterr().out
    assert "since the previous run" not in first
    assert main(["suite", "run", "-w", str(ws), "--suite", "ops-retrieval"]) == 0
    assert "no change in pass/fail since the previous run" in capsys.readouterr().out


def test_the_installed_entry_point_returns_the_exit_code(tmp_path: Path) -> None:
    catalog = tmp_path / "catalog.json"
    catalog.write_text((SAMPLE / "catalog.json").read_text(encoding="utf-8"), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "axmem_gui.cli.main", "suite", "run", "--catalog", str(catalog),
         "--suite-file", str(_failing_suite(tmp_path))],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert "wishful: 1/2 passed" in proc.stdout


def test_human_output_names_regressions_against_a_baseline(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog, suites = files
    main(["suite", "run", "--catalog", str(catalog), "--suite-file", str(suites), "--json"])
    baseline = tmp_path / "baseline.json"
    baseline.write_text(capsys.readouterr().out, encoding="utf-8")
    data = json.loads(catalog.read_text(encoding="utf-8"))
    data["memories"] = [m for m in data["memories"] if m["id"] != "deploy-window"]
    catalog.write_text(json.dumps(data), encoding="utf-8")
    code = main(["suite", "run", "--catalog", str(catalog), "--suite-file", str(suites),
                 "--baseline", str(baseline)])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 1
    assert "regressions since the previous run: deploy window\n" in out
    assert "mustInclude 'deploy-window' is not a memory id in the catalog" in out
