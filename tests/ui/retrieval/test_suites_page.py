"""The suites page: results per case, reruns after edits, regressions in the navigator,
Run (Ctrl+Enter) recording a baseline, JUnit export, opening a case in the bench."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, Qt
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from axmem_gui.core.suites import Suite, SuiteCase, run_suite
from axmem_gui.services.suites import SuiteOutcome
from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.suites.models import CaseTableModel, SuiteEntry, SuiteListModel
from axmem_gui.ui.suites.page import JunitDialog, SuitesPage
from tests.helpers.store import raw

from .conftest import views


def _nav_badge(window: MainWindow) -> str:
    from axmem_gui.ui.navigator import NavRole

    model = window.nav_model
    return str(model.index(model.row_of("suites")).data(NavRole.Badge))


def _wait_first_run(page: SuitesPage, qtbot: QtBot) -> None:
    qtbot.waitUntil(lambda: bool(page.outcomes) and not page.runner.running, timeout=5000)


def test_models(qtmodeltester: ModelTester) -> None:
    case_a = SuiteCase("a", "discover", ("thing",), must_include=("s1",))
    case_b = SuiteCase("b", "recall", ("yak",), must_exclude=("m1",))
    suite = Suite("s", (case_a, case_b))
    from axmem_gui.core.catalog import Catalog, Memory, Skill

    catalog = Catalog((Skill("s1", "X thing", "", "x"),), (Memory("m1", "yak hair"),))
    result = run_suite(suite, catalog)
    outcome = SuiteOutcome(result)
    cases = CaseTableModel()
    cases.set_suite(suite, outcome)
    qtmodeltester.check(cases)
    assert [cases.status(0), cases.status(1)] == ["pass", "fail"]
    assert cases.index(1, 10).data() == "unexpected 'm1' returned at rank 1"
    suites = SuiteListModel()
    suites.set_entries([SuiteEntry("s", suite, "", outcome), SuiteEntry("bad", None, "oops")])
    qtmodeltester.check(suites)
    assert suites.index(0).data() == "s  ·  1/2"
    assert suites.index(1).data(Qt.ItemDataRole.ToolTipRole) == "oops"


def test_sample_suite_runs_and_passes(rwindow: MainWindow, qtbot: QtBot) -> None:
    page = views(rwindow).suites
    _wait_first_run(page, qtbot)
    suite = rwindow.controller.workspace.suites.all()[0]
    expected = run_suite(suite, raw(rwindow.controller.workspace).catalog())
    outcome = page.outcomes[suite.name]
    assert [c.returned for c in outcome.result.cases] == [c.returned for c in expected.cases]
    assert outcome.result.summary == expected.summary
    assert page.cases_model.rowCount() == len(suite.cases) >= 20
    assert all(page.cases_model.status(r) == "pass" for r in range(len(suite.cases)))
    s = expected.summary
    assert f"{s.passed}/{s.total} passed" in page.summary_label.text()
    assert f"MRR {s.mrr:.3f}" in page.summary_label.text()
    assert _nav_badge(rwindow) == ""
    assert views(rwindow).suite_status.text() == f"suite {s.passed}/{s.total} ✓"


def test_a_breaking_edit_is_flagged_as_a_regression(rwindow: MainWindow, qtbot: QtBot) -> None:
    v = views(rwindow)
    page = v.suites
    _wait_first_run(page, qtbot)
    ws = rwindow.controller.workspace
    skill = raw(ws).skills.get("semver-policy")
    assert skill is not None
    broken = dataclasses.replace(
        skill, name="Versioning notes", description="Notes", content="Pick numbers carefully."
    )
    session = rwindow.feature(CATALOG).session
    with qtbot.waitSignal(page.regressions_changed, timeout=5000) as blocker:
        raw(ws).skills.upsert(broken)
        session.entries_changed("skills", ["semver-policy"], False)
        assert page._rerun_timer.isActive() is False  # the state refresh comes first
    assert blocker.args == [page.regression_count] and page.regression_count >= 1
    assert _nav_badge(rwindow) == "!"
    outcome = page.outcomes["ops-retrieval"]
    assert outcome.comparison is not None
    regressed = outcome.comparison.regressions
    assert "semver bump" in regressed
    row = next(r for r in range(page.cases_model.rowCount())
               if page.cases_model.case(r).name == "semver bump")
    assert page.cases_model.status(row) == "regressed"
    assert "regressed" in page.summary_label.text()
    first_failing = next(r for r in range(page.cases_model.rowCount())
                         if page.cases_model.status(r) == "regressed")
    detail = page.case_detail.text()
    assert detail.startswith(f"{page.cases_model.case(first_failing).name}: regressed")
    assert "not returned" in detail
    # fixing it clears the flag
    with qtbot.waitSignal(page.regressions_changed, timeout=5000) as blocker:
        raw(ws).skills.upsert(skill)
        session.entries_changed("skills", ["semver-policy"], False)
    assert blocker.args == [0]
    assert _nav_badge(rwindow) == ""


def test_ctrl_enter_runs_and_records_the_baseline(rwindow: MainWindow, qtbot: QtBot) -> None:
    v = views(rwindow)
    page = v.suites
    _wait_first_run(page, qtbot)
    ws = rwindow.controller.workspace
    assert raw(ws).suites.last_run("ops-retrieval") is None
    rwindow.show_section("suites")
    page.cases_view.setFocus()
    with qtbot.waitSignal(page.runner.finished, timeout=5000):
        qtbot.keyClick(page.cases_view, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    recorded = raw(ws).suites.last_run("ops-retrieval")
    assert recorded is not None and recorded["summary"]["failed"] == 0
    # a case that fails in the recorded baseline is not a regression afterwards
    skill = raw(ws).skills.get("semver-policy")
    assert skill is not None
    raw(ws).skills.upsert(dataclasses.replace(skill, name="Notes", description="", content="n"))
    with qtbot.waitSignal(page.runner.finished, timeout=5000):
        rwindow.controller.notify_changed("skills")
    assert page.regression_count >= 1
    with qtbot.waitSignal(page.runner.finished, timeout=5000):
        rwindow.action_registry.get("suites.run").trigger()
    assert page.regression_count >= 1  # this run still compares with the passing baseline
    with qtbot.waitSignal(page.runner.finished, timeout=5000):
        page.rerun()
    assert page.regression_count == 0  # now the recorded (failing) run is the baseline
    comparison = page.outcomes["ops-retrieval"].comparison
    assert comparison is not None and comparison.still_failing


def test_reruns_are_debounced(rwindow: MainWindow, qtbot: QtBot) -> None:
    v = views(rwindow)
    page = v.suites
    _wait_first_run(page, qtbot)
    runs: list[int] = []
    page.runner.finished.connect(lambda outcomes: runs.append(len(outcomes)))
    ws = rwindow.controller.workspace
    session = rwindow.feature(CATALOG).session
    skill = raw(ws).skills.get("style-guide")
    assert skill is not None
    for i in range(5):
        raw(ws).skills.upsert(dataclasses.replace(skill, content=f"edit {i}"))
        session.entries_changed("skills", ["style-guide"], False)
    qtbot.waitUntil(lambda: runs == [1], timeout=5000)
    # Nothing left that could start a second run: no rerun pending, none in progress.
    assert not page._rerun_timer.isActive() and not page.runner.running
    QCoreApplication.processEvents()
    assert runs == [1]


def test_junit_export_and_open_in_bench(
    rwindow: MainWindow, qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    v = views(rwindow)
    page = v.suites
    _wait_first_run(page, qtbot)
    out = tmp_path / "report.xml"
    monkeypatch.setattr(JunitDialog, "ask", classmethod(lambda cls, parent, start: out))
    page.junit_button.click()
    root = ET.parse(out).getroot()
    cases = root.findall(".//testcase")
    assert len(cases) == len(page.suites()[0].cases)
    assert not root.findall(".//failure")
    row = next(r for r in range(page.cases_model.rowCount())
               if page.cases_model.case(r).kind == "recall")
    case = page.cases_model.case(row)
    with qtbot.waitSignal(v.bench.ran, timeout=3000):
        page.cases_view.doubleClicked.emit(page.cases_model.index(row, 1))
    assert v.bench.kind() == "recall"
    assert v.bench.searches_edit.toPlainText() == "\n".join(case.searches)
    assert v.bench.result is not None
    assert set(case.must_include) <= set(v.bench.result.result_ids)


def test_invalid_suite_and_empty_state(rwindow: MainWindow, qtbot: QtBot) -> None:
    page = views(rwindow).suites
    _wait_first_run(page, qtbot)
    ws = rwindow.controller.workspace
    raw(ws).suites.save("broken", {"name": "broken", "cases": [{"name": "x"}]})
    rwindow.controller.notify_changed("suites")
    page.select("broken")
    assert "cases[0] (x): field 'kind' is missing" in page.summary_label.text()
    for name in raw(ws).suites.list():
        raw(ws).suites.delete(name)
    rwindow.controller.notify_changed("suites")
    assert page.stack.currentWidget() is page.empty
    with qtbot.waitSignal(page.message) as blocker:
        page.run()
    assert "No suites" in blocker.args[0]
