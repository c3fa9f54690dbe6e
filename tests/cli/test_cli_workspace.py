from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from axmem_gui import __version__
from axmem_gui.cli.main import main


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    try:
        main(["--version"])
    except SystemExit as exc:
        assert exc.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"axmem {__version__}\n")
    assert "Ax profile: @ax-llm/ax 24.0.21" in out
    assert "Unicode text: ICU " in out and "(Unicode " in out


def test_init_and_info_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ops.axmem"
    assert main(["init", str(path), "--sample"]) == 0
    capsys.readouterr()
    assert main(["info", "--workspace", str(path), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["path"] == str(path)
    assert info["schema_version"] >= 3
    assert info["counts"]["skills"] >= 12 and info["counts"]["memories"] >= 12


def test_info_defaults_to_default_workspace(
    private_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert str(private_data_dir / "default.axmem") in out


def test_errors_are_one_line_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.axmem"
    bad.write_text("nope")
    for args in (
        ["info", "-w", str(bad)],
        ["info", "-w", str(tmp_path / "missing.axmem")],
        ["init", str(tmp_path / "wrong.txt")],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "axmem_gui.cli.main", *args], capture_output=True, text=True
        )
        assert proc.returncode == 2, args
        assert proc.stderr.startswith("axmem: error: ") and "Traceback" not in proc.stderr
    assert bad.read_text() == "nope"


def test_unknown_command_is_usage_error() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "axmem_gui.cli.main", "frobnicate"], capture_output=True, text=True
    )
    assert proc.returncode == 2 and "invalid choice" in proc.stderr
