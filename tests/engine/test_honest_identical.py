"""Replay and verify no longer call an edited session identical (issue #29). Each edit below
passed both on the old code: the model names, the sampling settings, the retry history,
the durations, the finish reason, versions.quickjs, versions.ax_profile, search.backend, and
token counts changed consistently in all four places (the call's usage, its response's
model_usage, the forward's usage and the trace's copy). A version 2 file records what
decides each of them (params, wire, every attempt) and a digest over the whole request and
its params; a version 1 file keeps verifying, and its report says what is not checked."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.core.session.digest import request_digest
from axmem_gui.core.session.model import Session
from axmem_gui.services import sessions
from tests.engine.conftest import INPUTS, record
from tests.fakes.fake_openai_server import FakeOpenAIServer, settings_for
from tests.helpers.session_docs import reparse, session_json

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sessions"
V1_FILE = FIXTURES / "ops-assistant-v1.axsession.json"

Doc = dict[str, Any]


@pytest.fixture(scope="module")
def retried() -> Session:
    """One forward whose second call was refused with HTTP 429 (Retry-After 0) and retried."""
    from axmem_gui.core.session.agent_config import agent_config_from_json
    from tests.engine.conftest import AGENT_JSON, make_catalog

    server = FakeOpenAIServer().start()
    try:
        server.state.faults = {2: "429"}
        server.state.retry_after = "0"
        config = agent_config_from_json(copy.deepcopy(AGENT_JSON), "test agent")
        settings = settings_for(server, max_retries=2)
        return record(server, config, make_catalog(), (dict(INPUTS[0]),), settings=settings)
    finally:
        server.stop()


def test_what_decided_each_call_is_recorded(retried: Session) -> None:
    first, second = retried.exchanges[0], retried.exchanges[1]
    assert first.digest.startswith("sha256-v2:")
    assert first.params is not None and first.wire is not None
    # axllm sent temperature 0, which the provider-neutral request does not hold.
    assert first.params.temperature == 0 and first.wire.request["temperature"] == 0
    assert first.params.model == "scripted-a" and first.params.stream is False
    assert first.params.tool_choice == first.request["function_call"]
    assert first.wire.status == 200 and isinstance(first.wire.response, dict)
    assert first.wire.response["model"] == "scripted-a"
    assert [a.outcome for a in second.attempts or ()] == ["rate_limited", "ok"]
    assert [a.outcome for a in first.attempts or ()] == ["ok"]
    assert second.duration_ms == round(
        sum(float(a.duration_ms or 0) for a in second.attempts or ()), 3
    )
    assert sessions.verify(retried).ok
    assert sessions.replay(retried).identical


def _redigest(doc: Doc, i: int) -> None:
    ex = doc["exchanges"][i]
    ex["digest"] = request_digest(ex["request"], ex["params"], 2)


def _everywhere(doc: Doc, change: Callable[[Doc], None]) -> None:
    for i, ex in enumerate(doc["exchanges"]):
        change(ex)
        _redigest(doc, i)


def _sampling_everywhere(doc: Doc) -> None:
    def hotter(ex: Doc) -> None:
        ex["params"]["temperature"] = 0.7
        ex["params"]["model_config"]["temperature"] = 0.7
        ex["wire"]["request"]["temperature"] = 0.7

    _everywhere(doc, hotter)


def _tokens_in_four_places(doc: Doc) -> None:
    ex, fw = doc["exchanges"][0], doc["forwards"][0]
    for tokens in (
        ex["usage"],
        ex["response"]["model_usage"]["tokens"],
        fw["usage"]["actor"][0],
        fw["trace"]["usage"]["actor"][0],
    ):
        tokens["completion_tokens"] += 100
        tokens["total_tokens"] += 100


def _request_model(doc: Doc) -> None:
    def renamed(ex: Doc) -> None:
        ex["params"]["model"] = "scripted-b"
        ex["wire"]["request"]["model"] = "scripted-b"

    _everywhere(doc, renamed)


EDITS: list[tuple[str, Callable[[Doc], None], str | None, str]] = [
    # (what, edit, where verify finds it or None (replay only), where replay finds it)
    ("provider.model", lambda d: d["provider"].update(model="scripted-b"),
     "exchanges[0].params.model", "exchanges[0].request"),
    ("every request's model name", _request_model,
     "exchanges[0].params.model", "exchanges[0].request"),
    ("a response's model name",
     lambda d: d["exchanges"][0]["response"]["model_usage"].update(model="gpt-9"),
     "exchanges[0].response", "exchanges[0].response"),
    ("a sampling setting",
     lambda d: d["exchanges"][0]["params"].update(temperature=0.7),
     "exchanges[0].request", "exchanges[0].request"),
    ("a sampling setting everywhere, digests recomputed", _sampling_everywhere,
     None, "exchanges[0].request"),
    ("the retry history (a failed attempt dropped)",
     lambda d: d["exchanges"][1].update(attempts=d["exchanges"][1]["attempts"][1:]),
     "exchanges[1].attempts", "exchanges[1].attempts"),
    ("the retry history (the HTTP attempts)",
     lambda d: d["exchanges"][1].update(http_attempts=d["exchanges"][1]["http_attempts"][:1]),
     "exchanges[1].attempts", "exchanges[1].attempts"),
    ("the retry history (a wait)",
     lambda d: d["exchanges"][1]["attempts"][0].update(retry_in_s=5),
     "exchanges[1].attempts", "exchanges[1].attempts"),
    ("the retry policy", lambda d: d["provider"]["retry_policy"].update(max_retries=0),
     "exchanges[1].attempts", "exchanges[1].attempts"),
    ("a duration", lambda d: d["exchanges"][0].update(duration_ms=1.0),
     "exchanges[0].duration_ms", "exchanges[0].duration_ms"),
    ("a finish reason",
     lambda d: d["exchanges"][0]["response"]["results"][0].update(finish_reason="length"),
     "exchanges[0].response", "exchanges[0].response"),
    ("versions.quickjs", lambda d: d["versions"].update(quickjs="0.0.1"),
     None, "versions.quickjs"),
    ("versions.ax_profile", lambda d: d["versions"].update(ax_profile="ax-9.9.9"),
     "versions.ax_profile", "versions.ax_profile"),
    ("search.backend", lambda d: d["search"].update(backend="axllm-builtin"),
     "search.profile", "search.profile"),
    ("token counts in all four places", _tokens_in_four_places,
     "exchanges[0].response", "exchanges[0].response"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("what", "edit", "verify_at", "replay_at"), EDITS, ids=[e[0] for e in EDITS]
)
def test_an_edited_session_is_not_identical(
    retried: Session,
    what: str,
    edit: Callable[[Doc], None],
    verify_at: str | None,
    replay_at: str,
) -> None:
    doc = session_json(retried)
    edit(doc)
    tampered = reparse(doc)
    verified = sessions.verify(tampered)
    if verify_at is None:
        # What only a run can tell: the settings the recorded provider makes, the QuickJS
        # the code runs on. The report says so (no signature guards a file).
        assert verified.ok, verified.render()
    else:
        assert verify_at in [d.where for d in verified.differences], (what, verified.render())
    replayed = sessions.replay(tampered)
    assert not replayed.identical, what
    assert replay_at in [d.where for d in replayed.differences], (what, replayed.render())


def test_a_sampling_setting_changed_everywhere_is_caught_by_replay_with_a_diff(
    retried: Session,
) -> None:
    doc = session_json(retried)
    _sampling_everywhere(doc)
    report = sessions.replay(reparse(doc))
    first = report.differences[0]
    assert first.where == "exchanges[0].request" and first.kind == "prompt"
    assert '-  "temperature": 0.7' in first.diff and '+  "temperature": 0' in first.diff


def test_the_reports_say_what_identical_covers(retried: Session) -> None:
    text = sessions.replay(retried).render()
    assert text.startswith("identical: ")
    assert "checked:\n" in text and "not checked:\n" in text
    assert "scheme 2 digest" in text and "retry policy" in text and "raw reply" in text
    assert "carries no signature" in text
    as_json = sessions.verify(retried).to_json()
    assert as_json["checked"] and as_json["not_checked"]


def test_a_version_1_file_keeps_verifying_and_says_what_is_not_checked() -> None:
    old = sessions.read_session_file(V1_FILE)
    assert old.version == 1 and old.exchanges[0].digest.startswith("sha256:")
    assert old.exchanges[0].params is None
    report = sessions.verify(old)
    assert report.ok, report.render()
    not_checked = " ".join(report.to_json()["not_checked"])
    assert "version 1" in not_checked and "the sampling settings" in not_checked
    replayed = sessions.replay(old)
    assert replayed.identical, replayed.render()
    assert "version 1" in replayed.render()
    # Its digests keep their own definition: the prompt parts only.
    doc = session_json(old)
    doc["exchanges"][0]["request"]["model_config"] = {"temperature": 0.7}
    assert sessions.verify(reparse(doc)).ok  # not covered, and the report says so
    doc["exchanges"][0]["request"]["chat_prompt"][1]["content"] = "edited"
    assert not sessions.verify(reparse(doc)).ok


def test_a_version_2_file_cannot_pass_for_a_version_1_one_call_by_call(retried: Session) -> None:
    doc = session_json(retried)
    ex = doc["exchanges"][0]
    ex["digest"] = request_digest(ex["request"])  # the old scheme, in a version 2 file
    assert "exchanges[0].digest" in [d.where for d in sessions.verify(reparse(doc)).differences]


def test_params_are_what_was_sent_under_neutral_names() -> None:
    """A studio run's params are derived from the settings sent (verify recomputes them):
    OpenAI's `max_completion_tokens` is `max_tokens`, the tool choice is Ax's."""
    from axmem_gui.core.session.wire_payloads import params_of

    request = {"function_call": "auto", "chat_prompt": []}
    sent = {"model": "m", "temperature": 0.2, "max_completion_tokens": 64, "stream": True}
    assert params_of(request, sent) == {
        "model": "m",
        "temperature": 0.2,
        "max_tokens": 64,
        "stream": True,
        "tool_choice": "auto",
        "model_config": {"temperature": 0.2, "max_tokens": 64, "stream": True},
    }
