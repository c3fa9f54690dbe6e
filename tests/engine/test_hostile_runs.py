"""Live runs and replays of a model that writes hostile code (issue 26): each ends within
its limits, the model is told as Ax tells it of a thrown error, the run goes on, and the
replay is identical. On main the loop never returns, the deep object segfaults, the hog
takes gigabytes and the huge code takes minutes."""

from __future__ import annotations

import pytest

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import AxmemError
from axmem_gui.core.session.agent_config import AgentConfig
from axmem_gui.core.session.code_limits import CodeLimits
from axmem_gui.core.session.model import Session, Turn
from axmem_gui.core.session.progress import RunProgress
from axmem_gui.engine.cage import RESTART_NOTICE
from axmem_gui.services import sessions
from tests.engine.conftest import INPUTS
from tests.fakes.fake_openai_server import FakeOpenAIServer, settings_for
from tests.helpers.hostile_code import HOSTILE_CODE, LIMIT_KIND, TEST_LIMITS, hostile_session
from tests.helpers.session_docs import reparse, session_json


def _first_turn(session: Session) -> Turn:
    turns = session.forwards[0].turns
    assert turns
    return turns[0]


@pytest.mark.parametrize("name", sorted(HOSTILE_CODE))
def test_a_live_run_whose_model_writes_hostile_code_ends_and_goes_on(
    name: str, server: FakeOpenAIServer, config: AgentConfig, catalog: Catalog
) -> None:
    server.state.actor_code = [HOSTILE_CODE[name]]
    session = sessions.run_agent(
        config, catalog, INPUTS[:1], settings_for(server), limits=TEST_LIMITS
    )
    # The model heard of the failure and finished the run.
    assert session.complete, session.error
    hits = session.limits_hit
    kind = LIMIT_KIND[name]
    assert [h.kind for h in hits] == ([kind] if kind else [])
    if kind:
        assert hits[0].call_index == 0 and hits[0].stage == "actor.distiller"
        turn = _first_turn(session)
        assert turn.is_error and turn.error == hits[0].message
        # What the model reads next: Ax's "[runtime error]" line with the limit named.
        second_prompt = str(session.exchanges[1].request["chat_prompt"])
        assert f"[runtime error] {hits[0].message}" in second_prompt
    assert session.limits == TEST_LIMITS


@pytest.mark.parametrize("name", sorted(HOSTILE_CODE))
def test_a_hostile_session_replays_identically_within_its_limits(name: str) -> None:
    session = hostile_session(name)
    report = sessions.replay(session)
    assert report.identical, report.render()
    kind = LIMIT_KIND[name]
    assert [h.kind for h in report.limits_hit] == ([kind] if kind else [])
    if kind:
        assert "model code stopped by a limit (forward 0, code of call #0)" in report.render()


def test_a_time_limit_says_the_runtime_was_restarted() -> None:
    session = hostile_session("loop")
    turn = _first_turn(session)
    assert turn.output == RESTART_NOTICE
    assert turn.error == "Error: Execution timed out (limit: 0.5 s of CPU time)"
    # axllm started a fresh runtime session for the next execution.
    log = session.forwards[0].action_log or []
    restarts = [e for e in log if isinstance(e, dict) and e.get("action") == "restart"]
    assert len(restarts) == 1


def test_the_limits_and_the_hits_survive_the_file() -> None:
    session = hostile_session("loop")
    again = reparse(session_json(session))
    assert again.limits == TEST_LIMITS and again.limits_hit == session.limits_hit
    assert sessions.replay(again).identical


def test_a_time_bomb_recorded_dormant_goes_off_in_the_replay_within_its_limits() -> None:
    session = hostile_session("bomb")
    assert _first_turn(session).output == "dormant"
    assert sessions.verify(session).ok  # nothing in the file gives it away
    report = sessions.replay(session)
    assert not report.identical
    assert [h.kind for h in report.limits_hit] == ["time"]
    assert "Execution timed out" in report.render()


def test_a_session_asking_for_no_limits_is_refused() -> None:
    doc = session_json(hostile_session("loop"))
    doc["code_limits"]["time_s"] = 1e9
    session = reparse(doc)  # it still opens
    assert "time_s must be between" in str(sessions.can_replay(session))
    with pytest.raises(AxmemError, match="code_limits: time_s must be between"):
        sessions.replay(session)


def test_a_run_with_the_default_limits_records_none(
    server: FakeOpenAIServer, config: AgentConfig, catalog: Catalog
) -> None:
    session = sessions.run_agent(config, catalog, INPUTS[:1], settings_for(server))
    assert "code_limits" not in session_json(session)
    assert session.limits == CodeLimits()


def test_cancel_stops_a_live_run_inside_an_endless_loop(
    server: FakeOpenAIServer, config: AgentConfig, catalog: Catalog
) -> None:
    token = sessions.cancel_token()
    server.state.actor_code = ["while (true) {}"]

    def progress(event: RunProgress) -> None:
        if event.kind == "call_finished":
            token.cancel()  # the code of this reply runs next, for ten minutes if let

    session = sessions.run_agent(
        config,
        catalog,
        INPUTS[:1],
        settings_for(server),
        limits=CodeLimits(time_s=600),
        cancel=token,
        progress=progress,
    )
    assert not session.complete and session.error and session.error.kind == "cancelled"
    assert len(session.exchanges) == 1  # the finished call is kept
    assert sessions.replay(session).identical
