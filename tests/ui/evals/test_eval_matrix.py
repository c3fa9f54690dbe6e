"""The Evals page shows results as a runs × cases matrix (issue #30: they were a text
pane): a cell per run and case says hit, miss, failed or not run, with the figures and
the failure's reason in its tooltip; a case that passed in the run above and no longer
does is marked as a regression; a double click opens the case's recorded session."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import Qt

from axmem_gui.core.evals.report import EvalProvider, EvalReport, EvalRun, failed_run
from axmem_gui.ui.evals import EVALS, EvalsFeature
from axmem_gui.ui.evals.matrix import FAILED, HIT, MISS, MatrixRole
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.sessions.controller import SESSIONS
from tests.fakes.fake_openai_server import FakeOpenAIServer, settings_for
from tests.helpers.store import raw

WAIT_MS = 60_000


def _stored_run(window: MainWindow, run_id: str, runs: tuple[EvalRun, ...]) -> None:
    ws = window.controller.workspace
    report = EvalReport(
        id=run_id,
        eval_set=ws.evals.get_set("ops-triggers"),
        provider=EvalProvider("openai-compatible", "m-1"),
        started_at=f"2026-12-0{run_id[-1]}T10:00:00Z",
        status="complete",
        runs=runs,
        repeat=1,
    )
    raw(ws).eval_runs.save(report.stored_json())


def test_a_case_that_stops_passing_is_a_regression_and_a_failure_says_why(
    window: MainWindow, qtmodeltester: Any
) -> None:
    ship, rollback, third = window.controller.workspace.evals.get_set("ops-triggers").cases
    wanted = EvalRun(
        ship.name, 1, "complete",
        loaded_skills=ship.skills.load, loaded_memories=ship.memories.load,
    )  # fmt: skip
    other = EvalRun(
        rollback.name, 1, "complete",
        loaded_skills=rollback.skills.load, loaded_memories=rollback.memories.load,
    )  # fmt: skip
    _stored_run(window, "eval-run-1", (wanted, other))
    missed = replace(wanted, loaded_skills=(), loaded_memories=())
    broken = failed_run(rollback.name, 1, "HTTP 500 from the provider: overloaded")
    _stored_run(window, "eval-run-2", (missed, broken))
    window.show_section("evals")
    feature: EvalsFeature = window.feature(EVALS)
    feature.reload()
    model = feature.page.matrix_model
    qtmodeltester.check(model)
    assert model.rowCount() == 2
    assert model.columns == [ship.name, rollback.name, third.name]

    def cell(row: int, column: int, role: int) -> Any:
        return model.index(row, column).data(role)

    assert [cell(0, c, MatrixRole.State) for c in range(2)] == [HIT, HIT]
    assert cell(0, 2, Qt.ItemDataRole.DisplayRole) == "—"  # not run in that run
    assert cell(1, 0, MatrixRole.State) == MISS and cell(1, 0, MatrixRole.Regression)
    assert cell(1, 0, Qt.ItemDataRole.DisplayRole) == "▼ ✗ 0/1"
    assert "regression: it passed in the run above" in cell(1, 0, Qt.ItemDataRole.ToolTipRole)
    assert cell(1, 1, MatrixRole.State) == FAILED and not cell(1, 1, MatrixRole.Regression)
    assert "HTTP 500 from the provider: overloaded" in cell(1, 1, Qt.ItemDataRole.ToolTipRole)
    assert cell(1, 0, Qt.ItemDataRole.FontRole).bold()
    assert not cell(0, 0, MatrixRole.Regression)
    assert model.headerData(1, Qt.Orientation.Vertical).startswith("2 · m-1 · 2026-12-02")


def test_a_run_from_the_page_fills_the_matrix_and_a_cell_opens_its_session(
    window: MainWindow, server: FakeOpenAIServer, qtbot: Any
) -> None:
    window.show_section("evals")
    feature: EvalsFeature = window.feature(EVALS)
    feature.page.local_check.setChecked(False)
    feature.page.provider_form.set_settings(settings_for(server))
    feature.page.repeat.setValue(1)
    feature.run_selected()
    qtbot.waitUntil(lambda: feature.job_id is None, timeout=WAIT_MS)
    model = feature.page.matrix_model
    assert model.rowCount() == 1 and model.columnCount() == 3
    assert {model.index(0, c).data(MatrixRole.State) for c in range(3)} <= {HIT, MISS}
    session_id = model.index(0, 1).data(MatrixRole.SessionId)
    assert session_id
    view = feature.page.matrix_view
    view.scrollTo(model.index(0, 1))
    rect = view.visualRect(model.index(0, 1))
    # (a double click is a press, then a press QTest marks double, on the same cell)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.current_section() == "sessions"
    sessions = window.feature(SESSIONS)
    assert session_id in sessions.viewers
    assert sessions.page.tabs.currentWidget() is sessions.viewers[session_id]
