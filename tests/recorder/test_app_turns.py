"""An app's actor turns as Ax ran them: the code read from a reply exactly as Ax 24.0.21
reads it (a streamed reply that is just the code, or its code in a fence, runs as is), and
each turn's outcome derived for a TypeScript recording (no trace) by the rule a studio
session's turns follow: a turn whose runtime output is the `[POLICY]` refusal was refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.cli.main import main
from axmem_gui.core.session.model import REFUSED
from axmem_gui.core.session.payloads import actor_code
from axmem_gui.core.session.timeline import outcome_phrase, session_timeline, turns_with_outcomes
from axmem_gui.services import sessions

REPO = Path(__file__).resolve().parents[2]
SESSIONS = REPO / "recorders" / "ax-ts" / "example" / "sessions"
#: Recorded by the real recorder on @ax-llm/ax 24.0.21 (`make recorder-fixture`), the
#: scripted actors answering with bare code, every other reply in a ```javascript fence.
PLAIN = SESSIONS / "triage-plain-code.axsession.json"
TS_SESSION = SESSIONS / "triage.axsession.json"


def _reply(content: str) -> dict[str, Any]:
    return {"results": [{"index": 0, "content": content, "function_calls": []}]}


@pytest.mark.parametrize(
    ("content", "code"),
    [
        ("await final('a', {});", "await final('a', {});"),  # no label: the one field
        ("```javascript\nconsole.log(1);\n```", "console.log(1);"),
        ("Javascript Code: console.log(2);", "console.log(2);"),  # the field's title
        ("javascriptCode: console.log(3);", "console.log(3);"),  # its name
        ("Let me look.\nJavascript Code:\n```js\nconsole.log(4);\n```", "console.log(4);"),
        ("<think>plan</think>\nconsole.log(5);", "console.log(5);"),
        ('{"javascriptCode": "console.log(6);"}', "console.log(6);"),
        ("null", None),  # Ax: the required field is missing
        ("", None),
    ],
)
def test_the_code_is_read_from_a_reply_as_ax_reads_it(content: str, code: str | None) -> None:
    assert actor_code(_reply(content)) == code


def test_a_reply_with_two_fences_is_kept_whole_as_the_runtime_refused_it() -> None:
    content = "Javascript Code:\n```js\na();\n```\n```js\nb();\n```"
    assert actor_code(_reply(content)) == "```js\na();\n```\n```js\nb();\n```"


def test_a_recording_of_bare_code_replies_verifies_and_imports_without_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On the old code: DIFFERENT, "the actor turn call #0 did not write this code"."""
    doc = json.loads(PLAIN.read_text(encoding="utf-8"))
    contents = [e["response"]["results"][0]["content"] for e in doc["exchanges"][:2]]
    assert contents[0].startswith("await discover(") and contents[1].startswith("```javascript")
    assert main(["verify", str(PLAIN)]) == 0
    assert "verified: 14 stored requests match their digests" in capsys.readouterr().out
    workspace = tmp_path / "w.axmem"
    assert main(["init", str(workspace)]) == 0
    capsys.readouterr()
    assert main(["sessions", "import", str(PLAIN), "-w", str(workspace)]) == 0
    out = capsys.readouterr()
    assert "imported session ts-triage-plain-code" in out.out
    assert "warning" not in out.err.lower(), out.err


def test_a_changed_turn_of_a_bare_code_recording_is_still_found(tmp_path: Path) -> None:
    doc = json.loads(PLAIN.read_text(encoding="utf-8"))
    doc["forwards"][0]["turns"][1]["code"] = "await recall(['something else']);"
    path = tmp_path / "t.axsession.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    report = sessions.verify(sessions.read_session_file(path))
    assert [(d.where, d.message) for d in report.differences] == [
        ("forwards[0].turns[1]", "the actor turn call #1 did not write this code")
    ]


#: What Ax 24.0.21 reports for a turn whose code calls a tool in the distiller stage.
REFUSAL = (
    "[POLICY] utils.lookupOwner(...) executes in the executor stage — this context stage "
    "cannot run tools. Extract the exact inputs it will need (ids, paths, records) and "
    "forward them in final(request, evidence)."
)


def test_a_typescript_turn_the_runtime_refused_shows_as_refused(tmp_path: Path) -> None:
    """On the old code the turn had no outcome: the viewer said "runtime error"."""
    doc = json.loads(TS_SESSION.read_text(encoding="utf-8"))
    turn = doc["forwards"][0]["turns"][0]
    turn.update(output=f"Error: {REFUSAL}", is_error=True)
    path = tmp_path / "refused.axsession.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    session = sessions.read_session_file(path)
    turns = turns_with_outcomes(session, session.forwards[0])
    assert [(t.call_index, t.outcome) for t in turns] == [
        (0, REFUSED),
        (1, "ran"),
        (2, "ran"),
        (3, "ran"),
        (4, "ran"),
        (5, "ran"),
    ]
    assert turns[0].message == REFUSAL
    assert turns[0].next_view is not None  # the Action Log the next call showed (as recorded)
    node = session_timeline(session)[0].stages[0].turns[0]
    assert outcome_phrase(node.outcome, node.retry) == "refused by policy"


def test_an_actor_call_no_typescript_turn_points_at_did_not_run(tmp_path: Path) -> None:
    doc = json.loads(TS_SESSION.read_text(encoding="utf-8"))
    del doc["forwards"][0]["turns"][2]
    path = tmp_path / "t.axsession.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    session = sessions.read_session_file(path)
    turns = turns_with_outcomes(session, session.forwards[0])
    assert [(t.call_index, t.outcome) for t in turns][2] == (2, "unused")
