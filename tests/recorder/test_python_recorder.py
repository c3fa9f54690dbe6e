"""axmem_gui.recorder on the example app agent (tests/recorder/example_app): the real axllm
against the scripted OpenAI-compatible server on 127.0.0.1, recorded, verified by the
studio, replayed offline with every socket connection refused, and a changed instruction
caught at the first call it changes. Recording never breaks the agent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import axllm
import pytest

from axmem_gui.recorder import RecorderLimits, SessionMismatch, SessionRecorder, SessionReplayer
from axmem_gui.services import sessions
from tests.fakes.fake_openai_server import FakeOpenAIServer
from tests.recorder.example_app.triage_agent import (
    FORWARD_OPTIONS,
    QUESTIONS,
    SESSION,
    SIGNATURE,
    record,
    triage_options,
)

NOWHERE = "http://127.0.0.1:9/directory"
KEY = "sk-local-placeholder-key"


@pytest.fixture
def recorded(server: FakeOpenAIServer, tmp_path: Path) -> tuple[dict[str, Any], list[Any], Path]:
    file = tmp_path / "triage.axsession.json"
    _, outputs = record(file, server.base_url, server.directory_url)
    return json.loads(file.read_text()), outputs, file


def _replay(
    file: Path, *, instruction: str | None = None, functions: tuple[str, ...] = ("lookupOwner",)
) -> tuple[SessionReplayer, Any]:
    player = SessionReplayer.load(file, functions=list(functions))
    options = (
        triage_options(NOWHERE) if instruction is None else triage_options(NOWHERE, instruction)
    )
    return player, player.agent(SIGNATURE, options)


def test_every_call_tool_search_and_callback_is_recorded(
    recorded: tuple[dict[str, Any], list[Any], Path], server: FakeOpenAIServer
) -> None:
    doc, outputs, file = recorded
    assert len(doc["exchanges"]) == len(
        [r for r in server.requests if r.path.endswith("/chat/completions")]
    )
    assert server.state.directory_calls == 2, (
        "the tool really asked the directory, once per forward"
    )
    first = doc["forwards"][0]
    assert [
        (c["qualified_name"], c["args"], c["result"]["team"], c["call_index"])
        for c in first["function_calls"]
    ] == [("utils.lookupOwner", {"service": "checkout"}, "team-payments", 3)]
    assert [
        (s["kind"], s["source"], [r["id"] for r in s["results"]]) for s in first["searches"]
    ] == [
        ("discover", "catalog", ["incident-triage"]),
        ("recall", "catalog", ["mem-checkout-owner"]),
    ]
    assert [c["kind"] for c in first["callbacks"]] == [
        "loaded_skills",
        "loaded_memories",
        "used_memories",
    ]
    assert first["context_map_after"]["steps"] == 1
    assert doc["forwards"][1]["context_map_before"] == first["context_map_after"]
    assert [f["output"] for f in doc["forwards"]] == outputs
    assert doc["origin"] == {"kind": "app", "language": "python", "recorder": "axmem_gui.recorder"}
    assert doc["search"] == {"backend": "axllm-builtin", "profile": None, "host": False}
    assert doc["agent"]["functions"][0]["name"] == "lookupOwner"
    assert doc["recorder"]["warnings"] == []
    assert KEY not in file.read_text()


def test_the_studio_verifies_the_recording(
    recorded: tuple[dict[str, Any], list[Any], Path],
) -> None:
    _, _, file = recorded
    report = sessions.verify(sessions.read_session_file(file))
    assert report.ok, report.render()
    assert report.searches == 2


def test_replayed_offline_with_every_connection_refused(
    recorded: tuple[dict[str, Any], list[Any], Path], network_guard: Any
) -> None:
    _, outputs, file = recorded
    network_guard.block()
    player, triage = _replay(file)
    replayed = [
        triage.forward(player.client(), player.inputs(i), dict(FORWARD_OPTIONS)) for i in range(2)
    ]
    player.assert_complete()
    assert replayed == outputs
    assert network_guard.connections == 0


def test_a_changed_instruction_fails_at_the_first_call_it_changes(
    recorded: tuple[dict[str, Any], list[Any], Path],
) -> None:
    _, _, file = recorded
    player, triage = _replay(file, instruction="Answer in French.")
    with pytest.raises(SessionMismatch) as caught:
        triage.forward(player.client(), player.inputs(0), dict(FORWARD_OPTIONS))
    error = caught.value
    assert (error.kind, error.call, error.stage, error.forward) == (
        "prompt",
        3,
        "actor.executor",
        0,
    )
    assert error.summary.startswith("replay: call #3 (actor.executor, forward 0, turn 0) differs")
    assert (
        "-Look owners up with the directory tool before answering; name the on-call person."
        in error.diff
    )
    assert "+Answer in French." in error.diff


def test_without_the_recorded_tool_result_the_tool_needs_the_network(
    recorded: tuple[dict[str, Any], list[Any], Path], network_guard: Any
) -> None:
    _, _, file = recorded
    network_guard.block()
    player, triage = _replay(file, functions=())
    with pytest.raises(SessionMismatch) as caught:
        triage.forward(player.client(), player.inputs(0), dict(FORWARD_OPTIONS))
    assert network_guard.connections == 1, "the real lookupOwner tried to connect"
    assert caught.value.call == 4, "its error went into the next executor prompt"


def test_a_replay_that_stops_early_is_reported(
    recorded: tuple[dict[str, Any], list[Any], Path],
) -> None:
    _, _, file = recorded
    player, triage = _replay(file)
    triage.forward(player.client(), player.inputs(0), dict(FORWARD_OPTIONS))
    with pytest.raises(
        SessionMismatch, match=r"the replay made 9 call\(s\) but the recording has 15; call #9"
    ):
        player.assert_complete()


def test_the_committed_example_session_is_what_the_example_records_today(
    server: FakeOpenAIServer, tmp_path: Path
) -> None:
    """tests/recorder/example_app/sessions/ is the app's cassette; it must still be what the
    example records on this axllm (re-record: python -m tests.recorder.example_app.triage_agent)."""
    fresh = tmp_path / "fresh.axsession.json"
    record(fresh, server.base_url, server.directory_url)

    def stable(doc: dict[str, Any]) -> dict[str, Any]:
        for key in ("created_at",):
            doc.pop(key)
        doc["versions"].pop("python")
        doc["recorder"].pop("overhead_ms")
        doc["recorder"].pop("save_ms")
        doc["provider"].pop("model_config", None)
        for fw in doc["forwards"]:
            fw.pop("started_at")
            for call in fw["function_calls"]:
                call.pop("duration_ms")
        for ex in doc["exchanges"]:
            for key in ("started_at", "duration_ms", "http_attempts"):
                ex.pop(key, None)
        return doc

    now, committed = stable(json.loads(fresh.read_text())), stable(json.loads(SESSION.read_text()))
    assert now == committed
    # and written the same way, key for key (the typed recorder keeps the format's orders)
    assert json.dumps(now, indent=1) == json.dumps(committed, indent=1)


# ------------------------------------------------------------ never breaks the agent ---


def test_a_file_that_cannot_be_written_is_a_warning(
    server: FakeOpenAIServer, tmp_path: Path
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the session folder should be")
    warnings: list[str] = []
    rec = SessionRecorder(blocker / "s.axsession.json", on_warning=warnings.append)
    client = rec.wrap_client(
        axllm.ai("openai-compatible", model="scripted-a", base_url=server.base_url, api_key=KEY)
    )
    out = rec.agent(SIGNATURE, triage_options(server.directory_url)).forward(
        client, {"question": QUESTIONS[0]}, dict(FORWARD_OPTIONS)
    )
    assert out == {"answer": f"Short answer to: {QUESTIONS[0]}"}
    assert len(warnings) == 1 and warnings[0].startswith("axsession recorder: could not write")
    assert rec.save().ok is False


def test_a_tool_that_fails_is_recorded_with_its_error_and_the_agent_sees_it(
    server: FakeOpenAIServer, tmp_path: Path
) -> None:
    """The directory is down: the app's tool raises, axllm hands the error to the next
    actor turn as it would unrecorded, and the recording keeps the call with its error."""
    file = tmp_path / "failing-tool.axsession.json"
    rec = SessionRecorder(file)
    client = rec.wrap_client(
        axllm.ai("openai-compatible", model="scripted-a", base_url=server.base_url, api_key=KEY)
    )
    out = rec.agent(SIGNATURE, triage_options(NOWHERE)).forward(
        client, {"question": QUESTIONS[0]}, dict(FORWARD_OPTIONS)
    )
    assert out["answer"].startswith("Short answer")
    session = sessions.read_session_file(file)
    (call,) = session.forwards[0].function_call_list
    assert (call.label, call.args, call.result) == (
        "utils.lookupOwner",
        {"service": "checkout"},
        None,
    )
    assert call.error is not None and call.error.type == "URLError"
    assert "refused" in call.error.message.lower()
    assert call.duration_ms is not None
    assert sessions.verify(session).ok


def test_past_its_limit_the_recording_stops_and_cannot_be_replayed(
    server: FakeOpenAIServer, tmp_path: Path
) -> None:
    file = tmp_path / "limited.axsession.json"
    warnings: list[str] = []
    rec = SessionRecorder(file, limits=RecorderLimits(max_exchanges=3), on_warning=warnings.append)
    client = rec.wrap_client(
        axllm.ai("openai-compatible", model="scripted-a", base_url=server.base_url, api_key=KEY)
    )
    out = rec.agent(SIGNATURE, triage_options(server.directory_url)).forward(
        client, {"question": QUESTIONS[0]}, dict(FORWARD_OPTIONS)
    )
    assert out["answer"].startswith("Short answer")
    doc = json.loads(file.read_text())
    assert len(doc["exchanges"]) == 3
    assert "recording stopped: more than 3 model calls" in warnings[0]
    with pytest.raises(ValueError, match="cannot be replayed: its recording stopped early"):
        SessionReplayer.load(file)


def test_the_recorders_own_failures_are_warnings(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    warnings: list[str] = []
    rec = SessionRecorder(on_warning=warnings.append)

    def broken(*_: Any) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(rec, "bounded", broken)
    client = rec.wrap_client(
        axllm.ai("openai-compatible", model="scripted-a", base_url=server.base_url, api_key=KEY)
    )
    out = rec.agent(SIGNATURE, triage_options(server.directory_url)).forward(
        client, {"question": QUESTIONS[0]}, dict(FORWARD_OPTIONS)
    )
    assert out == {"answer": f"Short answer to: {QUESTIONS[0]}"}
    assert warnings == ["axsession recorder: recording failed (boom); the agent was not affected"]


def test_a_streaming_run_is_recorded_as_chunks_and_replays(
    server: FakeOpenAIServer, tmp_path: Path, network_guard: Any
) -> None:
    file = tmp_path / "streamed.axsession.json"
    rec = SessionRecorder(file)
    client = rec.wrap_client(
        axllm.ai("openai-compatible", model="scripted-a", base_url=server.base_url, api_key=KEY)
    )
    streaming = {**FORWARD_OPTIONS, "stream": True}  # axllm streams the actor and responder calls
    live = rec.agent(SIGNATURE, triage_options(server.directory_url)).forward(
        client, {"question": QUESTIONS[0]}, dict(streaming)
    )
    doc = json.loads(file.read_text())
    wire = [r.body.get("stream") for r in server.requests if r.path.endswith("/chat/completions")]
    assert [e.get("stream") for e in doc["exchanges"]] == wire == [True] * 7 + [None] * 2
    assert all(len(e["chunks"]) == 3 for e in doc["exchanges"][:7])
    assert sessions.verify(sessions.read_session_file(file)).ok, (
        "the stored responses are the fold of their chunks"
    )
    network_guard.block()
    player, triage = _replay(file)
    assert triage.forward(player.client(), player.inputs(0), dict(streaming)) == live
    player.assert_complete()


def test_host_searches_are_recorded_and_can_be_served(
    server: FakeOpenAIServer, tmp_path: Path, network_guard: Any
) -> None:
    """The app answers discover/recall itself (a vector store, say): the searches are kept
    as host searches with what the app returned, and a replay can serve them."""
    skill = {"id": "kb-oncall", "name": "On-call handbook", "content": "# On-call\nPage the owner."}
    memory = {"id": "kb-mem-1", "content": "Dana is on call for checkout this week."}

    def options(store: Any, directory: str) -> dict[str, Any]:
        base = triage_options(directory)
        del base["skillsCatalog"], base["memoriesCatalog"]
        return {**base, "on_skills_search": store.skills, "on_memories_search": store.memories}

    class Store:
        def skills(self, searches: Any) -> list[dict[str, Any]]:
            return [skill]

        def memories(self, searches: Any, loaded: Any) -> list[dict[str, Any]]:
            return [memory]

    class Unreachable:
        def skills(self, *_: Any) -> Any:
            raise AssertionError("the store was asked")

        memories = skills

    file = tmp_path / "host.axsession.json"
    rec = SessionRecorder(file)
    client = rec.wrap_client(
        axllm.ai("openai-compatible", model="scripted-a", base_url=server.base_url, api_key=KEY)
    )
    live = rec.agent(SIGNATURE, options(Store(), server.directory_url)).forward(
        client, {"question": QUESTIONS[0]}, dict(FORWARD_OPTIONS)
    )
    doc = json.loads(file.read_text())
    searches = doc["forwards"][0]["searches"]
    assert [(s["kind"], s["source"], [r["id"] for r in s["results"]]) for s in searches] == [
        ("discover", "host", ["kb-oncall"]),
        ("recall", "host", ["kb-mem-1"]),
    ]
    assert doc["search"]["host"] is True
    network_guard.block()
    player = SessionReplayer.load(file, functions=["lookupOwner"], host_searches="recorded")
    triage = player.agent(SIGNATURE, options(Unreachable(), NOWHERE))
    assert triage.forward(player.client(), player.inputs(0), dict(FORWARD_OPTIONS)) == live
    player.assert_complete()


def test_a_malformed_session_file_is_refused_naming_the_place(tmp_path: Path) -> None:
    bad = tmp_path / "bad.axsession.json"
    doc = json.loads(SESSION.read_text())
    doc["exchanges"][2]["digest"] = 7
    bad.write_text(json.dumps(doc))
    with pytest.raises(
        Exception, match=r"bad\.axsession\.json: exchanges\[2\]: field 'digest' must be a string"
    ):
        SessionReplayer.load(bad)
