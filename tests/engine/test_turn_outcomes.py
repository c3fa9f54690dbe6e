"""Every actor call is a turn with what came of it (issue #29). On the old code a turn whose
code the runtime refused, and a reply axllm could not parse, were missing from
`forwards[].turns` (3 of 5 calls listed here) and looked like calls that did nothing."""

from __future__ import annotations

import threading
from typing import Any

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.session.agent_config import AgentConfig
from axmem_gui.engine.clients import CancelToken
from axmem_gui.services import sessions
from tests.engine.conftest import INPUTS, record
from tests.fakes.fake_openai_server import FakeOpenAIServer, settings_for
from tests.helpers.session_docs import reparse, session_json

POLICY = (
    "[POLICY] Javascript Code must contain at most one fenced code block. "
    "No code from the previous turn was executed."
)
PARSE_ERROR = "Unterminated string starting at: line 1 column 20 (char 19)"


def _turns(doc: dict[str, Any]) -> list[tuple[int | None, str, Any]]:
    return [(t["call_index"], t["outcome"], t.get("retry")) for t in doc["forwards"][0]["turns"]]


def _one(server: FakeOpenAIServer, config: AgentConfig, catalog: Catalog, **kw: Any) -> Any:
    return record(server, config, catalog, (dict(INPUTS[0]),), **kw)


def test_a_refused_turn_and_an_invalid_json_reply_are_turns_with_their_outcome(
    server: FakeOpenAIServer, config: AgentConfig, catalog: Catalog
) -> None:
    server.state.faults = {2: "two-fences", 4: "cut-json"}
    session = _one(server, config, catalog)
    doc = session_json(session)
    actor = [e["index"] for e in doc["exchanges"] if e["stage"].startswith("actor.")]
    assert _turns(doc) == [
        (0, "ran", None),
        (1, "refused", None),
        (2, "ran", None),
        (3, "invalid_output", 1),
        (4, "ran", None),
    ]
    assert [t[0] for t in _turns(doc)] == actor  # every actor call, in order
    refused, invalid = doc["forwards"][0]["turns"][1], doc["forwards"][0]["turns"][3]
    assert refused["message"] == refused["output"] == POLICY and refused["is_error"]
    assert "```js" in refused["code"]
    # What the next distiller call shows the model: its Action Log entry for the turn.
    assert refused["next_view"].endswith(f"Result:\n{POLICY}\n[runtime error] ")
    assert invalid["message"] == PARSE_ERROR and invalid["code"] == ""
    assert invalid["next_view"].endswith(f"Invalid Field: {PARSE_ERROR}")
    ran = doc["forwards"][0]["turns"][0]
    assert ran["next_view"].startswith("```javascript\nawait discover(")
    # Derived: verify recomputes them, and the replay agrees.
    assert sessions.verify(session).ok
    assert sessions.replay(session).identical


def test_verify_recomputes_each_turn_outcome(
    server: FakeOpenAIServer, config: AgentConfig, catalog: Catalog
) -> None:
    server.state.faults = {2: "two-fences", 4: "cut-json"}
    doc = session_json(_one(server, config, catalog))
    for field, value in (("outcome", "ran"), ("message", "fine"), ("retry", 2)):
        tampered = session_json(reparse(doc))
        tampered["forwards"][0]["turns"][3][field] = value
        report = sessions.verify(reparse(tampered))
        assert [d.where for d in report.differences] == ["forwards[0].turns"], field
    dropped = session_json(reparse(doc))
    del dropped["forwards"][0]["turns"][1]  # the refused turn left out, as before
    assert not sessions.verify(reparse(dropped)).ok


def test_a_reply_axllm_gave_up_on_ends_the_forward_as_invalid_output(
    server: FakeOpenAIServer, config: AgentConfig, catalog: Catalog
) -> None:
    server.state.faults = {2: "cut-json", 3: "cut-json"}
    doc = session_json(_one(server, config, catalog))
    assert doc["status"] == "incomplete"
    assert _turns(doc) == [(0, "ran", None), (1, "invalid_output", 1), (2, "invalid_output", None)]
    assert doc["forwards"][0]["turns"][2]["message"] == PARSE_ERROR
    assert sessions.verify(reparse(doc)).ok


def test_a_timed_out_call_is_a_turn(
    server: FakeOpenAIServer, config: AgentConfig, catalog: Catalog
) -> None:
    server.state.faults = {2: "timeout"}
    server.state.slow_seconds = 0.6
    doc = session_json(_one(server, config, catalog, settings=settings_for(server, timeout_s=0.2)))
    assert _turns(doc) == [(0, "ran", None), (1, "timeout", None)]
    assert "deadline" in doc["forwards"][0]["turns"][1]["message"]
    assert sessions.verify(reparse(doc)).ok


def test_a_call_cancelled_in_flight_is_a_turn(
    server: FakeOpenAIServer, config: AgentConfig, catalog: Catalog
) -> None:
    server.state.faults = {2: "timeout"}
    server.state.slow_seconds = 3600.0  # held until cancelled (stop() releases it)
    token = CancelToken()
    threading.Thread(target=_cancel_once_held, args=(server, token), daemon=True).start()
    doc = session_json(
        _one(server, config, catalog, cancel=token, settings=settings_for(server, timeout_s=30))
    )
    assert _turns(doc) == [(0, "ran", None), (1, "cancelled", None)]
    assert sessions.verify(reparse(doc)).ok


def _cancel_once_held(server: FakeOpenAIServer, token: CancelToken) -> None:
    if server.state.holding.wait(60):
        token.cancel()
