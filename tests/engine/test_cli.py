"""`axmem run / replay / rerun / diff / whatif / sessions` end to end, through main()."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from axmem_gui.cli.main import main
from axmem_gui.store import Workspace
from tests.engine.conftest import DOCUMENT
from tests.fakes.fake_openai_server import FakeOpenAIServer


def _run_args(
    workspace: Path, server: FakeOpenAIServer, out: Path | None, *extra: str
) -> list[str]:
    output = ["-o", str(out)] if out is not None else []
    return [
        "run", "--workspace", str(workspace), "--agent", "triage",
        "--input", "query=Which incident is the most severe?",
        "--provider", "openai-compatible", "--model", "scripted-a",
        "--base-url", server.base_url, "--max-retries", "0", "-q", *output, *extra,
    ]  # fmt: skip


@pytest.fixture
def document_file(tmp_path: Path) -> Path:
    path = tmp_path / "incidents.txt"
    path.write_text(DOCUMENT, encoding="utf-8")
    return path


def test_run_replay_diff_whatif(
    server: FakeOpenAIServer,
    workspace_path: Path,
    document_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    a = tmp_path / "a.axsession.json"
    assert main(_run_args(workspace_path, server, a, "--input", f"document=@{document_file}")) == 0
    out = capsys.readouterr().out
    assert f"recorded 8 model calls: {a}" in out and "forward 1: {" in out
    doc = json.loads(a.read_text())
    assert doc["forwards"][0]["inputs"]["document"] == DOCUMENT

    assert main(["replay", str(a)]) == 0
    assert capsys.readouterr().out.startswith("identical: 8 of 8 model calls")

    # Edit the recording's input: the replay reports the first differing call, exit 1.
    doc["forwards"][0]["inputs"]["query"] = "Which incident is the least severe?"
    edited = tmp_path / "edited.axsession.json"
    edited.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["replay", str(edited)]) == 1
    out = capsys.readouterr().out
    assert "first difference: call #0 (actor.distiller)" in out
    assert "+Query: Which incident is the least severe?" in out
    assert main(["replay", str(edited), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["divergence"]["index"] == 0

    # A run can start from the map a recorded session ended with.
    c = tmp_path / "c.axsession.json"
    cont = _run_args(workspace_path, server, c, "--input", "document=x", "--context-map", str(a))
    assert main(cont) == 0
    capsys.readouterr()
    c_doc = json.loads(c.read_text())
    assert c_doc["forwards"][0]["context_map_before"] == doc["forwards"][0]["context_map_after"]
    assert c_doc["forwards"][0]["context_map_after"]["steps"] == 2

    b = tmp_path / "b.axsession.json"
    rerun = ["rerun", str(a), "--provider", "openai-compatible", "--model", "scripted-b",
             "--base-url", server.base_url, "-q", "-o", str(b)]  # fmt: skip
    assert main(rerun) == 0
    capsys.readouterr()
    assert main(["diff", str(a), str(b)]) == 0
    assert "output DIFFERS" in capsys.readouterr().out
    assert main(["diff", str(a), str(b), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["totals"]["b"]["calls"] == 7

    catalog = tmp_path / "catalog.json"
    catalog.write_text(json.dumps({"skills": [], "memories": []}), encoding="utf-8")
    assert main(["whatif", str(a), "--catalog", str(catalog)]) == 0
    out = capsys.readouterr().out
    assert "would no longer load" in out and "retrieval would differ" in out
    assert main(["whatif", str(a), "--workspace", str(workspace_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["changed"] is False


def test_sessions_list_export_import(
    server: FakeOpenAIServer,
    workspace_path: Path,
    document_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ws = ["--workspace", str(workspace_path)]
    assert main(["sessions", "list", *ws]) == 0
    assert "no sessions yet" in capsys.readouterr().out
    # Without -o the run is stored in the workspace.
    assert (
        main(_run_args(workspace_path, server, None, "--input", f"document=@{document_file}")) == 0
    )
    stored = capsys.readouterr().out
    assert "workspace session" in stored
    assert main(["sessions", "list", *ws, "--json"]) == 0
    (item,) = json.loads(capsys.readouterr().out)
    assert item["agent"] == "triage" and item["status"] == "complete" and item["exchanges"] == 8
    exported = tmp_path / "exported.axsession.json"
    assert main(["sessions", "export", item["id"], "-o", str(exported), *ws]) == 0
    capsys.readouterr()
    assert main(["replay", str(exported)]) == 0
    capsys.readouterr()
    other = tmp_path / "other.axmem"
    assert main(["init", str(other)]) == 0
    assert main(["sessions", "import", str(exported), "--workspace", str(other)]) == 0
    assert f"imported session {item['id']} (triage, 8 model calls)" in capsys.readouterr().out
    # The same file again changes nothing; a different session with that id never replaces
    # the stored one (it used to: delete and insert, the recording gone): both are kept.
    assert main(["sessions", "import", str(exported), "--workspace", str(other)]) == 0
    assert capsys.readouterr().out == (
        f"session {item['id']} is already in the workspace: nothing imported\n"
    )
    doc = json.loads(exported.read_text(encoding="utf-8"))
    doc["exchanges"][0]["request"]["chat_prompt"][0]["content"] += " (edited)"
    exported.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["sessions", "import", str(exported), "--workspace", str(other)]) == 0
    captured = capsys.readouterr()
    assert f"imported session {item['id']}-2" in captured.out
    assert "both are kept" in captured.err and "does not hold what it claims" in captured.err
    # that edited file again: found where it was kept, not stored a third time
    assert main(["sessions", "import", str(exported), "--workspace", str(other)]) == 0
    assert "already in the workspace" in capsys.readouterr().out
    with Workspace.open(other) as ows:
        assert sorted(s.id for s in ows.sessions.list()) == sorted([item["id"], f"{item['id']}-2"])
        assert " (edited)" not in json.dumps(ows.sessions.get(item["id"]))


def test_bad_input_gives_clean_errors(
    server: FakeOpenAIServer,
    workspace_path: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "x.axsession.json"
    # A missing input field is named before any request is made.
    assert main(_run_args(workspace_path, server, out)) == 2
    err = capsys.readouterr().err
    assert "missing value for input field(s) document" in err and "Traceback" not in err
    assert not server.requests and not out.exists()
    bad = tmp_path / "bad.axsession.json"
    bad.write_text('{"format": "axsession", "version": 1}', encoding="utf-8")
    assert main(["replay", str(bad)]) == 2
    assert f"axmem: error: {bad}: field 'id' is missing" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "missing.axsession.json")]) == 2
    assert "session file not found" in capsys.readouterr().err
    args = _run_args(workspace_path, server, out, "--input", "document=x")
    args[args.index("triage")] = "nobody"
    assert main(args) == 2
    assert "no agent named 'nobody'" in capsys.readouterr().err


def test_incomplete_run_exits_1_and_keeps_the_file(
    server: FakeOpenAIServer,
    workspace_path: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server.state.faults = {3: "429"}
    out = tmp_path / "partial.axsession.json"
    assert main(_run_args(workspace_path, server, out, "--input", "document=INC-1 | SEV1")) == 1
    captured = capsys.readouterr()
    assert "run ended early: the model server is rate limiting requests (HTTP 429)" in captured.err
    assert "marked incomplete" in captured.out
    assert json.loads(out.read_text())["status"] == "incomplete"


def test_test_connection(server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["test-connection", "--provider", "openai-compatible", "--model", "scripted-a",
            "--base-url", server.base_url]  # fmt: skip
    assert main(args) == 0
    assert capsys.readouterr().out.startswith("ok: connected")
    server.state.fault_always = "500"
    assert main([*args, "--max-retries", "0", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and "HTTP 500" in report["message"]
