"""Run > Run agent… against a real fake OpenAI-compatible server on 127.0.0.1: the run goes
through the task runner with progress and Cancel, and its session lands in the workspace
(partial ones marked incomplete)."""

from __future__ import annotations

from typing import Any

import pytest

from axmem_gui.engine.providers import ProviderSettings
from axmem_gui.services.workspace import open_workspace
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.sessions.controller import SessionsFeature
from axmem_gui.ui.sessions.jobs import RunOrder
from axmem_gui.ui.sessions.list_model import STATUS
from axmem_gui.ui.sessions.page import JobStrip
from axmem_gui.ui.sessions.run_dialog import RunAgentDialog
from axmem_gui.ui.sessions.viewer import SessionViewer
from tests.fakes.fake_openai_server import FakeOpenAIServer, settings_for
from tests.helpers.session_docs import stored_json
from tests.helpers.store import raw
from tests.ui.sessions.conftest import new_run_dialog, wait_idle

REQUEST = "How do I ship a new release of the payments SDK?"


def run_dialog(feature: SessionsFeature, server: FakeOpenAIServer, qtbot: Any) -> RunAgentDialog:
    dialog = new_run_dialog(feature, settings_for(server))
    qtbot.addWidget(dialog)
    assert dialog.agent.currentText() == "ops-assistant"
    assert list(dialog.input_edits) == ["userRequest"]
    dialog.set_input("userRequest", REQUEST)
    return dialog


def test_run_saves_a_session_and_opens_it(
    window: MainWindow, feature: SessionsFeature, server: FakeOpenAIServer, qtbot: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    dialog = run_dialog(feature, server, qtbot)
    monkeypatch.setattr(
        RunAgentDialog, "ask", classmethod(lambda cls, *a, **k: dialog.build_order())
    )
    ws = window.controller.workspace
    before = raw(ws).sessions.count()
    progress: list[tuple[float, str]] = []
    feature.runner.progressed.connect(lambda _id, f, m: progress.append((f, m)))
    [run_item] = [a for a in window.run_menu.actions() if a.text() == "Run Agent…"]
    run_item.trigger()
    strips = feature.page.findChildren(JobStrip)
    assert len(strips) == 1 and strips[0].cancel.isEnabled()
    wait_idle(qtbot, feature)
    assert raw(ws).sessions.count() == before + 1
    viewer = feature.current_viewer()
    assert isinstance(viewer, SessionViewer)
    doc = stored_json(ws, viewer.session_id)
    assert doc["status"] == "complete" and doc["forwards"][0]["inputs"] == {"userRequest": REQUEST}
    assert len(doc["exchanges"]) == len(server.requests) > 0
    assert viewer.model.rowCount() == 1  # one forward in the timeline
    # Live status while it ran: stage names and call counts, a bar that moved forward.
    assert any("actor.distiller" in m for _f, m in progress)
    assert any("call" in m for _f, m in progress)
    fractions = [f for f, _m in progress]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert not feature.page.findChildren(JobStrip) or all(
        not s.isVisible() for s in feature.page.findChildren(JobStrip)
    )
    # The provider choice is remembered for the next run (never a key).
    assert raw(ws).settings.get("sessions.last_provider")["base_url"] == server.base_url


def test_http_500_gives_a_clear_error_and_a_saved_incomplete_session(
    window: MainWindow, feature: SessionsFeature, server: FakeOpenAIServer, qtbot: Any
) -> None:
    server.state.faults = {n: "500" for n in range(3, 60)}
    order = run_dialog(feature, server, qtbot).build_order()
    feature.start_run(order)
    wait_idle(qtbot, feature)
    notice = feature.page.notice.text()
    assert "the model server answered HTTP 500" in notice
    assert "saved, marked incomplete" in notice and "Traceback" not in notice
    viewer = feature.current_viewer()
    assert viewer is not None and "Incomplete session" in viewer.banner.text()
    doc = stored_json(window.controller.workspace, viewer.session_id)
    assert doc["status"] == "incomplete" and doc["error"]["kind"] == "http_status"
    answered = [e for e in doc["exchanges"] if e["error"] is None]
    assert len(answered) == 2 and len(doc["exchanges"]) > 2  # then failures (and retries)
    assert doc["error"]["call_index"] == doc["exchanges"][-1]["index"]
    row = feature.page.model.row_of(viewer.session_id)
    assert feature.page.model.index(row, STATUS).data() == "⚠ incomplete"
    assert "failed" in viewer.model.index_of_call(2).data()
    assert viewer.model.index_of_call(0).data() == "call #0"
    viewer.select_call(2)
    assert "http_status" in viewer.details.response.text()
    assert "HTTP 500" in viewer.details.response.text()


def test_cancel_stops_the_run_and_keeps_what_was_recorded(
    window: MainWindow, feature: SessionsFeature, server: FakeOpenAIServer, qtbot: Any
) -> None:
    server.state.faults = {2: "timeout"}
    server.state.slow_seconds = 3600.0  # held until the test ends (stop() releases it)
    order = run_dialog(feature, server, qtbot).build_order()
    feature.start_run(order)
    [strip] = feature.page.findChildren(JobStrip)
    qtbot.waitUntil(lambda: server.state.held == 1, timeout=20_000)
    strip.cancel.click()
    assert strip.status.text() == "cancelling…" and not strip.cancel.isEnabled()
    wait_idle(qtbot, feature)
    assert server.state.held == 1  # the run ended while the slow reply was still held
    viewer = feature.current_viewer()
    assert viewer is not None
    doc = stored_json(window.controller.workspace, viewer.session_id)
    assert doc["status"] == "incomplete" and doc["error"]["kind"] == "cancelled"
    assert len(doc["exchanges"]) == 2
    assert "cancelled" in feature.page.notice.text()


def test_a_bad_run_request_names_the_field(
    feature: SessionsFeature, server: FakeOpenAIServer, qtbot: Any
) -> None:
    dialog = run_dialog(feature, server, qtbot)
    dialog.set_input("userRequest", "")
    dialog.accept()
    assert dialog.order is None
    assert "userRequest" in dialog.error.text() and "missing value" in dialog.error.text()
    dialog.set_input("userRequest", REQUEST)
    dialog.provider.base_url.clear()
    dialog.accept()
    assert dialog.order is not None and dialog.order.settings.base_url is None


def test_a_job_failure_is_shown_without_a_traceback(
    feature: SessionsFeature, server: FakeOpenAIServer, qtbot: Any, errors: list[tuple[str, str]]
) -> None:
    order = run_dialog(feature, server, qtbot).build_order()
    no_url = RunOrder(
        order.agent, order.catalog, order.inputs, ProviderSettings("openai-compatible")
    )
    feature.start_run(no_url)
    wait_idle(qtbot, feature)
    [(title, message)] = errors
    assert title == "Cannot run the agent"
    assert "needs a base URL" in message and "Traceback" not in message


def test_test_connection_through_the_runner(
    feature: SessionsFeature, server: FakeOpenAIServer, qtbot: Any
) -> None:
    dialog = run_dialog(feature, server, qtbot)
    form = dialog.provider
    with qtbot.waitSignal(form.connection_checked, timeout=10_000) as ok:
        form.test_button.click()
    assert ok.args[0] is True and form.test_result.text().startswith("✓ Connected in")
    server.state.fault_always = "500"
    with qtbot.waitSignal(form.connection_checked, timeout=10_000) as bad:
        form.test_button.click()
    assert bad.args[0] is False
    assert "HTTP 500" in form.test_result.text() and form.test_result.text().startswith("✗")


def test_read_only_workspace_keeps_the_run_in_the_viewer(
    window: MainWindow, feature: SessionsFeature, server: FakeOpenAIServer, qtbot: Any
) -> None:
    order = run_dialog(feature, server, qtbot).build_order()
    window.controller.replace(open_workspace(window.controller.path, read_only=True))
    assert not feature.import_action.isEnabled()
    before = raw(window.controller.workspace).sessions.count()
    feature.start_run(order)
    wait_idle(qtbot, feature)
    assert raw(window.controller.workspace).sessions.count() == before
    assert "not saved" in feature.page.notice.text() and "read-only" in feature.page.notice.text()
    viewer = feature.current_viewer()
    assert viewer is not None and not viewer.saved
    assert "Export" in viewer.banner.text()
