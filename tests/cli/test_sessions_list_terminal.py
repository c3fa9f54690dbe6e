"""`axmem sessions list` shows a stranger's session safely: terminal escapes in its agent
or name are escaped (they retitled, cleared and recoloured the terminal; an id holding
them is refused on import), and a megabyte name is cut to a line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from axmem_gui.cli.main import main
from tests.helpers.session_docs import sample_session_json


def test_sessions_list_escapes_and_shortens(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "w.axmem"
    assert main(["init", str(ws)]) == 0
    doc = sample_session_json()
    # An id with a control character is refused on import (issue #29's D12), its
    # message escaped; the name keeps the escapes to show.
    doc["id"] = "esc\x1b]0;pwned\x07-id"
    path = tmp_path / "hostile.axsession.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["sessions", "import", str(path), "--workspace", str(ws)]) == 2
    err = capsys.readouterr().err
    assert "must not contain control characters" in err and "\x1b" not in err
    doc["id"] = "hostile-id"
    doc["name"] = "\x1b]0;pwned\x07\x1b[2J\u202e" + "N" * 100_000
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["sessions", "import", str(path), "--workspace", str(ws)]) == 0
    capsys.readouterr()
    assert main(["sessions", "list", "--workspace", str(ws)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "pwned" in out  # shown, escaped
    [line] = out.splitlines()
    assert len(line) < 400 and line.endswith("…")


def test_sessions_list_marks_a_session_in_quarantine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file that does not hold what it claims is imported in quarantine; the list said
    nothing of it (only the app's viewer did)."""
    ws = tmp_path / "w.axmem"
    assert main(["init", str(ws)]) == 0
    clean = tmp_path / "clean.axsession.json"
    clean.write_text(json.dumps(sample_session_json()), encoding="utf-8")
    assert main(["sessions", "import", str(clean), "--workspace", str(ws)]) == 0
    clean_id = sample_session_json()["id"]
    doc = sample_session_json()
    doc["id"] = "tampered"
    doc["exchanges"][0]["request"]["chat_prompt"][-1]["content"] += " (tampered)"
    path = tmp_path / "tampered.axsession.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["sessions", "import", str(path), "--workspace", str(ws)]) == 0
    assert "quarantine" in capsys.readouterr().err
    assert main(["sessions", "list", "--workspace", str(ws)]) == 0
    captured = capsys.readouterr()
    listed = {line.split()[0]: line for line in captured.out.splitlines()}
    assert listed["tampered"].endswith("  [quarantine]")
    assert not listed[clean_id].endswith("[quarantine]")
    assert captured.err.startswith("1 session in [quarantine]: ")
    assert main(["sessions", "list", "--json", "--workspace", str(ws)]) == 0
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["tampered"]["quarantine"].startswith("the file does not hold what it claims")
    assert rows[clean_id]["quarantine"] == ""
