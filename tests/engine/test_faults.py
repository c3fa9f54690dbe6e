"""Faults end a run with a clear error; the partial session is kept, marked incomplete,
and still valid, writable and replayable. Cancellation works the same way."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.session.agent_config import AgentConfig
from axmem_gui.engine.clients import CancelToken, RunProgress
from axmem_gui.services import sessions
from tests.engine.conftest import record
from tests.fakes.fake_openai_server import FakeOpenAIServer, settings_for
from tests.helpers.session_docs import reparse, session_json

CASES = [
    # fault, error kind, words the message must contain
    ("500", "http_status", ["HTTP 500", "internal error (fake)"]),
    ("429", "rate_limited", ["HTTP 429", "retry after 7 s"]),
    ("timeout", "timeout", ["did not answer in time"]),
    ("malformed", "bad_response", ["response axllm cannot use"]),
    ("drop", "network", ["connection to the model server failed", "IncompleteRead"]),
    ("reset", "network", ["connection to the model server failed"]),
    ("401", "auth", ["HTTP 401", "check the API key"]),
]


@pytest.mark.parametrize(("fault", "kind", "words"), CASES, ids=[c[0] for c in CASES])
def test_fault_ends_the_run_with_a_clear_error_and_keeps_the_partial_session(
    server: FakeOpenAIServer,
    config: AgentConfig,
    catalog: Catalog,
    tmp_path: Path,
    fault: str,
    kind: str,
    words: list[str],
) -> None:
    server.state.faults = {n: fault for n in range(2, 50)}  # the first call succeeds
    server.state.slow_seconds = 0.6
    slow = settings_for(server, timeout_s=0.2)
    doc = session_json(record(server, config, catalog, settings=slow))
    assert doc["status"] == "incomplete"
    error = doc["error"]
    assert error["kind"] == kind and error["forward"] == 0
    for word in words:
        assert word in error["message"]
    assert "Traceback" not in error["message"]
    first, *failed = doc["exchanges"]
    assert first["response"] is not None and first["error"] is None
    assert failed and all(e["response"] is None and e["error"]["kind"] == kind for e in failed)
    assert error["call_index"] == failed[-1]["index"]
    assert [f["status"] for f in doc["forwards"]] == ["failed", "not_run"]
    # The partial session is a valid file and lands in the workspace format unchanged.
    path = tmp_path / "partial.axsession.json"
    sessions.write_session_file(reparse(doc), path)
    assert sessions.read_session_file(path).status == "incomplete"


@pytest.mark.parametrize("fault", ["429", "500"])
def test_a_failed_session_replays_to_the_same_failure(
    server: FakeOpenAIServer, config: AgentConfig, catalog: Catalog, fault: str
) -> None:
    server.state.faults = {n: fault for n in range(3, 50)}
    doc = session_json(record(server, config, catalog))
    report = sessions.replay(reparse(doc))
    assert report.identical, report.render()
    assert report.forwards[0].recorded_status == report.forwards[0].replay_status == "failed"


def test_429_with_retry_after_is_retried_when_allowed(
    server: FakeOpenAIServer, config: AgentConfig, catalog: Catalog
) -> None:
    server.state.faults = {2: "429"}
    server.state.retry_after = "0"
    doc = session_json(record(
        server,
        config,
        catalog,
        inputs=(_one_input(),),
        settings=settings_for(server, max_retries=1),
    ))
    assert doc["status"] == "complete"
    assert len(doc["exchanges"][1]["http_attempts"]) == 2  # the 429, then the retry
    assert all(len(e["http_attempts"]) == 1 for i, e in enumerate(doc["exchanges"]) if i != 1)


def _one_input() -> dict[str, Any]:
    from tests.engine.conftest import INPUTS

    return dict(INPUTS[0])


def test_cancel_between_model_calls(
    server: FakeOpenAIServer, config: AgentConfig, catalog: Catalog
) -> None:
    token = CancelToken()
    seen: list[RunProgress] = []

    def progress(event: RunProgress) -> None:
        seen.append(event)
        if event.kind == "call_finished" and event.calls == 3:
            token.cancel()

    doc = session_json(record(server, config, catalog, cancel=token, progress=progress))
    assert doc["status"] == "incomplete" and doc["error"]["kind"] == "cancelled"
    assert len(doc["exchanges"]) == 3 and len(server.requests) == 3
    assert doc["forwards"][0]["status"] == "cancelled"
    kinds = [e.kind for e in seen]
    assert kinds[0] == "forward_started" and "call_started" in kinds
    assert seen[-1].kind == "forward_finished" and "cancelled" in seen[-1].message
    # Replaying a cancelled session stops at the same point and says identical.
    report = sessions.replay(reparse(doc))
    assert report.identical, report.render()


def test_cancel_with_a_plain_callable_during_the_context_map_update(
    server: FakeOpenAIServer, config: AgentConfig, catalog: Catalog
) -> None:
    # axllm swallows errors raised inside the context-map update; the cancel must still
    # end the session as cancelled.
    calls: list[int] = []

    def progress(event: RunProgress) -> None:
        if event.kind == "call_finished":
            calls.append(event.calls)

    session = record(server, config, catalog, cancel=lambda: len(calls) >= 7, progress=progress)
    doc = session_json(session)
    assert [e["stage"] for e in doc["exchanges"]][-1] == "context_map.distiller"
    assert doc["status"] == "incomplete" and doc["error"]["kind"] == "cancelled"
    assert doc["forwards"][0]["output"] is not None  # the answer itself was produced


def test_cancel_aborts_a_request_in_flight(
    server: FakeOpenAIServer, config: AgentConfig, catalog: Catalog
) -> None:
    server.state.faults = {2: "timeout"}
    server.state.slow_seconds = 3600.0  # held until the test ends (stop() releases it)
    token = CancelToken()
    # Cancel once the second request is being held by the server, i.e. really in flight.
    threading.Thread(target=_cancel_once_held, args=(server, token), daemon=True).start()
    patient = settings_for(server, timeout_s=30)
    doc = session_json(record(server, config, catalog, cancel=token, settings=patient))
    assert server.state.held == 1  # returned while the slow reply was still held
    assert doc["status"] == "incomplete" and doc["error"]["kind"] == "cancelled"
    assert doc["exchanges"][-1]["error"]["kind"] == "cancelled"


def test_slow_streamed_answers_still_complete(
    server: FakeOpenAIServer, config: AgentConfig, catalog: Catalog
) -> None:
    server.state.faults = {n: "slow-stream" for n in range(1, 50)}
    doc = session_json(record(server, config, catalog, settings=settings_for(server, timeout_s=5)))
    assert doc["status"] == "complete"
    assert all(e["error"] is None for e in doc["exchanges"])


def _cancel_once_held(server: FakeOpenAIServer, token: CancelToken) -> None:
    if server.state.holding.wait(60):
        token.cancel()
