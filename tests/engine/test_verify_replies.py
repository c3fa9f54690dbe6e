"""`axmem verify` reads each recorded raw reply with the recorded provider's client, as the
replay does (offline), and sets that reading against the stored reply: a stored reply
whose content or function calls were changed passed verify before (only replay caught
it), since verify compared the model name, token counts and finish reason only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from axmem_gui.core.session.stages import ACTOR_STAGES, RESPONDER
from axmem_gui.services import sessions
from tests.engine.conftest import record
from tests.fakes.fake_openai_server import FakeOpenAIServer, settings_for
from tests.helpers.session_docs import reparse, sample_session_json, session_json

Doc = dict[str, Any]


def _first(doc: Doc, stages: tuple[str, ...]) -> int:
    return next(i for i, ex in enumerate(doc["exchanges"]) if ex["stage"] in stages)


def _content(doc: Doc) -> str:
    i = _first(doc, (RESPONDER,))
    doc["exchanges"][i]["response"]["results"][0]["content"] = "answer: Something else entirely"
    return f"exchanges[{i}].response"


def _code(doc: Doc) -> str:
    i = _first(doc, tuple(ACTOR_STAGES))
    call = doc["exchanges"][i]["response"]["results"][0]["function_calls"][0]
    call["function"]["params"]["javascriptCode"] = 'await final("done", {});'
    return f"exchanges[{i}].response"


EDITS: list[tuple[str, Callable[[Doc], str]]] = [
    ("the responder's content", _content),
    ("an actor's code (its function call)", _code),
]


@pytest.mark.parametrize(("what", "edit"), EDITS, ids=[e[0] for e in EDITS])
def test_verify_finds_a_stored_reply_the_raw_reply_does_not_say(
    what: str, edit: Callable[[Doc], str]
) -> None:
    doc = sample_session_json()
    assert sessions.verify(reparse(doc)).ok
    where = edit(doc)
    report = sessions.verify(reparse(doc))
    found = [d for d in report.differences if d.where == where]
    assert found, (what, report.render())
    assert found[0].kind == "reply" and "read from the raw reply" in found[0].diff


def test_verify_reads_a_streamed_reply_as_the_replay_does() -> None:
    from axmem_gui.core.session.agent_config import agent_config_from_json
    from tests.engine.conftest import AGENT_JSON, INPUTS, make_catalog

    server = FakeOpenAIServer().start()
    try:
        config = agent_config_from_json(dict(AGENT_JSON), "test agent")
        settings = settings_for(server, stream=True)
        streamed = record(server, config, make_catalog(), (dict(INPUTS[0]),), settings=settings)
    finally:
        server.stop()
    assert any(ex.chunks for ex in streamed.exchanges)
    assert sessions.verify(streamed).ok, sessions.verify(streamed).render()
    # A streamed call's response and chunks changed together (their fold still holds):
    # the raw reply says otherwise.
    doc = session_json(streamed)
    i = next(
        k
        for k, ex in enumerate(doc["exchanges"])
        if ex.get("chunks") and ex["response"]["results"][0].get("content")
    )
    ex = doc["exchanges"][i]
    old = ex["response"]["results"][0]["content"]
    ex["response"]["results"][0]["content"] = old + " (edited)"
    for chunk in reversed(ex["chunks"]):
        results = chunk.get("results") or []
        if results and results[0].get("content"):
            results[0]["content"] += " (edited)"
            break
    report = sessions.verify(reparse(doc))
    wheres = [d.where for d in report.differences]
    assert f"exchanges[{i}].response" not in wheres, report.render()  # the fold holds
    assert f"exchanges[{i}].chunks" in wheres, report.render()

