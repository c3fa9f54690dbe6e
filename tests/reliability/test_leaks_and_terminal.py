"""Issue: smaller leaks. User data never drives the terminal (escape sequences in ids are
shown escaped by import, lint and every other message), a secret never reaches a session
file or the output whatever its length, and importing a session never replaces one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from axmem_gui.cli.main import main
from axmem_gui.core.printable import printable
from axmem_gui.core.session.redact import REDACTED, scrub_secrets
from axmem_gui.services.sessions import SessionService, import_session
from axmem_gui.services.workspace import init_workspace
from tests.helpers.session_docs import sample_session_json
from tests.helpers.store import raw

ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x9b31m\u202e"


def _assert_no_raw_controls(text: str) -> None:
    for ch in ("\x1b", "\x07", "\x9b", "\u202e"):
        assert ch not in text, repr(text)


def test_printable_escapes_controls_bidi_and_non_utf8_bytes() -> None:
    assert printable("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert printable("caf\udce9") == "caf\\xe9"
    assert printable("x\u202ey") == "x\\u202ey"
    assert printable("line\n\ttab") == "line\n\ttab"
    assert printable("line\nx", keep_newlines=False) == "line\\nx"


def test_import_and_lint_print_hostile_ids_escaped(tmp_path: Path, capsys: Any) -> None:
    catalog = tmp_path / "c.json"
    catalog.write_text(
        json.dumps(
            {
                "skillsCatalog": [
                    {"id": f"evil{ESCAPES}", "name": f"n{ESCAPES}", "description": "d",
                     "content": ""}
                ],
                "memoriesCatalog": [{"id": f"m{ESCAPES}", "content": "x"}],
            }
        ),
        encoding="utf-8",
    )
    ws = tmp_path / "w.axmem"
    init_workspace(ws).close()
    assert main(["import", "-w", str(ws), str(catalog)]) == 0
    main(["lint", "-w", str(ws)])
    main(["import", "-w", str(ws), str(tmp_path / f"missing{ESCAPES}.json")])
    out, err = capsys.readouterr()
    _assert_no_raw_controls(out)
    _assert_no_raw_controls(err)
    assert "evil\\x1b]0;pwned\\x07" in out
    # and lint names the problem itself: a finding per id and per name that holds them
    lines = [line for line in out.splitlines() if line.endswith("[invisible-characters]")]
    assert len(lines) == 3, out
    assert "the id holds 5 control or invisible characters (\\x1b, \\x07, \\x9b, \\u202e)" in out
    assert "the name holds 5 control or invisible characters" in out


def test_short_api_key_quoted_back_is_redacted() -> None:
    doc = {"error": {"message": "Incorrect API key provided: abc12. Check your key."}}
    scrubbed = scrub_secrets(doc, ["abc12"])
    assert "abc12" not in json.dumps(scrubbed)
    assert scrubbed["error"]["message"] == (
        f"Incorrect API key provided: {REDACTED}. Check your key."
    )
    # A short secret is replaced as a token, not inside other words.
    assert scrub_secrets("xabc12y and abc12", ["abc12"]) == f"xabc12y and {REDACTED}"


def test_importing_a_session_with_a_taken_id_keeps_both(tmp_path: Path) -> None:
    ws = raw(init_workspace(tmp_path / "w.axmem"))
    try:
        doc = sample_session_json()
        first = tmp_path / "a.axsession.json"
        first.write_text(json.dumps(doc), encoding="utf-8")
        assert import_session(ws, first) == (doc["id"], True, "")
        # the same file again: no change, and it says so
        assert import_session(ws, first) == (doc["id"], False, "")
        other = dict(doc, name="someone else's run")
        second = tmp_path / "b.axsession.json"
        second.write_text(json.dumps(other), encoding="utf-8")
        new_id, stored, taken = import_session(ws, second)
        assert (new_id, stored, taken) == (f"{doc['id']}-2", True, doc["id"])
        # the other file again: found under the id it was kept under, not stored a third time
        assert import_session(ws, second) == (new_id, False, doc["id"])
        rows = SessionService(ws).rows()
        assert len(rows) == 2
        names = {s.id: s.name for s in rows}
        assert names[doc["id"]] == doc.get("name", "") or names[doc["id"]] != other["name"]
        assert names[new_id] == "someone else's run"
        saved = ws.sessions.get(doc["id"])
        assert saved is not None and saved["name"] != "someone else's run"
    finally:
        ws.close()
