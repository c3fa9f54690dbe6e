"""Every command that takes JSON reads it with the one reader's limits: a 100,000-deep
document or a 5,000-digit integer is a one-line error (exit 2), never a traceback.
`agents add` and `eval add` parsed with json.loads (RecursionError / ValueError)."""

from __future__ import annotations

from pathlib import Path

import pytest

from axmem_gui.cli.main import main

HOSTILE = {
    "deep": "[" * 100_000 + "]" * 100_000,
    "bigint": '{"name": "x", "n": ' + "9" * 5000 + "}",
}


@pytest.mark.parametrize("command", [["agents", "add"], ["eval", "add"]])
@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_json_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str], kind: str
) -> None:
    ws = tmp_path / "w.axmem"
    assert main(["init", str(ws)]) == 0
    capsys.readouterr()
    path = tmp_path / f"{kind}.json"
    path.write_text(HOSTILE[kind], encoding="utf-8")
    assert main([*command, "--workspace", str(ws), str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err and "Traceback" not in err
