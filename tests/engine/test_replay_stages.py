"""`replay_session` in its stages, each on its own: versions, what serves the recording,
one forward on a fresh agent, the comparison with the recording (pure), and the order
the differences are reported in."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from axmem_gui.core.errors import InputError
from axmem_gui.core.session.format import VERSION
from axmem_gui.core.session.model import RunError, Session
from axmem_gui.core.session.replay_check import (
    Replayed,
    compare_forward,
    run_differences,
)
from axmem_gui.core.session.replay_cursor import Divergence
from axmem_gui.engine import replay as stages
from tests.helpers.session_docs import reparse


def _replayed(session: Session, index: int) -> Replayed:
    replay = stages._prepare(session, None)
    outcome: Replayed | None = None
    for fw in replay.forwards[: index + 1]:
        outcome = stages._run_forward(replay, fw, None)
        assert outcome is not None
    assert outcome is not None
    return outcome


def test_versions_stage_refuses_another_axllm(recorded_json: dict[str, Any]) -> None:
    recorded_json["versions"]["axllm"] = "1.0.0"
    with pytest.raises(stages.ReplayRefused, match=r"recorded with axllm 1\.0\.0"):
        stages.check_replayable(reparse(recorded_json))


def test_setup_stage_serves_the_recording(recorded: Session) -> None:
    replay = stages._prepare(recorded, None)
    assert replay.config == recorded.agent.config
    assert replay.catalog is recorded.catalog.catalog
    assert [f.index for f in replay.forwards] == [0, 1]
    assert replay.client.cursor.total == len(recorded.exchanges)
    assert replay.stub is not None  # host search: discover/recall served from the file
    assert not replay.cancelled_at_end and replay.divergence is None


def test_setup_stage_names_an_agent_this_axmem_refuses(recorded_json: dict[str, Any]) -> None:
    recorded_json["agent"]["maxActorSteps"] = 0
    session = reparse(recorded_json)
    with pytest.raises(InputError, match="maxActorSteps") as err:
        stages._prepare(session, None)
    assert str(err.value) == session.agent.problem


def test_forward_stage_gives_back_what_was_recorded(recorded: Session) -> None:
    new = _replayed(recorded, 0)
    fw = recorded.forwards[0]
    assert new.status == "complete" and new.error_text is None
    assert new.output == fw.output and new.map_after == fw.context_map_after
    check = compare_forward(fw, new, recorded.exchanges_of(0), has_map=True, version=VERSION)
    assert check.ok, check.problems()


def test_compare_stage_names_each_field_that_differs(recorded: Session) -> None:
    fw = recorded.forwards[0]
    mine = recorded.exchanges_of(0)
    same = Replayed(
        status="complete",
        error_text=None,
        output=fw.output,
        map_after=fw.context_map_after,
        callbacks=[{"kind": c.kind, "payload": c.payload} for c in fw.callback_list],
        trace=fw.trace,
        action_log=fw.action_log,
        usage=fw.usage,
    )
    assert compare_forward(fw, same, mine, has_map=True, version=VERSION).ok
    other = dataclasses.replace(same, output={"answer": "another"}, usage={})
    check = compare_forward(fw, other, mine, has_map=True, version=VERSION)
    assert [d.where for d in check.differences] == ["forwards[0].output", "forwards[0].usage"]
    assert "+" in check.differences[0].diff and "another" in check.differences[0].diff
    failed = dataclasses.replace(same, status="failed", error_text="boom")
    check = compare_forward(fw, failed, mine, has_map=True, version=VERSION)
    assert not check.ok and check.problems()[0] == "ended failed, recorded complete"
    assert [d.where for d in check.differences] == ["forwards[0].error.detail"]
    # a cancelled replay is not held to the recorded error's words
    cancelled = dataclasses.replace(same, status="cancelled", error_text="stopped")
    assert compare_forward(fw, cancelled, mine, has_map=True, version=VERSION).differences == ()


def test_compare_stage_checks_the_map_update_only_with_a_map(recorded: Session) -> None:
    fw = recorded.forwards[0]
    assert fw.context_map_update is not None
    tampered = dataclasses.replace(
        fw, context_map_update=dataclasses.replace(fw.context_map_update, added=("xx-1",))
    )
    new = _replayed(recorded, 0)
    mine = recorded.exchanges_of(0)
    check = compare_forward(tampered, new, mine, has_map=True, version=VERSION)
    wheres = [d.where for d in check.differences]
    assert wheres == ["forwards[0].context_map_update"]
    assert compare_forward(tampered, new, mine, has_map=False, version=VERSION).ok


def test_differences_come_first_call_then_status_then_fields(recorded: Session) -> None:
    fw = recorded.forwards[0]
    new = dataclasses.replace(
        _replayed(recorded, 0), status="failed", error_text="x", output=None
    )
    check = compare_forward(fw, new, recorded.exchanges_of(0), has_map=True, version=VERSION)
    divergence = Divergence(index=3, kind="prompt", message="call #3 differs", diff="-a\n+b\n")
    found = run_differences(divergence, [check])
    assert [d.where for d in found][:3] == [
        "exchanges[3].request",
        "forwards[0].status",
        "forwards[0].output",
    ]


def test_file_stage_checks_a_streamed_reply_against_its_chunks(recorded: Session) -> None:
    assert stages.check_streams(recorded) == []  # nothing was streamed
    ex = recorded.exchanges[5]
    broken = dataclasses.replace(ex, stream=True, chunks=[{"results": "not a list"}])
    session = dataclasses.replace(
        recorded, exchanges=(*recorded.exchanges[:5], broken, *recorded.exchanges[6:])
    )
    assert [d.where for d in stages.check_streams(session)] == ["exchanges[5].response"]


def test_the_whole_replay_reports_a_recorded_error_it_could_not_reproduce(
    recorded: Session,
) -> None:
    # The recording says forward 2 failed; the replay completes it.
    fw = recorded.forwards[1]
    failed = dataclasses.replace(
        fw, status="failed", error=RunError(kind="agent", type="X", message="m", detail="d")
    )
    session = dataclasses.replace(recorded, forwards=(recorded.forwards[0], failed))
    report = stages.replay_session(session)
    assert not report.identical
    assert [f.ok for f in report.forwards] == [True, False]
    assert report.forwards[1].problems()[0] == "ended complete, recorded failed"
