"""Tampered copies of one session recorded through the independent scripted server: each
kind of change is reported by `axmem replay` (and by `axmem verify` when no agent run is
needed), exit 1, named with its location, with a diff."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.cli.main import main
from axmem_gui.core.session.digest import request_digest

Doc = dict[str, Any]


def _prompt_text(doc: Doc) -> str:
    # A changed prompt, digest kept: the viewer would show a prompt never sent.
    user = doc["exchanges"][3]["request"]["chat_prompt"][1]
    user["content"] = user["content"].replace("Query:", "Query (edited):", 1)
    return "exchanges[3].request"


def _digest(doc: Doc) -> str:
    d = doc["exchanges"][5]["digest"]
    doc["exchanges"][5]["digest"] = d[:-1] + ("0" if d[-1] != "0" else "1")
    return "exchanges[5]"


def _skill_content(doc: Doc) -> str:
    skill = next(s for s in doc["catalog"]["skills"] if s["id"] == "incident-triage")
    skill["content"] += "\n- SEV0 does not exist."
    return "forwards[0].searches[0].results"


def _memory_content(doc: Doc) -> str:
    memory = next(m for m in doc["catalog"]["memories"] if m["id"] == "mem-sev-policy")
    memory["content"] = "A SEV1 incident pages nobody."
    return "forwards[0].searches[1].results"


def _memory_deleted(doc: Doc) -> str:
    doc["catalog"]["memories"] = [
        m for m in doc["catalog"]["memories"] if m["id"] != "mem-checkout-owner"
    ]
    return "forwards[0].searches[1].results"


def _turns(doc: Doc) -> str:
    doc["forwards"][0]["turns"][0]["code"] = "await discover({ skills: ['other'] });"
    return "forwards[0].turns"


def _action_log(doc: Doc) -> str:
    doc["forwards"][1]["action_log"].pop()
    return "forwards[1].action_log"


def _trace(doc: Doc) -> str:
    doc["forwards"][0]["trace"]["status"] = "failed"
    return "forwards[0].trace"


def _usage(doc: Doc) -> str:
    doc["forwards"][0]["usage"]["responder"][0]["completion_tokens"] += 1000
    return "forwards[0].usage"


def _exchange_usage(doc: Doc) -> str:
    doc["exchanges"][2]["usage"]["total_tokens"] = 1
    return "exchanges[2].usage"


def _map_update(doc: Doc) -> str:
    doc["forwards"][1]["context_map_update"]["added"] = ["cu-00003"]
    return "forwards[1].context_map_update"


def _map_snapshots(doc: Doc) -> str:
    snap = doc["contextMapSnapshots"][-1]["state"]
    snap["text"] = snap["text"].replace("observation 3", "observation 99")
    return "contextMapSnapshots"


def _map_chain(doc: Doc) -> str:
    before = doc["forwards"][1]["context_map_before"]
    before["text"] = before["text"].replace("observation 1", "observation 7")
    # The replay builds forward 2 on this map: its first prompt differs first.
    return "exchanges[8].request|forwards[1].context_map_before"


#: (tampering, found by `verify` too?)
TAMPERINGS: dict[str, tuple[Callable[[Doc], str], bool]] = {
    "prompt-text-digest-kept": (_prompt_text, True),
    "digest-changed": (_digest, True),
    "loaded-skill-content": (_skill_content, True),
    "memory-content": (_memory_content, True),
    "loaded-memory-deleted": (_memory_deleted, True),
    "turns": (_turns, True),
    "exchange-usage": (_exchange_usage, True),
    "context-map-update": (_map_update, True),
    "context-map-snapshots": (_map_snapshots, True),
    "context-map-chain": (_map_chain, True),
    "action-log": (_action_log, False),
    "trace": (_trace, False),
    # Since format 2 verify recomputes a forward's usage from its calls: found without a run.
    "usage": (_usage, True),
}


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().out


def _has_diff(text: str) -> bool:
    lines = text.splitlines()
    return (
        any(x.startswith("--- ") for x in lines)
        and any(x.startswith("+++ ") for x in lines)
        and any(x[:1] in "-+" and x[:3] not in ("---", "+++") for x in lines if x)
    )


def test_the_honest_recording_is_identical_and_verified(
    trusted: Doc, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "honest.axsession.json"
    path.write_text(json.dumps(trusted), encoding="utf-8")
    code, out = _cli(capsys, "verify", str(path))
    assert code == 0 and out.startswith("verified:"), out
    code, out = _cli(capsys, "replay", str(path))
    assert code == 0 and out.startswith("identical:"), out


@pytest.mark.parametrize("name", list(TAMPERINGS))
def test_each_tampering_is_reported_named_with_a_diff(
    name: str, trusted: Doc, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tamper, file_only = TAMPERINGS[name]
    doc = copy.deepcopy(trusted)
    where, _, file_where = tamper(doc).partition("|")
    file_where = file_where or where
    assert doc != trusted
    path = tmp_path / f"{name}.axsession.json"
    path.write_text(json.dumps(doc), encoding="utf-8")

    # (a file that fails verify is replayed only with --force: its code is untrusted)
    code, out = _cli(capsys, "replay", "--force", str(path))
    assert code == 1, out
    assert out.startswith("DIFFERENT"), out
    assert where in out.split("\n\n")[0], out  # named in the first difference
    assert _has_diff(out), out

    code, out = _cli(capsys, "verify", str(path))
    if file_only:
        assert code == 1, out
        assert file_where in out.split("\n\n")[0], out
        assert _has_diff(out), out
    else:
        assert code == 0, out  # only a run can tell; replay did


def test_a_changed_prompt_shows_the_text_that_was_really_sent(
    trusted: Doc, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = copy.deepcopy(trusted)
    _prompt_text(doc)
    path = tmp_path / "prompt.axsession.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    code, out = _cli(capsys, "replay", "--json", "--force", str(path))
    report = json.loads(out)
    first = report["differences"][0]
    assert code == 1 and first["kind"] == "stored_request"
    assert "-Query (edited): Which incident" in first["diff"]
    assert "+Query: Which incident" in first["diff"]


def test_a_changed_digest_shows_both_full_digests(
    trusted: Doc, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = copy.deepcopy(trusted)
    _digest(doc)
    path = tmp_path / "digest.axsession.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    exchange = doc["exchanges"][5]
    true_digest = request_digest(exchange["request"], exchange.get("params"), scheme=2)
    assert exchange["digest"].startswith("sha256-v2:")
    for command in (("replay", "--force"), ("verify",)):
        code, out = _cli(capsys, *command, str(path))
        assert code == 1
        assert f"-{doc['exchanges'][5]['digest']}" in out and f"+{true_digest}" in out
