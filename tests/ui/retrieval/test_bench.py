"""The retrieval bench dock: Ax results with score bars, BM25 beside, entry highlights,
"why not?", and Ctrl+Enter."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from axmem_gui.core.ax.profile import load_profile
from axmem_gui.core.ax.search import MemorySearch, SkillSearch
from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.services.bench import BenchRow, Bm25Row
from axmem_gui.store.fts import Bm25Index
from axmem_gui.ui.bench.models import AxResultModel, BenchRole, Bm25ResultModel
from axmem_gui.ui.main_window import MainWindow
from tests.helpers.store import raw
from tests.ui.conftest import WindowFactory, calls_on_gui_thread

from .conftest import RETRIEVAL_FEATURES, views

PROFILE = load_profile()


def test_result_models(qtmodeltester: ModelTester) -> None:
    ax = AxResultModel()
    ax.set_rows(
        (
            BenchRow("a", 1, "q", 1.0, 2.5, 1.0, ("x", "y")),
            BenchRow("b", 2, "q", 0.25, 0.625, 0.5, ("x",)),
        )
    )
    qtmodeltester.check(ax)
    assert ax.index(1, 2).data() == "0.25"
    assert ax.index(1, 2).data(BenchRole.Score) == 0.25
    assert ax.index(0, 5).data() == "x, y"
    bm = Bm25ResultModel()
    bm.set_rows((Bm25Row("a", 1, "q", 4.0, True), Bm25Row("c", 2, "q", 1.0, False)), {"q": ["q"]})
    qtmodeltester.check(bm)
    assert bm.index(1, 2).data(BenchRole.Score) == 0.25
    assert bm.index(1, 3).data() == "-1.000" and bm.index(1, 4).data() == "no"
    assert bm.index(1, 0).data(BenchRole.Terms) == ["q"]


def test_discover_shows_ax_and_bm25_results(rwindow: MainWindow, qtbot: QtBot) -> None:
    bench = views(rwindow).bench
    searches = ["how do I ship a release", "rollback"]
    bench.set_searches(searches)
    with qtbot.waitSignal(bench.ran, timeout=3000):
        bench.run_button.click()
    # BM25's index is built on the task runner on first use; the bench runs again then.
    qtbot.waitUntil(lambda: not bench.bm25_pending and bench.bm25_model.rowCount() > 0)
    catalog = raw(rwindow.controller.workspace).catalog()
    call = SkillSearch(catalog.skills, PROFILE).discover(searches)[0]
    shown = [bench.ax_model.index(r, 1).data() for r in range(bench.ax_model.rowCount())]
    assert shown == list(call.result_ids)
    top = call.per_query[0].ranked[0]
    assert bench.ax_model.index(0, 3).data() == f"{top.raw:.3f}"
    assert bench.ax_model.index(0, 5).data() == ", ".join(top.matched_terms)
    index = Bm25Index.for_skills(catalog.skills)
    expected: list[str] = []
    for query in searches:
        for hit in index.search(query, 2):
            if hit.id not in expected:
                expected.append(hit.id)
    bm25 = [bench.bm25_model.index(r, 1).data() for r in range(bench.bm25_model.rowCount())]
    assert bm25 == expected
    assert "BM25" in bench.status.text()
    # the first result is shown with its matched terms highlighted
    assert bench.entry_view.entry_id == call.result_ids[0]
    assert {w.lower() for w in bench.entry_view.highlighted} <= set(top.matched_terms)
    assert bench.entry_view.highlighted


def test_recall_with_a_loaded_set(rwindow: MainWindow, qtbot: QtBot) -> None:
    bench = views(rwindow).bench
    bench.set_kind("recall")
    assert bench.loaded_edit.isVisible()
    bench.set_searches(["deploy window", "release approvals"])
    bench.set_loaded(["deploy-window", " user-prefs "])
    bench.run()
    catalog = raw(rwindow.controller.workspace).catalog()
    call = MemorySearch(catalog.memories, PROFILE).recall(
        ["deploy window", "release approvals"], ["deploy-window", "user-prefs"]
    )[0]
    assert bench.result is not None
    assert bench.result.result_ids == call.result_ids
    assert "deploy-window" not in bench.result.result_ids


def test_why_not_for_an_entry_bm25_found(rwindow: MainWindow, qtbot: QtBot) -> None:
    bench = views(rwindow).bench
    bench.set_searches(["how do I ship a release", "write the changelog"])
    bench.run()
    qtbot.waitUntil(lambda: not bench.bm25_pending)
    assert bench.result is not None
    only = bench.result.only_bm25()
    assert only, "the sample has an entry BM25 finds and Ax does not"
    row = list(bench.result.bm25_ids).index(only[0])
    with qtbot.waitSignal(bench.explained, timeout=3000):
        bench.bm25_table.doubleClicked.emit(bench.bm25_model.index(row, 1))
    assert bench.why is not None and bench.why.entry_id == only[0]
    assert not bench.why.returned_by_call
    html = bench.why_view.toPlainText()
    assert "not returned" in html and "how (stopword)" in html
    explanation = bench.why.explanations[0]
    assert explanation.reason in html
    assert f"the call keeps the top {explanation.cutoff} per search string" in html
    assert bench.detail_tabs.currentIndex() == 1


def test_why_not_reports_what_lies_beyond_the_cut(rwindow: MainWindow, qtbot: QtBot) -> None:
    v = views(rwindow)
    ws = rwindow.controller.workspace
    skill = raw(ws).skills.get("feature-flags")
    assert skill is not None
    padded = dataclasses.replace(skill, content="x " * 300 + "zebrafish appear only here")
    raw(ws).skills.upsert(padded)
    with qtbot.waitSignal(v.state.changed, timeout=3000):
        rwindow.controller.notify_changed("skills")
    bench = v.bench
    bench.set_searches(["zebrafish"])
    bench.run()
    qtbot.waitUntil(lambda: not bench.bm25_pending)
    assert bench.result is not None and bench.result.result_ids == ()
    assert bench.result.bm25_ids == ("feature-flags",)  # BM25 indexes the whole content
    bench.why_id_edit.setText("feature-flags")
    bench.why_button.click()
    assert bench.why is not None
    term = bench.why.explanations[0].terms[0]
    assert (term.term, term.status) == ("zebrafish", "beyond-cut")
    text = bench.why_view.toPlainText()
    assert "Beyond the content cut" in text and "zebrafish appear only here" in text
    bench.why_id_edit.setText("no-such-skill")
    bench.why_button.click()
    assert "no skill with id 'no-such-skill'" in bench.why_view.toPlainText()


def test_policy_errors_and_empty_input(rwindow: MainWindow) -> None:
    bench = views(rwindow).bench
    bench.searches_edit.setPlainText("")
    bench.run()
    assert "at least one search string" in bench.status.text()
    assert bench.result is None


def test_ctrl_enter_in_the_bench_runs_the_bench_not_the_suites(
    rwindow: MainWindow, qtbot: QtBot
) -> None:
    v = views(rwindow)
    v.bench.set_searches(["rollback"])
    v.bench.searches_edit.setFocus()
    suite_runs: list[bool] = []
    rwindow.action_registry.get("suites.run").triggered.connect(lambda *_: suite_runs.append(True))
    with qtbot.waitSignal(v.bench.ran, timeout=3000):
        qtbot.keyClick(
            v.bench.searches_edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier
        )
    assert v.bench.searches_edit.toPlainText() == "rollback"  # no newline typed
    assert v.bench.result is not None and "rollback-procedure" in v.bench.result.result_ids
    assert suite_runs == []


def test_bench_reruns_after_a_catalog_edit(rwindow: MainWindow, qtbot: QtBot) -> None:
    v = views(rwindow)
    v.bench.set_searches(["rollback"])
    v.bench.run()
    qtbot.waitUntil(lambda: not v.bench.bm25_pending)
    ws = rwindow.controller.workspace
    raw(ws).skills.delete("rollback-procedure")
    with qtbot.waitSignal(v.bench.ran, timeout=3000):
        rwindow.controller.notify_changed("skills")
    assert v.bench.result is not None
    assert "rollback-procedure" not in v.bench.result.result_ids
    assert "rollback-procedure" not in v.bench.result.bm25_ids


def test_bm25_indexes_are_built_off_the_gui_thread(
    qtbot: QtBot, make_window: WindowFactory, sample_ws_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from axmem_gui.store.fts import Bm25Index as StoreIndex

    on_gui_thread = calls_on_gui_thread(monkeypatch, StoreIndex, "__init__")
    win = make_window(sample_ws_path, features=RETRIEVAL_FEATURES)
    controller = win.controller
    bench = views(win).bench
    state = views(win).state
    qtbot.waitUntil(lambda: state.ready, timeout=10000)
    try:
        bench.set_searches(["how do I ship a release"])
        bench.run()
        qtbot.waitUntil(lambda: bench.bm25_model.rowCount() > 0, timeout=10000)
        assert "BM25: indexing" not in bench.status.text()
        # A full reload (import, another program) drops the index: rebuilt off the GUI thread.
        state.live.load(raw(controller.workspace).catalog())
        assert not state.live.has_bm25("skills")
        bench.run()
        assert bench.bm25_pending and "BM25: indexing…" in bench.status.text()
        qtbot.waitUntil(lambda: not bench.bm25_pending, timeout=10000)
        assert bench.bm25_model.rowCount() > 0
        assert on_gui_thread and not any(on_gui_thread)
    finally:
        views(win).suites.runner.cancel()


def test_bm25_is_built_when_the_bench_first_needs_it(
    qtbot: QtBot, make_window: WindowFactory, sample_ws_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Start-up builds no BM25 index (only the bench's host-search column uses it): the
    bench's first run of a kind builds the index of the domain it searches, after Ax's
    call; the column shows it is indexing, then fills; an edit patches the built index."""
    from axmem_gui.store.fts import Bm25Index as StoreIndex

    made: list[StoreIndex] = []
    original = StoreIndex.__init__

    def recording_init(self: StoreIndex, *args: Any, **kwargs: Any) -> None:
        made.append(self)
        original(self, *args, **kwargs)

    monkeypatch.setattr(StoreIndex, "__init__", recording_init)
    win = make_window(sample_ws_path, features=RETRIEVAL_FEATURES)
    v = views(win)
    state, bench = v.state, v.bench
    try:
        qtbot.waitUntil(lambda: state.ready and not win.task_runner.busy, timeout=10000)
        assert made == []
        assert not state.live.has_bm25("skills") and not state.live.has_bm25("memories")

        bench.set_kind("recall")
        bench.run()  # no search strings: nothing to search, nothing built
        bench.set_searches(["deploy window"])
        assert made == [] and not win.task_runner.busy  # typing builds nothing either
        bench.run()  # recall searches the memories: their index only
        assert bench.result is not None and bench.result.rows  # Ax answers at once
        assert bench.bm25_pending and "BM25: indexing…" in bench.status.text()
        # the build starts once the result is painted, not in the same turn (it would
        # share the GIL with the painting)
        assert not win.task_runner.busy
        assert bench.result.bm25_rows == ()
        qtbot.waitUntil(lambda: not bench.bm25_pending, timeout=10000)
        assert bench.result.bm25_rows and "indexing" not in bench.status.text()
        assert len(made) == 1 and not state.live.has_bm25("skills")

        bench.set_kind("discover")
        bench.set_searches(["rollback"])
        bench.run()
        assert bench.bm25_pending and "BM25: indexing…" in bench.status.text()
        qtbot.waitUntil(lambda: not bench.bm25_pending, timeout=10000)
        assert bench.result is not None and "rollback-procedure" in bench.result.bm25_ids
        assert len(made) == 2

        # An edit patches the index the bench built: no new index.
        index = state.live.bm25("skills")
        raw(win.controller.workspace).skills.delete("rollback-procedure")
        with qtbot.waitSignal(bench.ran, timeout=3000):
            win.controller.notify_changed("skills")
        assert "rollback-procedure" not in bench.result.bm25_ids
        assert state.live.bm25("skills") is index and len(made) == 2
    finally:
        v.suites.runner.cancel()


def test_stale_results_and_why_not_are_cleared(rwindow: MainWindow, qtbot: QtBot) -> None:
    bench = views(rwindow).bench
    bench.set_searches(["how do I ship a release"])
    bench.run()
    assert bench.ax_model.rowCount() > 0
    bench.explain("incident-response")
    assert bench.why is not None and bench.why_view.toPlainText()
    # Another kind of call: the skills' results and their "Why not?" no longer apply.
    bench.set_kind("recall")
    assert bench.result is None and bench.ax_model.rowCount() == 0
    assert bench.bm25_model.rowCount() == 0
    assert bench.why is None and bench.why_view.toPlainText() == ""
    assert bench.why_id_edit.text() == "" and bench.entry_view.entry_id is None
    assert not bench.add_case_button.isEnabled()
    bench.set_searches(["deploy window"])
    bench.run()
    assert bench.ax_model.rowCount() > 0
    # The search cleared: nothing of the last run stays.
    bench.searches_edit.clear()
    assert bench.result is None and bench.ax_model.rowCount() == 0
    assert "Type search strings" in bench.status.text()


def test_exact_text_replaces_only_the_changed_span(qtbot: QtBot) -> None:
    from axmem_gui.ui.preview.section_view import ExactTextEdit, changed_span

    assert changed_span("abcXYZdef", "abcQdef") == (3, 6, 4)
    assert changed_span("aaa", "aaaa") == (3, 3, 4)
    assert changed_span("", "x") == (0, 0, 1)
    view = ExactTextEdit()
    qtbot.addWidget(view)
    lines = [f"- skill-{i}: 😀 line {i}" for i in range(400)]
    view.set_exact_text("\n".join(lines))
    blocks = view.document().blockCount()
    lines[200] = "- skill-200: 😀 edited \U0001f680 line"
    assert view.set_exact_text("\n".join(lines))
    assert view.toPlainText() == "\n".join(lines) == view.exact_text()
    assert view.document().blockCount() == blocks
    assert not view.set_exact_text("\n".join(lines))


def test_a_bm25_build_of_the_workspace_open_before_is_dropped(
    qtbot: QtBot,
    make_window: WindowFactory,
    sample_ws_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A BM25 index still building when another workspace was opened was adopted by the new
    workspace's catalog: its column listed entries of the old one (and building the new
    one's index waited for it)."""
    import threading

    from axmem_gui.services import live_search
    from axmem_gui.services.workspace import init_workspace
    from axmem_gui.ui.retrieval import state as state_module

    gate = threading.Event()  # the old build lands after the new workspace's index
    build = live_search.build_bm25_index

    def held_build(entries: Iterable[Skill | Memory]) -> Bm25Index:
        gate.wait(30)
        return build(entries)

    monkeypatch.setattr(state_module, "build_bm25_index", held_build)
    win = make_window(sample_ws_path, features=RETRIEVAL_FEATURES)
    v = views(win)
    state, bench = v.state, v.bench
    try:
        qtbot.waitUntil(lambda: state.ready and not win.task_runner.busy, timeout=10000)
        assert not state.live.has_bm25("memories")
        empty = tmp_path / "empty.axmem"
        init_workspace(empty).close()
        old_live = state.live
        assert not state.ensure_bm25("memories")  # building (the old catalog's)...
        assert win.open_path(empty)  # ...when another workspace opens, in the same turn
        qtbot.waitUntil(lambda: state.ready and state.live is not old_live, timeout=10000)
        gate.set()
        qtbot.waitUntil(lambda: not win.task_runner.busy, timeout=10000)
        assert not state.live.has_bm25("memories")  # the old build was not adopted
        bench.set_kind("recall")
        bench.set_searches(["deploy window"])
        bench.run()
        qtbot.waitUntil(lambda: not bench.bm25_pending, timeout=10000)
        assert bench.result is not None
        assert bench.result.rows == () and bench.result.bm25_rows == ()
        assert state.live.has_bm25("memories")
    finally:
        gate.set()
        v.suites.runner.cancel()


def test_a_catalog_too_damaged_to_index_says_so(
    qtbot: QtBot,
    make_window: WindowFactory,
    sample_ws_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A workspace that opens but whose catalog cannot be read (a damaged stored value):
    the index job failed, indexing again in place raised out of a Qt slot (a traceback on
    stderr), and nothing told the user; search stayed "Indexing…" for ever."""
    import shutil
    import sqlite3

    from axmem_gui.ui.dialogs import ErrorDialog

    shown: list[tuple[str, str]] = []
    preview_at_dialog: list[str] = []  # what the preview said when the dialog came up

    def show(cls: object, parent: QWidget | None, title: str, message: str) -> None:
        shown.append((title, message))
        preview_at_dialog.append(views(win).preview.views["skills"].stats.text())

    monkeypatch.setattr(ErrorDialog, "show", classmethod(show))
    damaged = tmp_path / "damaged.axmem"
    shutil.copyfile(sample_ws_path, damaged)
    with sqlite3.connect(damaged) as db:
        db.execute(
            "UPDATE memories SET tags = '[1, ' WHERE rowid = (SELECT min(rowid) FROM memories)"
        )
    db.close()
    win = make_window(damaged, features=RETRIEVAL_FEATURES)
    v = views(win)
    try:
        qtbot.waitUntil(lambda: bool(shown), timeout=10000)
        [(title, message)] = shown
        assert title == "Cannot index the catalog"
        assert "damaged" in message and "Traceback" not in message
        assert not v.state.ready
        # the status bar and the preview say why, and stay so (the status message went
        # after a few seconds, the preview said "indexing…" for ever)
        status = win.statusBar().currentMessage()
        assert status.startswith("Search unavailable:") and "damaged" in status
        assert v.state.failure == message
        stats = v.preview.views["skills"].stats.text()
        assert stats.startswith("search unavailable:") and "damaged" in stats
        # already when the (modal) dialog came up: it held the preview back until closed
        assert preview_at_dialog == [stats]
        # the long reason is elided there: it made the window 1,758 px wide
        assert win.minimumSizeHint().width() <= 1366
    finally:
        v.suites.runner.cancel()
