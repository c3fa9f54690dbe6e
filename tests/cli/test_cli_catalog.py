"""`axmem catalog` edits entries through the catalog service the GUI's commands use."""

from __future__ import annotations

from pathlib import Path

import pytest

from axmem_gui.cli.main import main
from axmem_gui.services.workspace import init_workspace, open_workspace


def _sample(tmp_path: Path) -> str:
    path = tmp_path / "s.axmem"
    init_workspace(path, sample=True).close()
    return str(path)


def test_rename_tag_delete_and_restore(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws_path = _sample(tmp_path)
    w = ["--workspace", ws_path]
    assert main(["catalog", "rename", "skills", "style-guide", "writing-style", *w]) == 0
    tag = ["catalog", "tag", "add", "house-style"]
    # An id that is not there is named, and nothing is tagged (it said 'tagged 1 of 2').
    assert main([*tag, "skills", "writing-style", "nope", "nada", *w]) == 2
    assert "no skill with id 'nope', 'nada'" in capsys.readouterr().err
    with open_workspace(ws_path) as open_ws:
        untouched = open_ws.catalog.get("skills", "writing-style")
    assert untouched is not None and "house-style" not in untouched.entry.tags
    assert main([*tag, "skills", "writing-style", *w]) == 0
    assert "tagged 1 of 1 skill ('house-style')" in capsys.readouterr().out
    assert main([*tag, "skills", "writing-style", "hotfix-process", *w]) == 0
    assert "tagged 1 of 2 skills ('house-style')" in capsys.readouterr().out
    assert main(["catalog", "delete", "skills", "writing-style", *w]) == 0
    with open_workspace(ws_path) as open_ws:
        catalog = open_ws.catalog
        assert catalog.get("skills", "writing-style") is None
        deleted = catalog.history("skills", "writing-style")[-1]
    assert main(["catalog", "restore", "skills", "writing-style", str(deleted.revision), *w]) == 0
    with open_workspace(ws_path) as open_ws:
        found = open_ws.catalog.get("skills", "writing-style")
    assert found is not None and "house-style" in found.entry.tags


def test_the_service_rules_give_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws_path = _sample(tmp_path)
    w = ["--workspace", ws_path]
    cases = [
        (["catalog", "rename", "skills", "style-guide", "hotfix-process"], "already exists"),
        (["catalog", "rename", "skills", "style-guide", " "], "skill id: must not be empty"),
        (["catalog", "tag", "add", "a,b", "skills", "style-guide"], "contain no comma"),
        (["catalog", "delete", "memories", "no-such"], "no memory with id 'no-such'"),
        (["catalog", "restore", "skills", "style-guide", "99"], "no revision 99"),
    ]
    for args, message in cases:
        capsys.readouterr()
        assert main([*args, *w]) == 2
        err = capsys.readouterr().err
        assert err.startswith("axmem: error: ") and message in err and err.count("\n") == 1


def test_messages_escape_terminal_controls_in_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An id holding an OSC title sequence was printed raw by rename and agents/suite/eval
    # messages (a title change, or worse, in the user's terminal).
    ws_path = _sample(tmp_path)
    hostile = "x\x1b]0;pwned\x07\x1b[2J"
    w = ["--workspace", ws_path]
    assert main(["catalog", "rename", "skills", "style-guide", hostile, *w]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b]0;pwned\\x07" in out
    assert main(["catalog", "rename", "skills", hostile, "style-guide", *w]) == 0
    assert "\x1b" not in capsys.readouterr().out


def test_counts_in_messages_agree_with_their_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 'lint' said "1 skills, 1 memories: 0 error(s)"; suite and eval lists said "1 cases".
    catalog = tmp_path / "one.json"
    catalog.write_text(
        '{"skills": [{"id": "deploy-steps", "name": "Deploy steps", '
        '"description": "Steps for shipping a deploy", "content": "x"}], '
        '"memories": [{"id": "vault-rotation", "content": "Vault tokens rotate monthly"}]}',
        encoding="utf-8",
    )
    assert main(["lint", "--catalog", str(catalog)]) == 0
    assert ": 1 skill, 1 memory: 0 errors, 0 warnings, 0 info;" in capsys.readouterr().out
    ws_path = tmp_path / "w.axmem"
    assert main(["init", str(ws_path)]) == 0
    assert "(empty: 0 skills, 0 memories)" in capsys.readouterr().out


def test_import_infers_ax_json_from_the_format_name_as_suffix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `axmem import x.ax-json` said "unknown catalog format" unless given --format.
    source = tmp_path / "team.ax-json"
    source.write_text('{"memories": [{"id": "m1", "content": "vault tokens"}]}', "utf-8")
    ws_path = _sample(tmp_path)
    assert main(["import", "-w", ws_path, str(source)]) == 0
    assert "1 added" in capsys.readouterr().out
    with open_workspace(ws_path) as open_ws:
        assert open_ws.catalog.get("memories", "m1") is not None
    bad = tmp_path / "bad.json"
    bad.write_text("{", "utf-8")
    assert main(["import", "-w", ws_path, str(bad)]) == 2
    assert "axmem: error: 1 problem in the input" in capsys.readouterr().err


def test_search_report_escapes_terminal_controls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `axmem search` wrote result lines and "result ids" raw: an id holding ESC[31m and an
    # OSC title sequence (ESC ] 0 ; ... BEL) recoloured and retitled the user's terminal.
    ws_path = _sample(tmp_path)
    hostile = "x\x1b[31mRED\x1b]0;pwned\x07"
    w = ["--workspace", ws_path]
    assert main(["catalog", "rename", "skills", "style-guide", hostile, *w]) == 0
    capsys.readouterr()
    assert main(["search", *w, "--explain", hostile, "skills", "pwned", "style"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "result ids: x\\x1b[31mRED\\x1b]0;pwned\\x07" in out
    assert "  1. x\\x1b[31mRED" in out
    # The exact Ax rendering stays byte-exact: `render` prints the id as Ax shows it.
    assert main(["render", "index", *w]) == 0
    assert hostile in capsys.readouterr().out
