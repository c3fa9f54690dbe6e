"""Hostile sessions replayed and run from the real main window (issue 26): each ends with
a clear message in its viewer, the window goes on working (the next replay is fine), a
crash of the runtime or a stuck run stays in its child process, and Cancel stops it at
once. On main the loop's "cancelling…" never ended, the deep object took the app down
with SIGSEGV, and two stuck replays held both of the task runner's threads."""

from __future__ import annotations

import json
from typing import Any

import pytest
from PySide6.QtCore import Qt

from axmem_gui.core.session.format import with_id
from axmem_gui.services.agent_runner import Deadlines
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.sessions.controller import SessionsFeature
from axmem_gui.ui.sessions.job_kinds import ReplayJob
from axmem_gui.ui.sessions.jobs import RunOrder
from axmem_gui.ui.sessions.list_model import STATUS
from axmem_gui.ui.sessions.quarantine import TrustSessionDialog
from axmem_gui.ui.sessions.viewer import SessionViewer
from tests.engine.conftest import AGENT_JSON, INPUTS
from tests.fakes.fake_openai_server import FakeOpenAIServer, settings_for
from tests.helpers.faulty_worker import faulty_command
from tests.helpers.hostile_code import HOSTILE_CODE, LIMIT_KIND, hostile_session, stuck_session
from tests.helpers.session_docs import session_json
from tests.ui.sessions.conftest import SAMPLE_ID, import_files, wait_idle

#: A replay starts a child process (the engine loads there): room for a loaded machine.
REPLAY_MS = 120_000


def _open(feature: SessionsFeature, session: Any) -> SessionViewer:
    feature.sessions().save(session)
    viewer = feature.open_session(session.id)
    assert viewer is not None
    return viewer


def _replay(qtbot: Any, feature: SessionsFeature, viewer: SessionViewer) -> None:
    viewer.replay_action.trigger()
    wait_idle(qtbot, feature, REPLAY_MS)


def _app_alive(qtbot: Any, feature: SessionsFeature) -> None:
    """The window goes on: the sample replays identically."""
    sample = feature.open_session(SAMPLE_ID)
    assert sample is not None
    _replay(qtbot, feature, sample)
    assert sample.banner.text().startswith("Replay identical")


@pytest.mark.parametrize("name", sorted(HOSTILE_CODE))
def test_a_hostile_replay_from_the_window_ends_with_a_clear_message(
    name: str, window: MainWindow, feature: SessionsFeature, qtbot: Any
) -> None:
    viewer = _open(feature, hostile_session(name))
    _replay(qtbot, feature, viewer)
    assert viewer.banner.text().startswith("Replay identical"), viewer.banner.text()
    if LIMIT_KIND[name]:
        assert "model code stopped by a limit (forward 0" in viewer.replay_view.text()
    assert viewer.replay_action.isEnabled()
    _app_alive(qtbot, feature)


def test_a_time_bomb_replayed_past_its_hour_is_a_clear_difference(
    feature: SessionsFeature, qtbot: Any
) -> None:
    viewer = _open(feature, hostile_session("bomb"))
    _replay(qtbot, feature, viewer)
    assert viewer.banner.text().startswith("Replay differs")
    assert "Execution timed out" in viewer.replay_view.text()
    _app_alive(qtbot, feature)


@pytest.mark.parametrize(("how", "signal"), [("segv", "SIGSEGV"), ("abort", "SIGABRT")])
def test_a_crash_of_the_runtime_is_the_replays_not_the_windows(
    how: str, signal: str, window: MainWindow, feature: SessionsFeature, qtbot: Any
) -> None:
    viewer = _open(feature, hostile_session("deep"))
    command = window.agent_runner.command
    window.agent_runner.command = faulty_command(how, 0)
    _replay(qtbot, feature, viewer)
    window.agent_runner.command = command
    text = viewer.banner.text()
    assert text.startswith(f"Cannot replay: the replay's process crashed ({signal}")
    assert "while running the model's code" in text
    _app_alive(qtbot, feature)


def test_cancel_stops_a_stuck_replay_at_once(
    window: MainWindow, feature: SessionsFeature, qtbot: Any
) -> None:
    # A native loop no limit reaches, and a deadline far away: only Cancel ends it.
    window.agent_runner.deadlines = Deadlines(code_grace_s=3600)
    viewer = _open(feature, stuck_session())
    wait_idle(qtbot, feature)
    viewer.replay_action.trigger()
    (kind,) = [k for k in feature.jobs.values() if isinstance(k, ReplayJob)]
    qtbot.waitUntil(lambda: kind.strip is not None and "forward 1" in kind.strip.status.text())
    assert kind.strip is not None
    kind.strip.cancel.click()
    wait_idle(qtbot, feature, REPLAY_MS)
    assert "the replay was cancelled" in viewer.banner.text()
    _app_alive(qtbot, feature)


def test_two_stuck_replays_do_not_hold_up_a_third(
    window: MainWindow, feature: SessionsFeature, qtbot: Any
) -> None:
    window.agent_runner.deadlines = Deadlines(code_grace_s=3600)
    stuck = stuck_session()
    first = _open(feature, stuck)
    second = _open(feature, with_id(stuck, "stuck-2"))
    wait_idle(qtbot, feature)
    first.replay_action.trigger()
    second.replay_action.trigger()
    stuck_jobs = set(feature.jobs)
    sample = feature.open_session(SAMPLE_ID)
    assert sample is not None
    sample.replay_action.trigger()
    qtbot.waitUntil(lambda: sample.banner.text().startswith("Replay identical"), timeout=REPLAY_MS)
    assert stuck_jobs <= set(feature.jobs)  # the stuck ones still run
    feature.cancel_all()
    wait_idle(qtbot, feature, REPLAY_MS)


def test_a_live_run_whose_model_loops_forever_ends_and_is_saved(
    feature: SessionsFeature, server: FakeOpenAIServer, qtbot: Any
) -> None:
    from axmem_gui.core.catalog import Catalog
    from axmem_gui.core.session.agent_config import agent_config_from_json

    server.state.actor_code = [HOSTILE_CODE["loop"]]
    order = RunOrder(
        agent=agent_config_from_json(AGENT_JSON, "agent"),
        catalog=Catalog(),
        inputs=(dict(INPUTS[0]),),
        settings=settings_for(server),
        name="loops",
    )
    feature.start_run(order)
    wait_idle(qtbot, feature, REPLAY_MS)
    viewer = feature.current_viewer()
    assert viewer is not None and viewer.session.complete
    (hit,) = viewer.session.limits_hit
    assert hit.kind == "time" and hit.call_index == 0


def test_a_file_that_fails_verify_is_imported_in_quarantine(
    feature: SessionsFeature, qtbot: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = session_json(hostile_session("loop"))
    doc["id"] = "tampered"
    # what the file says the model was asked is not what its digest says
    doc["exchanges"][0]["request"]["chat_prompt"][-1]["content"] += " (tampered)"
    path = tmp_path / "tampered.axsession.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert import_files(qtbot, feature, [path]) == ["tampered"]
    model = feature.page.model

    def status() -> str:
        return str(model.index(model.row_of("tampered"), STATUS).data())

    qtbot.waitUntil(lambda: model.row_of("tampered") >= 0)
    assert status() == "complete · quarantine"  # the list says so too
    assert "In quarantine: the file does not hold what it claims" in str(
        model.index(model.row_of("tampered"), STATUS).data(Qt.ItemDataRole.ToolTipRole)
    )
    viewer = feature.open_session("tampered")
    assert viewer is not None
    assert viewer.quarantine.startswith("the file does not hold what it claims")
    assert viewer.banner.text().startswith("In quarantine:")
    assert not viewer.replay_action.isEnabled() and not viewer.rerun_action.isEnabled()
    assert not feature.replay_action.isEnabled() and not feature.rerun_action.isEnabled()
    assert viewer.trust_action.isVisible()
    assert feature.replay(viewer) is None  # refused, whatever asks
    monkeypatch.setattr(TrustSessionDialog, "ask", classmethod(lambda cls, *a: True))
    viewer.trust_action.trigger()
    assert viewer.replay_action.isEnabled() and viewer.rerun_action.isEnabled()
    assert feature.sessions().quarantined("tampered") == ""
    qtbot.waitUntil(lambda: status() == "complete")
    _replay(qtbot, feature, viewer)
    assert viewer.banner.text().startswith("Replay differs")


def test_closing_the_window_stops_a_stuck_run(
    window: MainWindow, feature: SessionsFeature, qtbot: Any
) -> None:
    """On main a replay stuck in a loop kept its thread, and the process did not exit after
    the window closed. Now the window's shutdown cancels it and its child is stopped."""
    window.agent_runner.deadlines = Deadlines(code_grace_s=3600, cancel_grace_s=0.5)
    viewer = _open(feature, stuck_session())
    wait_idle(qtbot, feature)
    viewer.replay_action.trigger()
    (kind,) = [k for k in feature.jobs.values() if isinstance(k, ReplayJob)]
    qtbot.waitUntil(lambda: kind.strip is not None and "forward 1" in kind.strip.status.text())
    window.controller.close()  # what quitting does first: features and runners shut down
    assert window.task_runner.wait(REPLAY_MS)  # every job thread has ended
    assert window.agent_runner._warm is None  # and no child is left waiting


def test_a_quarantined_incomplete_session_says_both_and_runs_nothing(qtbot: Any) -> None:
    from dataclasses import replace

    from axmem_gui.core.session.model import RunError

    stopped = RunError(kind="killed", type="stuck", message="the process was stopped")
    viewer = SessionViewer(replace(hostile_session("loop"), status="incomplete", error=stopped))
    qtbot.addWidget(viewer)
    viewer.set_quarantine("the file does not hold what it claims")
    first, second = viewer.banner.text().split("\n")
    assert first.startswith("In quarantine: the file does not hold what it claims")
    assert second.startswith("Incomplete session: [killed] the process was stopped")
    assert not viewer.replay_action.isEnabled() and not viewer.rerun_action.isEnabled()
    viewer.set_quarantine("")  # trusted
    assert viewer.banner.text().startswith("Incomplete session:")
    assert viewer.replay_action.isEnabled() and viewer.rerun_action.isEnabled()
