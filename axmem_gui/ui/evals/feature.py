"""The Evals feature: fills the Evals page (built when first shown), runs evals through the
task runner and tells the workspace controller when a run recorded sessions (the Sessions
page reloads).

The page, the evals service and the engine behind it (axllm) are imported when the page is
first built or a run starts, not when the window is wired: the first paint waits for none
of them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QItemSelection, QModelIndex, Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QToolBar

from axmem_gui.core.errors import AxmemError
from axmem_gui.ui.actions import make_action
from axmem_gui.ui.feature import Contributions, FeatureContext, FeatureSpec, PageSpec
from axmem_gui.ui.sessions.controller import SESSIONS

if TYPE_CHECKING:
    from axmem_gui.core.cancel import CancelFlag
    from axmem_gui.core.evals.model import EvalCase, EvalSet
    from axmem_gui.core.evals.report import EvalReport
    from axmem_gui.core.providers import ProviderSettings
    from axmem_gui.ui.evals.page import EvalsPage
    from axmem_gui.ui.sessions.controller import SessionsFeature


class EvalsFeature:
    def __init__(self, context: FeatureContext) -> None:
        self.controller = controller = context.controller
        self.runner = runner = context.runner
        self.agent_runs = context.agents
        self.shell = context.shell
        self.undo_stack = context.undo_stack
        self.sessions: SessionsFeature = context.need(SESSIONS)
        #: Built when the page is first shown or read (`page`): the first paint waits
        #: for none of it (the provider form asks the OS keyring what it offers).
        self._page: EvalsPage | None = None
        self.job_id: int | None = None
        self.token: CancelFlag | None = None
        self.reports: list[EvalReport] = []
        runner.progressed.connect(self._on_progress)
        runner.finished.connect(self._on_finished)
        runner.failed.connect(self._on_failed)
        runner.cancelled.connect(self._on_cancelled)
        controller.opened.connect(self._on_opened)
        controller.changed.connect(self._on_changed)

    @property
    def page(self) -> EvalsPage:
        if self._page is None:
            self._page = self._build_page()
        return self._page

    def _build_page(self) -> EvalsPage:
        from axmem_gui.ui.evals.page import EvalsPage

        self._page = p = EvalsPage(self.runner)
        p.sets_view.selectionModel().selectionChanged.connect(self._on_set)
        p.runs_view.selectionModel().selectionChanged.connect(self._on_run)
        p.run_button.clicked.connect(self.run_selected)
        p.cancel_button.clicked.connect(self.cancel)
        p.compare_button.clicked.connect(self.compare_selected)
        p.local.set_checked(p.local.ready)
        from axmem_gui.ui.evals.authoring import EvalAuthoring

        self.authoring = a = EvalAuthoring(
            self.controller,
            self.undo_stack,
            lambda: self.shell.dialog_parent,
            self.current,
            self.focus,
            p.status.setText,
        )
        add = self._add
        self.new_set_action = add(p.set_bar, "New set…", a.new_set, "Write a new eval set")
        self.edit_set_action = add(p.set_bar, "Edit…", a.edit_set, "Rename the set, its agent…")
        self.delete_set_action = add(
            p.set_bar, "Delete", a.delete_set, "Delete the set (Ctrl+Z brings it back)"
        )
        self.new_case_action = add(p.case_bar, "New case…", a.new_case, "Add a case to the set")
        self.edit_case_action = add(p.case_bar, "Edit…", a.edit_case, "Change the selected case")
        self.delete_case_action = add(
            p.case_bar, "Delete", a.delete_case, "Delete the case (Ctrl+Z brings it back)"
        )
        self.move_up_action = add(
            p.case_bar, "Move up", lambda: a.move_case(-1), "Move the case up (Alt+Up in the list)"
        )
        self.move_down_action = add(
            p.case_bar,
            "Move down",
            lambda: a.move_case(1),
            "Move the case down (Alt+Down in the list)",
        )
        for keys, action in (("Alt+Up", self.move_up_action), ("Alt+Down", self.move_down_action)):
            # Only while the case list has the focus: elsewhere the keys stay free.
            shortcut = QShortcut(QKeySequence(keys), p.case_list)
            shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
            shortcut.activated.connect(action.trigger)
        p.empty_new_button.clicked.connect(a.new_set)
        p.case_list.itemDoubleClicked.connect(lambda _item: a.edit_case())
        p.case_list.currentRowChanged.connect(lambda _row: self._update_actions())
        p.matrix_view.doubleClicked.connect(self.open_cell_session)
        self.reload()
        return p

    def _add(self, bar: QToolBar, text: str, slot: Callable[[], object], tip: str) -> QAction:
        action = make_action(bar, text, slot, tip=tip)
        bar.addAction(action)
        return action

    def _update_actions(self) -> None:
        writable = not self.controller.read_only
        eval_set, case = self.current()
        self.new_set_action.setEnabled(writable)
        self.page.empty_new_button.setEnabled(writable)
        for action in (self.edit_set_action, self.delete_set_action, self.new_case_action):
            action.setEnabled(writable and eval_set is not None)
        for action in (self.edit_case_action, self.delete_case_action):
            action.setEnabled(writable and case is not None)
        row = -1 if eval_set is None or case is None else eval_set.cases.index(case)
        self.move_up_action.setEnabled(writable and row > 0)
        self.move_down_action.setEnabled(
            writable and eval_set is not None and 0 <= row < len(eval_set.cases) - 1
        )

    def contributions(self) -> Contributions:
        return Contributions(
            pages=[PageSpec("evals", "Evals", build=lambda: self.page, prepare=prepare_page)]
        )

    def shutdown(self) -> None:
        """The workspace is closing: stop the eval in progress (its finished runs stay)."""
        if self.token is not None:
            self.token.cancel()

    # data ---------------------------------------------------------------------------
    def selected_set(self) -> str | None:
        index = self.page.sets_view.currentIndex()
        from axmem_gui.ui.evals.models import EvalRole

        return index.data(EvalRole.Name) if index.isValid() else None

    def current(self) -> tuple[EvalSet | None, EvalCase | None]:
        """The selected set and the selected case of it (as the page shows them)."""
        index = self.page.sets_view.currentIndex()
        sets = self.page.sets_model.sets
        if not index.isValid() or not 0 <= index.row() < len(sets):
            return None, None
        eval_set = sets[index.row()]
        row = self.page.case_list.currentRow()
        case = eval_set.cases[row] if 0 <= row < len(eval_set.cases) else None
        return eval_set, case

    def focus(self, set_name: str | None, case_name: str | None) -> None:
        """After a change or its undo: the page shows the store, `set_name` and
        `case_name` selected (when they are there)."""
        self.reload(set_name)
        eval_set, _case = self.current()
        if eval_set is not None and case_name is not None:
            names = [c.name for c in eval_set.cases]
            if case_name in names:
                self.page.case_list.setCurrentRow(names.index(case_name))

    def reload(self, select: str | None = None) -> None:
        current = select or self.selected_set()
        try:
            sets = self.controller.workspace.evals.sets()
        except AxmemError as exc:
            sets = []
            self.page.status.setText(str(exc))
        self.page.sets_model.set_sets(sets)
        self.page.empty.setVisible(not sets)
        self.page.body.setVisible(bool(sets))
        names = [s.name for s in sets]
        row = names.index(current) if current in names else 0
        if sets:
            self.page.sets_view.setCurrentIndex(self.page.sets_model.index(row))
        self._load_runs()

    def _on_opened(self) -> None:
        if self._page is not None:  # otherwise the page loads when it is built
            self.reload()

    def _on_changed(self, what: str) -> None:
        if what in ("*", "evals") and self._page is not None:
            self.reload()

    def _load_runs(self) -> None:
        name = self.selected_set()
        reports = self.controller.workspace.evals.reports(name) if name else []
        self.reports = reports
        eval_set, _case = self.current()
        case_row = self.page.case_list.currentRow()
        self.page.case_list.clear()
        if eval_set is not None:
            self.page.case_list.addItems([c.name for c in eval_set.cases])
            self.page.case_list.setCurrentRow(min(max(case_row, 0), len(eval_set.cases) - 1))
        self.page.matrix_model.set_reports(reports, eval_set)
        self.page.matrix_view.resizeColumnsToContents()
        self.page.matrix_view.scrollToBottom()
        self._update_actions()
        self.page.runs_model.set_reports(reports)
        if reports:
            self.page.runs_view.selectRow(len(reports) - 1)
        else:
            self.page.cases_model.set_cases([])
            self.page.details.setPlainText("No run yet: press Run eval.")

    def _on_set(self, *_: QItemSelection) -> None:
        self._load_runs()

    def _selected_reports(self) -> list[EvalReport]:
        rows = sorted({i.row() for i in self.page.runs_view.selectionModel().selectedRows()})
        return [self.reports[r] for r in rows if 0 <= r < len(self.reports)]

    def _on_run(self, *_: QItemSelection) -> None:
        chosen = self._selected_reports()
        if chosen:
            self.show_report(chosen[-1])

    def show_report(self, report: EvalReport) -> None:
        self.page.cases_model.set_cases(report.cases())
        from axmem_gui.core.evals.compare import render_report

        self.page.details.setPlainText(render_report(report))

    def open_cell_session(self, index: QModelIndex) -> bool:
        """A double click on a cell of the matrix: the session of that case's first run
        in that eval run, on the Sessions page."""
        from axmem_gui.ui.evals.matrix import MatrixRole

        session_id = index.data(MatrixRole.SessionId)
        if not session_id:
            self.page.status.setText("No recorded session for this cell.")
            return False
        self.shell.show_section("sessions")
        return self.sessions.open_session(session_id) is not None

    def compare_selected(self) -> None:
        chosen = self._selected_reports()
        if len(chosen) != 2:
            self.page.status.setText("Select two runs to compare.")
            return
        from axmem_gui.core.evals.compare import compare_reports, render_comparison

        comparison = compare_reports(chosen[0], chosen[1])
        self.page.details.setPlainText(render_comparison(comparison))
        count = len(comparison.regressions)
        self.page.status.setText(f"{count} regression(s)" if count else "no regression")

    # running ------------------------------------------------------------------------
    def settings(self) -> ProviderSettings:
        return self.page.local.settings()

    def run_selected(self) -> int | None:
        name = self.selected_set()
        if name is None or self.job_id is not None:
            return None
        try:
            settings = self.settings()
        except AxmemError as exc:
            self.page.status.setText(str(exc))
            return None
        repeat = self.page.repeat.value() or None
        from axmem_gui.core.cancel import CancelFlag
        from axmem_gui.ui.evals.jobs import EvalOrder, eval_job

        address = self.controller.workspace.address
        order = EvalOrder(address, name, settings, repeat, self.page.parallel.value())
        self.token = CancelFlag()
        self.job_id = self.runner.submit(eval_job(order, self.token, self.agent_runs), waits=True)
        self.page.set_running(True)
        self.page.status.setText("starting…")
        return self.job_id

    def cancel(self) -> None:
        if self.token is not None:
            self.token.cancel()  # finished runs are kept; the report says "cancelled"
            self.page.status.setText("cancelling…")

    def _on_progress(self, job_id: int, fraction: float, message: str) -> None:
        if job_id == self.job_id:
            from axmem_gui.ui.evals.page import PROGRESS_STEPS

            self.page.progress.setValue(round(fraction * PROGRESS_STEPS))
            self.page.status.setText(message)

    def _end(self, job_id: int) -> bool:
        if job_id != self.job_id:
            return False
        self.job_id = None
        self.token = None
        self.page.set_running(False)
        self.controller.notify_changed("sessions")
        return True

    def _on_finished(self, job_id: int, result: object) -> None:
        if not self._end(job_id):
            return
        from axmem_gui.core.evals.report import EvalReport

        if not isinstance(result, EvalReport):
            return
        totals = result.totals()
        self.page.status.setText(
            f"{result.status}: {totals['counted']} counted, {totals['failed']} failed, "
            f"{totals['cancelled']} cancelled, {totals['not_run']} not run"
        )
        self._load_runs()
        self.show_report(result)

    def _on_failed(self, job_id: int, message: str) -> None:
        if self._end(job_id):
            self.page.status.setText(message)
            self._load_runs()

    def _on_cancelled(self, job_id: int) -> None:
        if self._end(job_id):
            self.page.status.setText("cancelled")
            self._load_runs()


def prepare_page() -> None:
    """The page's modules (the evals service, the engine and axllm behind it) and what its
    provider form reads, on a job before the first build (PageSpec.prepare)."""
    from axmem_gui.ui.evals import page  # noqa: F401  (imported for its side: loaded)
    from axmem_gui.ui.sessions.provider_form import prepare_provider_form

    prepare_provider_form()


EVALS = FeatureSpec("evals", EvalsFeature, needs=(SESSIONS,))
