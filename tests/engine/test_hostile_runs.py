"""Live runs and replays of a model that writes hostile code (issue 26): each ends within
its limits, the model is told as Ax tells it of a thrown error, the run goes on, and the
replay is identical. On main the loop never returns, the deep object segfaults, the hog
takes gigabytes and the huge code takes minutes."""

from __future__ import annotations

from typing import Any

import pytest

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.session.agent_config import AgentConfig
from axmem_gui.engine.cage import RESTART_NOTICE, CodeLimits
from axmem_gui.engine.clients import CancelToken, RunProgress
from axmem_gui.services import sessions
from tests.engine.conftest import INPUTS
from tests.fakes.fake_openai_server import FakeOpenAIServer, settings_for
from tests.helpers.hostile import HOSTILE_CODE, LIMIT_KIND, TEST_LIMITS, hostile_session


def _first_turn(doc: dict[str, Any]) -> dict[str, Any]:
    turns: list[dict[str, Any]] = doc["forwards"][0]["turns"]
    return turns[0]


@pytest.mark.parametrize("name", sorted(HOSTILE_CODE))
def test_a_live_run_whose_model_writes_hostile_code_ends_and_goes_on(
    name: str, server: FakeOpenAIServer, config: AgentConfig, catalog: Catalog
) -> None:
    server.state.actor_code = [HOSTILE_CODE[name]]
    doc = sessions.run_agent(
        config,
        catalog,
        INPUTS[:1],
        settings_for(server),
        limits=TEST_LIMITS,
    )
    # The model heard of the failure and finished the run.
    assert doc["status"] == "complete", doc["error"]
    hits = doc["forwards"][0].get("code_limits_hit") or []
    kind = LIMIT_KIND[name]
    assert [h["kind"] for h in hits] == ([kind] if kind else [])
    if kind:
        assert hits[0]["call_index"] == 0 and hits[0]["stage"] == "actor.distiller"
        turn = _first_turn(doc)
        assert turn["is_error"] and turn["error"] == hits[0]["message"]
        # What the model reads next: Ax's "[runtime error]" line with the limit named.
        second_prompt = str(doc["exchanges"][1]["request"]["chat_prompt"])
        assert f"[runtime error] {hits[0]['message']}" in second_prompt
    assert doc["code_limits"] == TEST_LIMITS.to_json()


@pytest.mark.parametrize("name", sorted(HOSTILE_CODE))
def test_a_hostile_session_replays_identically_within_its_limits(name: str) -> None:
    doc = hostile_session(name)
    report = sessions.replay(doc)
    assert report.identical, report.render()
    kind = LIMIT_KIND[name]
    assert [h["kind"] for h in report.limits_hit] == ([kind] if kind else [])
    if kind:
        assert "model code stopped by a limit (forward 0, code of call #0)" in report.render()


def test_a_time_limit_says_the_runtime_was_restarted() -> None:
    doc = hostile_session("loop")
    turn = _first_turn(doc)
    assert turn["output"] == RESTART_NOTICE
    assert turn["error"] == "Error: Execution timed out (limit: 0.5 s of CPU time)"
    # axllm started a fresh runtime session for the next execution.
    restarts = [e for e in doc["forwards"][0]["action_log"] if e.get("action") == "restart"]
    assert len(restarts) == 1


def test_a_time_bomb_recorded_dormant_goes_off_in_the_replay_within_its_limits() -> None:
    doc = hostile_session("bomb")
    assert _first_turn(doc)["output"] == "dormant"
    assert sessions.verify(doc).ok  # nothing in the file gives it away
    report = sessions.replay(doc)
    assert not report.identical
    assert [h["kind"] for h in report.limits_hit] == ["time"]
    assert "Execution timed out" in report.render()


def test_a_session_asking_for_no_limits_is_refused() -> None:
    doc = hostile_session("loop")
    doc["code_limits"] = {**doc["code_limits"], "time_s": 1e9}
    with pytest.raises(sessions.AxmemError, match="time_s must be between"):
        sessions.replay(doc)


def test_cancel_stops_a_live_run_inside_an_endless_loop(
    server: FakeOpenAIServer, config: AgentConfig, catalog: Catalog
) -> None:
    token = CancelToken()
    server.state.actor_code = ["while (true) {}"]

    def progress(event: RunProgress) -> None:
        if event.kind == "call_finished":
            token.cancel()  # the code of this reply runs next, for ten minutes if let

    doc = sessions.run_agent(
        config,
        catalog,
        INPUTS[:1],
        settings_for(server),
        limits=CodeLimits(time_s=600),
        cancel=token,
        progress=progress,
    )
    assert doc["status"] == "incomplete" and doc["error"]["kind"] == "cancelled"
    assert len(doc["exchanges"]) == 1  # the finished call is kept
    assert sessions.replay(doc).identical
