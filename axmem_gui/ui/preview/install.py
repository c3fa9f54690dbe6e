"""Installs the retrieval views into the main window: the prompt preview dock, the
retrieval bench dock, the scenarios and suites pages, and the Run menu entries."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QLabel, QWidget

from axmem_gui.ui.bench.panel import BenchPanel
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.preview.live import RetrievalState
from axmem_gui.ui.preview.panel import PreviewPanel
from axmem_gui.ui.scenarios.page import ScenariosPage
from axmem_gui.ui.suites.page import SuitesPage

BENCH_HEIGHT = 280
PREVIEW_WIDTH = 470
RUN_SHORTCUTS = (QKeySequence("Ctrl+Return"), QKeySequence("Ctrl+Enter"))


@dataclass
class RetrievalViews:
    state: RetrievalState
    preview: PreviewPanel
    bench: BenchPanel
    scenarios: ScenariosPage
    suites: SuitesPage
    run_suite_action: QAction
    run_bench_action: QAction
    suite_status: QLabel

    def shutdown(self) -> None:
        """Stop every pending refresh and run: the window is closing, and its workspace
        may be closed before the widgets are deleted."""
        self.state.stop()
        self.preview.stop()
        self.suites.stop()


class _CloseWatcher(QObject):
    def __init__(self, views: RetrievalViews, parent: QObject) -> None:
        super().__init__(parent)
        self._views = views

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Close:
            self._views.shutdown()
        return False


def _replace_page(window: MainWindow, key: str, page: QWidget) -> None:
    old = window.pages[key]
    index = window.stack.indexOf(old)
    was_current = window.stack.currentWidget() is old
    window.stack.insertWidget(index, page)
    window.stack.removeWidget(old)
    old.deleteLater()
    window.pages[key] = page
    if was_current:
        window.stack.setCurrentWidget(page)


def _show_dock(dock: QDockWidget) -> None:
    dock.show()
    dock.raise_()


def install_retrieval_views(window: MainWindow) -> RetrievalViews:
    state = RetrievalState(window.controller, parent=window, runner=window.task_runner)
    editing = getattr(window, "catalog_editing", None)
    if editing is not None:
        state.watch_edits(editing.session)

    preview = PreviewPanel(state)
    window.set_dock_content(window.preview_dock, preview)
    bench = BenchPanel(state)
    window.set_dock_content(window.bench_dock, bench)

    scenarios = ScenariosPage(state, window.undo_stack)
    _replace_page(window, "scenarios", scenarios)
    # The window reloads these pages on workspace changes through these attributes.
    window.scenarios_page = scenarios  # type: ignore[assignment]
    suites = SuitesPage(state, window.undo_stack)
    _replace_page(window, "suites", suites)
    window.suites_page = suites  # type: ignore[assignment]

    def message(text: str) -> None:
        window.statusBar().showMessage(text, 6000)

    scenarios.message.connect(message)
    suites.message.connect(message)

    def preview_scenario(name: object, turn: int) -> None:
        preview.show_scenario(None if name is None else str(name), turn)
        _show_dock(window.preview_dock)

    scenarios.preview_requested.connect(preview_scenario)

    def open_in_bench(kind: str, searches: list[str], loaded: list[str]) -> None:
        bench.set_kind("recall" if kind == "recall" else "discover")
        bench.set_searches(searches)
        bench.set_loaded(loaded)
        _show_dock(window.bench_dock)
        bench.run()

    suites.bench_requested.connect(open_in_bench)

    def add_case(kind: str, searches: list[str], loaded: list[str], returned: list[str]) -> None:
        suites.add_case_from_bench(kind, searches, loaded, returned)

    bench.add_case_requested.connect(add_case)

    def on_regressions(count: int) -> None:
        window.nav_model.set_badge("suites", "!" if count else "")

    suites.regressions_changed.connect(on_regressions)
    suite_status = QLabel()
    suite_status.setObjectName("suiteStatus")
    window.statusBar().addPermanentWidget(suite_status)
    suites.summary_changed.connect(suite_status.setText)

    run_suite = QAction("Run Suites", window)
    run_suite.setShortcuts(list(RUN_SHORTCUTS))
    run_suite.setToolTip("Run every retrieval suite and record the run (Ctrl+Enter)")
    run_suite.triggered.connect(lambda _checked=False: suites.run(record=True))
    run_bench = QAction("Run Bench", window)
    run_bench.setToolTip("Run the retrieval bench (Ctrl+Enter while in the bench)")

    def do_run_bench(_checked: bool = False) -> None:
        _show_dock(window.bench_dock)
        bench.run()

    run_bench.triggered.connect(do_run_bench)
    window.run_menu.addAction(run_suite)
    window.run_menu.addAction(run_bench)

    views = RetrievalViews(
        state, preview, bench, scenarios, suites, run_suite, run_bench, suite_status
    )
    window.retrieval_views = views  # type: ignore[attr-defined]
    window.installEventFilter(_CloseWatcher(views, window))
    if window.settings.window_state() is None:
        # First start: the bench gets a strip at the bottom, the pages keep most height.
        window.resizeDocks([window.bench_dock], [BENCH_HEIGHT], Qt.Orientation.Vertical)
        window.resizeDocks([window.preview_dock], [PREVIEW_WIDTH], Qt.Orientation.Horizontal)
    return views
