"""Agent runs and replays in a child process (services.agent_runner): the same sessions
as in this process, and whatever becomes of the child (a segfault, an abort, MemoryError,
a hang, a cancel), this process goes on and the run ends with a clear error, every
finished call kept. On main the run happened in this process: the same faults took it
down (or hung it)."""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from axmem_gui.core.providers import ProviderSettings
from axmem_gui.core.session.agent_config import AgentConfig, agent_config_from_json
from axmem_gui.core.session.code_limits import CodeLimits
from axmem_gui.core.session.format import session_to_json_text
from axmem_gui.core.session.model import Session
from axmem_gui.core.session.progress import RunProgress
from axmem_gui.engine.scripted_model import ScriptedTransport
from axmem_gui.services import agent_runner, sessions
from axmem_gui.services.agent_runner import AgentRunFailed, AgentRunner, Deadlines
from tests.engine.conftest import AGENT_JSON, INPUTS, make_catalog
from tests.fakes.fake_openai_server import FakeOpenAIServer, settings_for
from tests.helpers.faulty_worker import faulty_command
from tests.helpers.hostile_code import TEST_LIMITS, hostile_session

SCRIPTED = ProviderSettings("scripted", "scripted-a")
QUICK = Deadlines(code_factor=1.0, code_grace_s=1.0, cancel_grace_s=0.5)


@pytest.fixture
def runner() -> Iterator[AgentRunner]:
    r = AgentRunner(keep_warm=False)
    try:
        yield r
    finally:
        r.shutdown()


def _config() -> AgentConfig:
    return agent_config_from_json(AGENT_JSON, "test agent")


def _run(runner: AgentRunner, code: list[str] | None = None, **kw: Any) -> Session:
    return sessions.run_agent(
        _config(),
        make_catalog(),
        list(INPUTS),
        SCRIPTED,
        transport=ScriptedTransport(code or []),
        limits=kw.pop("limits", TEST_LIMITS),
        runner=runner,
        **kw,
    )


def test_a_run_in_a_child_records_what_a_run_here_records(runner: AgentRunner) -> None:
    seen: list[RunProgress] = []
    child = _run(runner, progress=seen.append)
    here = sessions.run_agent(_config(), make_catalog(), list(INPUTS), SCRIPTED, limits=TEST_LIMITS)
    assert child.complete and here.complete
    assert [e.digest for e in child.exchanges] == [e.digest for e in here.exchanges]
    assert [f.output for f in child.forwards] == [f.output for f in here.forwards]
    assert [e.kind for e in seen].count("call_finished") == len(child.exchanges)
    assert sessions.replay(child).identical


def test_a_replay_in_a_child_reports_what_a_replay_here_reports(runner: AgentRunner) -> None:
    session = hostile_session("loop")
    child = sessions.replay(session, runner=runner)
    here = sessions.replay(session)
    assert child.identical and here.identical
    assert child.limits_hit == here.limits_hit
    mine, theirs = child.to_json(), here.to_json()
    mine.pop("duration_ms"), theirs.pop("duration_ms")
    assert mine == theirs


@pytest.mark.parametrize(
    ("how", "said"),
    [
        ("segv", "crashed (SIGSEGV: a crash of the JavaScript runtime or the engine)"),
        ("abort", "crashed (SIGABRT: an abort)"),
        ("exit", "crashed (exit code 7)"),
    ],
)
def test_a_child_that_dies_in_the_code_leaves_a_session_with_every_finished_call(
    how: str, said: str
) -> None:
    runner = AgentRunner(faulty_command(how, at=1), keep_warm=False)
    try:
        session = _run(runner)
    finally:
        runner.shutdown()
    error = session.error
    assert not session.complete and error is not None
    assert error.kind == "crashed"
    assert error.message == (
        f"the agent run's process {said} while running the model's code of call #1"
    )
    assert error.forward == 0 and error.call_index == 1
    # Both calls it finished were kept, the file is a valid session.
    assert len(session.exchanges) == 2
    assert [f.status for f in session.forwards] == ["failed", "not_run"]
    assert sessions.verify(session).ok
    if how in ("segv", "abort"):  # faulthandler said where, for the detail
        assert "Fatal Python error" in str(error.detail)


def test_memory_error_in_the_child_is_a_clear_error() -> None:
    runner = AgentRunner(faulty_command("memory", at=0), keep_warm=False)
    try:
        session = _run(runner)
    finally:
        runner.shutdown()
    assert session.error is not None and session.error.kind == "out_of_memory"
    assert session.error.message.startswith("the agent run ran out of memory (MemoryError)")


def test_a_child_stuck_past_its_deadline_is_stopped() -> None:
    runner = AgentRunner(faulty_command("hang", at=0), deadlines=QUICK, keep_warm=False)
    try:
        session = _run(runner, limits=CodeLimits(time_s=0.5))
    finally:
        runner.shutdown()
    error = session.error
    assert error is not None and error.kind == "killed" and error.type == "stuck"
    assert "while running the model's code of call #0" in error.message
    assert "ran past its 0.5 s limit where the runtime cannot stop it" in error.message
    assert len(session.exchanges) == 1


def test_an_endless_loop_on_a_busy_machine_is_stopped_by_the_cage_not_killed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The code's limit is CPU time: a child that had little CPU (a loaded machine) is past
    # the wall-clock deadline before its cage stops the loop. Only a child that had the
    # CPU and still runs is stuck; this one, as the runner sees it, had none.
    monkeypatch.setattr(agent_runner, "_cpu_s", lambda pid: 0.0)
    deadlines = Deadlines(code_factor=0.0, code_grace_s=0.01, code_cap_factor=1e5)
    runner = AgentRunner(deadlines=deadlines, keep_warm=False)
    try:
        session = _run(runner, ["while (true) {}"])
    finally:
        runner.shutdown()
    assert session.complete, session.error
    (hit,) = session.limits_hit
    assert hit.kind == "time" and hit.call_index == 0


def test_a_catastrophic_regular_expression_is_stopped_at_the_deadline(
    runner: AgentRunner,
) -> None:
    # A native loop QuickJS never interrupts: only the process boundary stops it.
    quick = AgentRunner(deadlines=QUICK, keep_warm=False)
    try:
        session = _run(
            quick,
            code=["/(a+)+$/.test('a'.repeat(40) + 'b');"],
            limits=CodeLimits(time_s=0.5),
        )
    finally:
        quick.shutdown()
    assert session.error is not None and session.error.kind == "killed"
    assert "call #0" in session.error.message


def test_cancel_stops_a_child_that_does_not_answer_at_once() -> None:
    runner = AgentRunner(faulty_command("hang", at=0), keep_warm=False)
    token = sessions.cancel_token()

    def progress(event: RunProgress) -> None:
        if event.kind == "call_finished":
            token.cancel()  # the hang comes next

    try:
        session = _run(runner, cancel=token, progress=progress, limits=CodeLimits(time_s=600))
    finally:
        runner.shutdown()
    error = session.error
    assert error is not None and error.kind == "cancelled"
    assert "did not stop by itself within 0.5 s and was stopped" in error.message
    assert [f.status for f in session.forwards] == ["cancelled", "not_run"]


def test_cancel_of_a_child_that_answers_records_a_cancelled_session(runner: AgentRunner) -> None:
    token = sessions.cancel_token()

    def progress(event: RunProgress) -> None:
        if event.kind == "call_finished":
            token.cancel()

    session = _run(
        runner,
        code=["while (true) {}"],
        cancel=token,
        progress=progress,
        limits=CodeLimits(time_s=600),
    )
    assert session.error is not None and session.error.kind == "cancelled"
    assert sessions.replay(session).identical  # stopped where a replay stops too


def test_a_replay_whose_child_crashes_says_so(runner: AgentRunner) -> None:
    crashing = AgentRunner(faulty_command("segv", at=0), keep_warm=False)
    try:
        with pytest.raises(AgentRunFailed, match=r"the replay's process crashed \(SIGSEGV"):
            sessions.replay(hostile_session("deep"), runner=crashing)
    finally:
        crashing.shutdown()
    # and the next replay is fine
    assert sessions.replay(hostile_session("deep"), runner=runner).identical


def test_the_api_key_goes_over_the_pipe_not_the_command_line(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = f"sk-pipe-{uuid.uuid4().hex}"
    monkeypatch.setenv("AXMEM_TEST_KEY", key)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    commands: list[list[str]] = []
    popen = subprocess.Popen

    def recording_popen(args: list[str], **kw: Any) -> Any:
        commands.append(list(args))
        env = kw.get("env")
        assert env is None or key not in str(env)
        return popen(args, **kw)

    monkeypatch.setattr(subprocess, "Popen", recording_popen)
    runner = AgentRunner(keep_warm=False)
    try:
        session = sessions.run_agent(
            _config(),
            make_catalog(),
            list(INPUTS[:1]),
            settings_for(server, api_key_env="AXMEM_TEST_KEY"),
            runner=runner,
        )
    finally:
        runner.shutdown()
    assert session.complete
    assert server.requests[0].headers["Authorization"] == f"Bearer {key}"
    assert commands and all(key not in " ".join(c) for c in commands)
    assert key not in session_to_json_text(session)


def test_a_warm_child_takes_the_next_run_and_another_warms_up() -> None:
    runner = AgentRunner(keep_warm=True)
    try:
        runner.prewarm()
        warm = runner._warm
        assert warm is not None
        _run(runner)
        # the warm child did the run (and ends); a new one waits for the next
        assert warm.process.wait() == 0
        assert runner._warm is not None and runner._warm is not warm
        spare = runner._warm
    finally:
        runner.shutdown()
    assert spare.process.wait() is not None  # shut down with the runner
