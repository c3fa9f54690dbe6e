"""The provider behaviour the user sets, against the independent scripted server: a deadline
per reply, one retry policy (axllm's own retries folded in), streamed replies recorded and
replayed, a failed map update an error or a warning."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import axllm
import pytest

from axmem_gui.cli.main import main
from axmem_gui.core.providers import RetryPolicy
from axmem_gui.engine.clients import fold_chunks as sessions_fold
from axmem_gui.engine.policy import DeadlineTransport, PolicyClient
from axmem_gui.services import sessions
from tests.helpers.session_docs import reparse
from tests.trust.conftest import record, settings
from tests.trust.script_server import ScriptServer

REQUEST = {"chat_prompt": [{"role": "user", "content": "Say hi"}]}


def _run_cli(workspace: Path, server: ScriptServer, out: Path, *extra: str) -> list[str]:
    return [
        "run", "--workspace", str(workspace), "--agent", "triage",
        "--input", "query=Which incident is the most severe?",
        "--input", "document=INC-1 | SEV1 | checkout | down",
        "--provider", "openai-compatible", "--model", "script-1",
        "--base-url", server.base_url, "-q", "-o", str(out), *extra,
    ]  # fmt: skip


# ------------------------------------------------------------------ deadline ---


def test_timeout_is_a_deadline_for_a_trickled_reply(
    script_server: ScriptServer,
    workspace_path: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # 8 seconds of a valid reply in small pieces: every read is quick, the reply is not.
    script_server.state.faults = {1: "trickle"}
    script_server.state.trickle_seconds = 8.0
    out = tmp_path / "s.axsession.json"
    code = main(
        _run_cli(workspace_path, script_server, out, "--timeout", "2", "--max-retries", "0")
    )
    assert code == 1
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["error"]["kind"] == "timeout"
    assert "2 s deadline" in doc["error"]["message"]
    assert len(script_server.bodies) == 1
    assert "did not answer in time" in capsys.readouterr().err


def test_timeout_is_a_deadline_for_a_streamed_reply_too(script_server: ScriptServer) -> None:
    script_server.state.faults = {1: "trickle"}
    script_server.state.trickle_seconds = 8.0
    doc = record(script_server, settings=settings(script_server, timeout_s=1.0, stream=True))
    assert doc["status"] == "incomplete" and doc["error"]["kind"] == "timeout"
    assert "streamed reply within the 1 s deadline" in doc["error"]["message"]
    assert script_server.bodies[0]["stream"] is True and len(script_server.bodies) == 1
    assert sessions.replay(reparse(doc)).identical


# --------------------------------------------------------------------- retry ---


def test_max_retries_zero_is_exactly_one_request(script_server: ScriptServer) -> None:
    script_server.state.faults = {n: "500" for n in range(1, 10)}
    doc = record(script_server, settings=settings(script_server, max_retries=0))
    assert doc["status"] == "incomplete" and doc["error"]["kind"] == "http_status"
    assert len(script_server.bodies) == 1  # no axllm request-layer or AxGen retry on top
    assert len(doc["exchanges"]) == 1
    assert [a["outcome"] for a in doc["exchanges"][0]["attempts"]] == ["server_error"]
    # the recorded failure ends the replay the same way
    assert sessions.replay(reparse(doc)).identical


def test_a_malformed_reply_is_retried_like_a_500_and_the_attempts_are_recorded(
    script_server: ScriptServer,
) -> None:
    script_server.state.faults = {1: "500", 2: "malformed"}
    policy_settings = settings(script_server, max_retries=2, retry_backoff_s=0.0)
    doc = record(script_server, settings=policy_settings)
    assert doc["status"] == "complete"
    first = doc["exchanges"][0]
    assert [a["outcome"] for a in first["attempts"]] == ["server_error", "malformed", "ok"]
    assert [a.get("retry_in_s") for a in first["attempts"]] == [0.0, 0.0, None]
    assert len(script_server.bodies) == len(doc["exchanges"]) + 2
    # The policy is part of the record, and the session replays identically.
    assert doc["provider"]["retry_policy"] == {
        "max_retries": 2,
        "backoff_s": 0.0,
        "backoff_factor": 2.0,
        "max_wait_s": 60.0,
        "retry_on": ["rate_limited", "server_error", "network", "timeout", "malformed"],
    }
    assert sessions.replay(reparse(doc)).identical


def test_failures_not_listed_in_retry_on_are_not_retried(script_server: ScriptServer) -> None:
    script_server.state.faults = {1: "malformed"}
    only_5xx = settings(
        script_server, max_retries=3, retry_backoff_s=0.0, retry_on=("server_error",)
    )
    doc = record(script_server, settings=only_5xx)
    assert doc["error"]["kind"] == "bad_response" and len(script_server.bodies) == 1


def test_retry_after_is_honoured_and_a_longer_one_than_allowed_gives_up(
    script_server: ScriptServer,
) -> None:
    script_server.state.faults = {1: "429", 3: "429"}
    script_server.state.retry_after = "7"
    inner = axllm.ai(
        "openai-compatible",
        api_key="k",
        base_url=script_server.base_url,
        model="script-1",
        options={"retry": {"maxRetries": 0}},
        transport=DeadlineTransport(10.0),
    )
    waits: list[float] = []
    client = PolicyClient(
        inner,
        timeout_s=10.0,
        policy=RetryPolicy(max_retries=1, backoff_s=0.5),
        sleep=lambda seconds, _token: waits.append(seconds),
    )
    client.chat(copy.deepcopy(REQUEST), {})
    assert waits == [7.0]  # the server's Retry-After, not the 0.5 s backoff
    assert [a["outcome"] for a in client.last_call.attempts] == ["rate_limited", "ok"]

    impatient = PolicyClient(
        inner,
        timeout_s=10.0,
        policy=RetryPolicy(max_retries=3, max_wait_s=5.0),
        sleep=lambda *_: None,
    )
    with pytest.raises(Exception, match="HTTP 429"):
        impatient.chat(copy.deepcopy(REQUEST), {})
    assert len(script_server.bodies) == 3  # asked to wait 7 s > 5 s: no retry


def test_bad_retry_options_are_refused_with_a_clear_message(
    workspace_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = _run_cli(workspace_path, ScriptServer(), tmp_path / "x.json", "--retry-on", "teapot")
    assert main(args) == 2
    assert "cannot retry on teapot" in capsys.readouterr().err


# ----------------------------------------------------------------- streaming ---


def test_a_streamed_run_records_its_chunks_and_replays_them(
    script_server: ScriptServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = record(script_server, settings=settings(script_server, stream=True))
    assert doc["status"] == "complete" and doc["provider"]["stream"] is True
    assert all(b.get("stream") is True for b in script_server.bodies)
    for ex in doc["exchanges"]:
        assert ex["stream"] is True and len(ex["chunks"]) > 2
        assert ex["response"] == sessions_fold(ex["chunks"])
    assert sessions.replay(reparse(doc)).identical
    # A chunk changed (the response kept) is caught by verify and replay.
    tampered = copy.deepcopy(doc)
    chunk = tampered["exchanges"][5]["chunks"][1]["results"][0]
    chunk["content"] = chunk["content"].upper()
    path = tmp_path / "t.axsession.json"
    path.write_text(json.dumps(tampered), encoding="utf-8")
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert "at exchanges[5].response" in out and "+++ folded chunks" in out
    # Replay sends the call again through the recorded provider's client, which reads the
    # recorded raw reply: the changed chunk differs there first; the fold check is listed.
    # (a file that fails verify is replayed only with --force: its code is untrusted)
    assert main(["replay", "--force", str(path)]) == 1
    out = capsys.readouterr().out
    first, _, rest = out.partition("more difference(s)")
    assert "at exchanges[5].chunks (reply)" in first and "exchanges[5].response" in rest


# ------------------------------------------------------------- map failures ---


def _map_failure(server: ScriptServer) -> None:
    # Call 7 is the first forward's context-map Distiller; axllm swallows its failure.
    server.state.faults = {7: "500"}


def test_a_failed_map_update_warns_on_stderr_by_default(
    script_server: ScriptServer,
    workspace_path: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _map_failure(script_server)
    out = tmp_path / "s.axsession.json"
    assert main(_run_cli(workspace_path, script_server, out, "--max-retries", "0")) == 0
    err = capsys.readouterr().err
    assert "axmem: warning: forward 1: the context-map update failed" in err


def test_a_failed_map_update_can_be_an_error(
    script_server: ScriptServer,
    workspace_path: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _map_failure(script_server)
    out = tmp_path / "s.axsession.json"
    args = _run_cli(
        workspace_path, script_server, out, "--max-retries", "0", "--on-map-failure", "error"
    )
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "axmem: error: forward 1: the context-map update failed" in err
    assert out.is_file()  # the session is kept


def test_the_session_viewer_shows_a_failed_map_update(
    qtbot: Any, script_server: ScriptServer
) -> None:
    from axmem_gui.ui.sessions.viewer import SessionViewer

    _map_failure(script_server)
    doc = record(script_server)
    assert doc["status"] == "complete"  # axllm swallowed the failure
    view = SessionViewer(reparse(doc))
    qtbot.addWidget(view)
    assert "Warning: forward 1: the context-map update failed" in view.banner.text()
    assert view.banner.isVisibleTo(view)


def test_giving_up_after_retries_says_how_many_attempts(script_server: ScriptServer) -> None:
    script_server.state.faults = {n: "500" for n in range(1, 10)}
    doc = record(script_server, settings=settings(script_server, max_retries=2, retry_backoff_s=0))
    assert doc["error"]["kind"] == "http_status"
    assert doc["error"]["message"].endswith("(gave up after 3 attempts)")
    assert len(script_server.bodies) == 3
    assert sessions.replay(reparse(doc)).identical
