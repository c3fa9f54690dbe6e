"""The Evals page: run the sample eval set against the fake server from the GUI, see the
figures, the runs, the recorded sessions on the Sessions page, cancel, and compare."""

from __future__ import annotations

from typing import Any

from axmem_gui.core.providers import ProviderSettings
from axmem_gui.ui.evals import EVALS, EvalsFeature
from axmem_gui.ui.main_window import MainWindow
from tests.fakes.fake_openai_server import FakeOpenAIServer, settings_for
from tests.helpers.store import raw

WAIT_MS = 60_000


def _feature(window: MainWindow, server: FakeOpenAIServer) -> EvalsFeature:
    feature: EvalsFeature = window.feature(EVALS)
    window.show_section("evals")
    feature.page.local_check.setChecked(False)
    feature.page.provider_form.set_settings(settings_for(server))
    feature.page.repeat.setValue(1)
    return feature


def test_running_the_sample_set_shows_figures_and_records_sessions(
    window: MainWindow, server: FakeOpenAIServer, qtbot: Any, qtmodeltester: Any
) -> None:
    feature = _feature(window, server)
    assert window.stack.currentWidget() is feature.page
    assert feature.selected_set() == "ops-triggers"
    sessions_before = raw(window.controller.workspace).sessions.count()
    assert feature.run_selected() is not None
    assert not feature.page.run_button.isEnabled() and feature.page.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: feature.job_id is None, timeout=WAIT_MS)
    assert "complete: 3 counted, 0 failed" in feature.page.status.text()
    assert feature.page.runs_model.rowCount() == 1
    assert feature.page.cases_model.rowCount() == 3
    assert "ship a release" in feature.page.details.toPlainText()
    assert raw(window.controller.workspace).sessions.count() == sessions_before + 3
    for model in (feature.page.sets_model, feature.page.runs_model, feature.page.cases_model):
        qtmodeltester.check(model)


def test_compare_two_runs_from_the_page(
    window: MainWindow, server: FakeOpenAIServer, qtbot: Any
) -> None:
    feature = _feature(window, server)
    for _ in range(2):
        feature.run_selected()
        qtbot.waitUntil(lambda: feature.job_id is None, timeout=WAIT_MS)
    view = feature.page.runs_view
    view.selectAll()
    feature.compare_selected()
    assert feature.page.status.text() == "no regression"
    assert feature.page.details.toPlainText().startswith("A: eval-")


def test_cancel_keeps_the_finished_runs(
    window: MainWindow, server: FakeOpenAIServer, qtbot: Any
) -> None:
    feature = _feature(window, server)
    feature.page.repeat.setValue(3)
    feature.run_selected()
    # Cancel once the first run has finished.
    qtbot.waitUntil(lambda: "1 of 9 runs" in feature.page.status.text(), timeout=WAIT_MS)
    feature.cancel()
    qtbot.waitUntil(lambda: feature.job_id is None, timeout=WAIT_MS)
    report = feature.reports[-1]
    assert report.status == "cancelled"
    assert report.runs[0].status == "complete" and report.totals()["not_run"] > 0
    assert feature.page.status.text().startswith("cancelled:")


def test_a_provider_that_cannot_be_reached_fails_each_run_with_its_reason(
    window: MainWindow, qtbot: Any
) -> None:
    feature: EvalsFeature = window.feature(EVALS)
    feature.page.local_check.setChecked(False)
    feature.page.provider_form.set_settings(
        ProviderSettings("openai-compatible", "m", base_url="http://127.0.0.1:9/v1", max_retries=0)
    )
    feature.page.repeat.setValue(1)
    feature.run_selected()
    qtbot.waitUntil(lambda: feature.job_id is None, timeout=WAIT_MS)
    assert "0 counted, 3 failed" in feature.page.status.text()
    text = feature.page.details.toPlainText()
    assert "run 1: failed: " in text and "FAIL ship a release" in text


def test_an_eval_that_cannot_start_is_refused_with_one_message_and_stores_nothing(
    window: MainWindow, qtbot: Any
) -> None:
    # The scripted provider with no model chosen: each of the runs failed with "unknown
    # provider 'openai-compatible' (No model defined)" and the run was stored as
    # "complete, 0/3 cases pass" (issue #29).
    feature: EvalsFeature = window.feature(EVALS)
    window.show_section("evals")
    feature.page.local_check.setChecked(False)
    feature.page.provider_form.set_settings(ProviderSettings("scripted"))
    feature.page.repeat.setValue(1)
    runs_before = len(raw(window.controller.workspace).eval_runs.list())
    sessions_before = raw(window.controller.workspace).sessions.count()
    assert feature.run_selected() is not None
    qtbot.waitUntil(lambda: feature.job_id is None, timeout=WAIT_MS)
    status = feature.page.status.text()
    assert status.startswith("Scripted model") and "needs a model name" in status
    assert "scripted-a or scripted-b" in status and "unknown provider" not in status
    assert len(raw(window.controller.workspace).eval_runs.list()) == runs_before
    assert raw(window.controller.workspace).sessions.count() == sessions_before
    assert feature.page.runs_model.rowCount() == runs_before
