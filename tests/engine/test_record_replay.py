"""Record a live two-forward run against the fake server, then replay it offline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from axmem_gui.core.records import to_json_value
from axmem_gui.core.session.digest import request_digest
from axmem_gui.core.session.format import VERSION, session_to_json_text
from axmem_gui.core.session.model import Session
from axmem_gui.core.session.stages import (
    ACTOR_DISTILLER,
    ACTOR_EXECUTOR,
    MAP_CARTOGRAPHER,
    MAP_DISTILLER,
    RESPONDER,
)
from axmem_gui.engine.replay import ReplayRefused
from axmem_gui.engine.versions import package_version
from axmem_gui.services import sessions
from tests.helpers.session_docs import reparse

FORWARD_STAGES = [
    ACTOR_DISTILLER,
    ACTOR_DISTILLER,
    ACTOR_DISTILLER,
    ACTOR_EXECUTOR,
    ACTOR_EXECUTOR,
    RESPONDER,
    MAP_DISTILLER,
    MAP_CARTOGRAPHER,
]


def test_live_run_records_every_exchange_in_order(
    recorded_once: tuple[Session, int],
) -> None:
    recorded, wire_requests = recorded_once
    assert recorded.status == "complete" and recorded.error is None
    stages = [e.stage for e in recorded.exchanges]
    assert stages == FORWARD_STAGES * 2
    # What went over the wire is what was recorded, call for call.
    assert wire_requests == len(stages)
    for ex in recorded.exchanges:
        assert ex.digest == request_digest(ex.request, to_json_value(ex.params), 2)
        assert ex.tokens[0] > 0 and ex.ms >= 0
        assert [a.method for a in ex.http_attempts or ()] == ["POST"]
        assert str((ex.http_attempts or ())[0].url).endswith("/chat/completions")
    turns = [(e.forward, e.stage, e.turn) for e in recorded.exchanges[:5]]
    assert turns == [
        (0, ACTOR_DISTILLER, 0),
        (0, ACTOR_DISTILLER, 1),
        (0, ACTOR_DISTILLER, 2),
        (0, ACTOR_EXECUTOR, 0),
        (0, ACTOR_EXECUTOR, 1),
    ]
    versions = recorded.versions
    assert versions.axllm == package_version("axllm")
    assert versions.quickjs == package_version("quickjs")
    assert str(versions.ax_profile).startswith("ax-")
    assert recorded.search is not None
    assert recorded.search.to_json() == {
        "backend": "axmem-ax",
        "profile": versions.ax_profile,
        "host": True,
    }


def test_actor_code_searches_and_callbacks_are_recorded(recorded: Session) -> None:
    fw = recorded.forwards[0]
    turns = fw.turns or ()
    codes = [t.code for t in turns]
    assert codes[0].startswith("await discover(") and codes[1].startswith("await recall(")
    assert [t.call_index for t in turns] == [0, 1, 2, 3, 4]
    kinds = [(s.kind, s.stage, s.turn, s.call_index) for s in fw.search_calls]
    assert kinds == [("discover", ACTOR_DISTILLER, 0, 0), ("recall", ACTOR_DISTILLER, 1, 1)]
    discover = fw.search_calls[0]
    assert discover.searches == (INPUT_QUERY,)
    assert "incident-triage" in discover.result_ids
    recall = fw.search_calls[1]
    assert recall.already_loaded == ()
    assert "mem-checkout-owner" in recall.result_ids
    assert fw.callback_ids("loaded_skills") == list(discover.result_ids)
    used = next(c.payload for c in fw.callback_list if c.kind == "used_memories")
    # The scripted executor declares the first memory of the Memories block (axllm sorts
    # loaded memories by id) as used.
    first_loaded = sorted(recall.result_ids)[0]
    assert used == [
        {"id": first_loaded, "reason": "it answered part of the request", "stage": "executor"}
    ]
    trace = fw.to_json()["trace"]
    assert fw.action_log and isinstance(trace, dict) and trace["status"] == "completed"
    assert "chat_log" not in trace


INPUT_QUERY = "Which incident is the most severe and who owns checkout?"


def test_context_map_updates_are_reconstructed(recorded: Session) -> None:
    first, second = (f.context_map_update for f in recorded.forwards)
    assert first is not None and second is not None
    assert first.status == "updated" and first.step == 1
    assert isinstance(first.operations, list)
    assert [op["type"] for op in first.operations if isinstance(op, dict)] == ["ADD", "ADD"]
    assert first.added == ("cr-00002", "cu-00001") and first.diagnosis
    assert second.status == "updated" and second.step == 2
    assert second.item_tags == {"cu-00001": "helpful", "cr-00002": "neutral"}
    assert second.changed == ("cu-00001",) and second.added == ("rr-00003",)
    assert second.scores == {"cu-00001": 1, "cr-00002": 0}
    assert (first.distiller_call, first.cartographer_call) == (6, 7)
    before2 = recorded.forwards[1].context_map_before
    assert before2 == recorded.forwards[0].context_map_after
    labels = [s.label for s in recorded.map_snapshots or ()]
    assert labels == ["before forward 1", "after forward 1", "after forward 2"]


def test_replay_is_identical_offline(recorded: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    # A replay must not open any connection: make every socket connect fail loudly.
    import socket

    def no_network(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("replay tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    report = sessions.replay(recorded)
    assert report.identical, report.render()
    assert report.calls_replayed == report.calls_recorded == 16
    assert all(f.ok for f in report.forwards) and len(report.forwards) == 2
    assert report.render().startswith("identical: 16 of 16 model calls")


def test_file_round_trip_then_replay(recorded: Session, tmp_path: Path) -> None:
    path = tmp_path / "run.axsession.json"
    sessions.write_session_file(recorded, path)
    loaded = sessions.read_session_file(path)
    assert loaded == recorded
    assert path.read_text("utf-8") == session_to_json_text(loaded)
    assert loaded.format == "axsession" and loaded.version == VERSION
    assert sessions.replay(loaded).identical


def test_changed_input_is_caught_at_the_first_call_of_its_forward(
    recorded_json: dict[str, Any],
) -> None:
    recorded_json["forwards"][1]["inputs"]["query"] = "Which incidents are SEV2?"
    report = sessions.replay(reparse(recorded_json))
    assert not report.identical
    d = report.divergence
    assert d is not None and d.kind == "prompt" and d.index == 8 and d.forward == 1
    assert d.recorded_stage == ACTOR_DISTILLER
    assert "-Query: Which incidents affect the search service?" in d.diff
    assert "+Query: Which incidents are SEV2?" in d.diff
    assert report.forwards[0].ok  # the first forward still replayed identically
    assert "first difference: call #8 (actor.distiller)" in report.render()


def test_changed_catalog_is_caught_at_call_zero(recorded_json: dict[str, Any]) -> None:
    recorded_json["catalog"]["skills"][1]["description"] = "How to write crisp release notes"
    d = sessions.replay(reparse(recorded_json)).divergence
    assert d is not None and d.index == 0
    assert "+- `release-notes` — Release notes style — How to write crisp release notes" in d.diff


def test_missing_and_extra_calls_are_reported(recorded_json: dict[str, Any]) -> None:
    recorded_json["exchanges"] = recorded_json["exchanges"][:12]
    d = sessions.replay(reparse(recorded_json)).divergence
    assert d is not None and d.kind == "extra_call" and d.index == 12
    assert "was not in the recording" in d.message


def test_replay_refuses_another_axllm_version(
    recorded: Session, recorded_json: dict[str, Any]
) -> None:
    recorded_json["versions"]["axllm"] = "25.4.5"
    other = reparse(recorded_json)
    with pytest.raises(ReplayRefused) as err:
        sessions.replay(other)
    message = str(err.value)
    assert "recorded with axllm 25.4.5" in message
    assert f"axllm {package_version('axllm')} is installed" in message
    assert sessions.can_replay(other) == message
    assert sessions.can_replay(recorded) is None
