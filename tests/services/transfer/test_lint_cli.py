"""`axmem lint` and the lint service: exit codes, sources, JSON output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from axmem_gui.cli.main import main
from axmem_gui.core.catalog import Skill
from axmem_gui.core.lint import LintOptions
from axmem_gui.services.lint import lint
from axmem_gui.services.workspace import init_workspace
from tests.helpers.cli import run_cli
from tests.helpers.store import raw

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "skills"
GOOD = [
    {
        "id": "release-checklist",
        "name": "Release checklist",
        "description": "Ship a release",
        "content": "Tag and publish.",
    },
    {
        "id": "incident-response",
        "name": "Incident response",
        "description": "Handle outages",
        "content": "Page on-call.",
    },
]


def _write(path: Path, value: object) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def test_clean_catalog_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "lint", "--catalog", str(_write(tmp_path / "c.json", GOOD)))
    assert code == 0
    assert "2 skills, 0 memories: 0 errors, 0 warnings, 0 info" in out


def test_errors_exit_1_with_fix_hints(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = [*GOOD, {"id": "release-checklist", "name": "  ", "content": "dup"}]
    code, out, _ = run_cli(capsys, "lint", "--catalog", str(_write(tmp_path / "c.json", bad)))
    assert code == 1
    assert "error: skill 'release-checklist': 2 entries share this id" in out
    assert "    fix: Give each entry its own id" in out


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = _write(tmp_path / "c.json", GOOD)
    code, out, _ = run_cli(capsys, "lint", "--catalog", str(src), "--json", "--budget", "10")
    data = json.loads(out)
    assert code == 0  # over budget is a warning
    assert data["source"] == str(src)
    assert data["index"]["budgetTokens"] == 10
    assert [f["code"] for f in data["findings"]] == ["index-over-budget"]


def test_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "c.json"
    broken.write_text("{nope", encoding="utf-8")
    code, _, err = run_cli(capsys, "lint", "--catalog", str(broken))
    assert code == 2 and f"{broken}: not valid JSON (line 1, column 2" in err
    with pytest.raises(SystemExit) as exit_info:  # argparse reports usage errors itself
        main(["lint", "--budget", "-5"])
    assert exit_info.value.code == 2
    assert "must be greater than 0" in capsys.readouterr().err


def test_lints_skill_folders_and_ts_modules(tmp_path: Path) -> None:
    run = lint(FIXTURES, None)
    assert run.report.skills == 4 and not run.report.has_errors
    ts = tmp_path / "c.ts"
    ts.write_text(
        "export const skillsCatalog = [\n"
        "  { id: 'a-skill', name: 'Alpha', content: '' },\n"
        "  { id: 'a-skill', name: 'Alpha again', content: '' },\n"
        "];\n",
        encoding="utf-8",
    )
    report = lint(ts, None).report
    # Repeated ids are kept for lint to report (an import would refuse the file).
    assert [f.code for f in report.errors] == ["duplicate-id"]


def test_workspace_is_linted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    w = tmp_path / "w.axmem"
    with init_workspace(w) as ws:
        raw(ws).skills.upsert(Skill("help", "Help", "", ""))
    run = lint(None, w, LintOptions())
    assert [f.code for f in run.report.errors] == ["unreachable"]
    code, out, _ = run_cli(capsys, "lint", "--workspace", str(w))
    assert code == 1 and "[unreachable]" in out
