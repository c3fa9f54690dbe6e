"""Half an emoji, exactly as Ax cuts it, through every `axmem` command that writes.

The memory snippet of a relevance hint is the first 80 UTF-16 units of the content, so a
content of 79 `x` and a pear emoji ends in the emoji's high surrogate (`\\ud83c`): that is
Ax's value (recorded from the real package in tests/fixtures/ax_text/ax-e2e.json). JSON
writes it as the escape `\\ud83c` (as `JSON.stringify` does), text as U+FFFD (as Node's
stdout does); nothing crashes and no file is left empty.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from axmem_gui.cli.main import main
from axmem_gui.core.jsout import encode_text, json_dumps
from axmem_gui.core.session.format import session_to_json_text
from axmem_gui.store.records import dumps as record_dumps
from tests.helpers.session_docs import make_session

CONTENT = "x" * 79 + "\U0001f350 pear"
SNIPPET = "x" * 79 + "\ud83c"  # Ax's snippet: 80 UTF-16 units, half the emoji
CATALOG = {"memories": [{"id": "a", "content": CONTENT}, {"id": "b", "content": "other"}]}
HINTS = "Memories:\n- `a` — " + SNIPPET
HINTS_TEXT = HINTS.replace("\ud83c", "\ufffd")


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    path = tmp_path / "pear.json"
    path.write_text(json.dumps(CATALOG), encoding="utf-8")
    return path


def axmem(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    """The real program in its own process (stdout a pipe, as in a shell pipeline)."""
    return subprocess.run(
        [sys.executable, "-m", "axmem_gui.cli.main", *args], capture_output=True, cwd=cwd
    )


def test_render_hints_writes_replacement_character(catalog: Path) -> None:
    proc = axmem("render", "hints", "--catalog", str(catalog), "--task", "pear")
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout == encode_text("Relevance Hints: " + HINTS) + b"\n"
    assert proc.stdout.decode("utf-8") == "Relevance Hints: " + HINTS_TEXT + "\n"


def test_simulate_text_and_json(catalog: Path, tmp_path: Path) -> None:
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({"task": "pear", "turns": [{"recall": "pear"}]}))
    proc = axmem("simulate", str(scenario), "--catalog", str(catalog))
    assert proc.returncode == 0, proc.stderr.decode()
    assert HINTS_TEXT in proc.stdout.decode("utf-8")
    proc = axmem("simulate", str(scenario), "--catalog", str(catalog), "--json")
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"\\ud83c" in proc.stdout
    value = json.loads(proc.stdout)  # valid JSON whose value is Ax's, surrogate included
    turns = value["endToEnd"]["executorTurns"]
    assert [t["relevanceHints"] for t in turns] == [HINTS, HINTS]


def test_conformance_run_to_stdout_and_to_a_file(tmp_path: Path) -> None:
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps({"cases": [{"id": "pear", **CATALOG, "task": "pear"}]}))
    proc = axmem("conformance", "run", str(cases))
    assert proc.returncode == 0, proc.stderr.decode()
    result = json.loads(proc.stdout)
    hints = result["cases"][0]["internals"]["hints"]
    assert hints["rendered"] == HINTS
    assert hints["memories"][0]["snippet"] == SNIPPET
    out = tmp_path / "out.json"
    proc = axmem("conformance", "run", str(cases), "-o", str(out))
    assert proc.returncode == 0, proc.stderr.decode()
    assert json.loads(out.read_text(encoding="utf-8")) == result


def test_search_json_and_text(capsys: pytest.CaptureFixture[str], catalog: Path) -> None:
    assert main(["search", "memories", "pear", "--catalog", str(catalog), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["resultIds"] == ["a"]
    # a search string holding half an emoji itself: echoed back, not a crash
    assert main(["search", "memories", "pear \ud83c", "--catalog", str(catalog), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["queries"] == ["pear \ud83c"]
    assert main(["search", "memories", "pear \ud83c", "--catalog", str(catalog)]) == 0
    assert '"pear \\ud83c"' in capsys.readouterr().out  # the query is shown as JSON


def test_lint_import_export(tmp_path: Path, catalog: Path) -> None:
    workspace = tmp_path / "w.axmem"
    assert axmem("init", str(workspace)).returncode == 0
    assert axmem("import", str(catalog), "-w", str(workspace)).returncode == 0
    for extra in ((), ("--json",)):
        proc = axmem("lint", "--catalog", str(catalog), *extra)
        assert proc.returncode in (0, 1) and b"Traceback" not in proc.stderr
    proc = axmem("render", "hints", "-w", str(workspace), "--task", "pear")
    assert proc.returncode == 0 and HINTS_TEXT in proc.stdout.decode("utf-8")
    out = tmp_path / "export.json"
    proc = axmem("export", "-w", str(workspace), "--format", "ax-json", str(out))
    assert proc.returncode == 0, proc.stderr.decode()
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert [m["content"] for m in exported["memoriesCatalog"]] == [CONTENT, "other"]


def test_a_catalog_with_lone_surrogates_is_linted_as_ax_reads_it(tmp_path: Path) -> None:
    # Ax receives such text (half an emoji) and searches it: lint reads the file as Ax
    # does and says why it cannot be stored, instead of refusing to lint it.
    path = tmp_path / "lone.json"
    memories = '[{"id": "a", "content": "half \\ud83c"}, {"id": "a", "content": "b"}]'
    path.write_text('{"memories": ' + memories + "}")
    proc = axmem("lint", "--catalog", str(path))
    out, err = proc.stdout.decode(), proc.stderr.decode()
    assert proc.returncode == 1, err  # the repeated id is an error lint finds
    assert "unpaired UTF-16 surrogate" in err and "warning" in err and "Traceback" not in err
    assert "duplicate-id" in out and "2 memories" in out


def test_json_writers_escape_and_read_back() -> None:
    value = {"hint": SNIPPET, "pair": "\ud83c\udf50", "low": "\udf50"}
    text = json_dumps(value)
    assert '"\\ud83c"' not in text and "\\ud83c" in text and "\\udf50" in text
    assert "\U0001f350" in text  # a pair held as two code points is the character
    text.encode("utf-8")  # writable
    assert json.loads(text) == {"hint": SNIPPET, "pair": "\U0001f350", "low": "\udf50"}
    session = make_session(name=SNIPPET)
    assert json.loads(session_to_json_text(session))["name"] == SNIPPET
    assert json.loads(record_dumps({"hints": SNIPPET})) == {"hints": SNIPPET}


def test_text_rule() -> None:
    assert encode_text("a\ud83cb") == "a\ufffdb".encode()
    assert encode_text("\ud83c\udf50") == "\U0001f350".encode()
    assert encode_text("\udf50\ud83c") == "\ufffd\ufffd".encode()
