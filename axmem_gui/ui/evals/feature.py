"""The Evals feature: fills the Evals page (built when first shown), runs evals through the
task runner and tells the workspace controller when a run recorded sessions (the Sessions
page reloads).

The page, the evals service and the engine behind it (axllm) are imported when the page is
first built or a run starts, not when the window is wired: the first paint waits for none
of them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QItemSelection, QModelIndex

from axmem_gui.core.errors import AxmemError
from axmem_gui.ui.feature import Contributions, FeatureContext, FeatureSpec, PageSpec

if TYPE_CHECKING:
    from axmem_gui.core.cancel import CancelFlag
    from axmem_gui.core.evals.report import EvalReport
    from axmem_gui.core.providers import ProviderSettings
    from axmem_gui.ui.evals.page import EvalsPage


class EvalsFeature:
    def __init__(self, context: FeatureContext) -> None:
        self.controller = controller = context.controller
        self.runner = runner = context.runner
        self.shell = context.shell
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
        self.reload()
        return p

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

    def reload(self) -> None:
        current = self.selected_set()
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
        self.job_id = self.runner.submit(eval_job(order, self.token))
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

    def index_of_set(self, name: str) -> QModelIndex:
        names = [s.name for s in self.page.sets_model.sets]
        return self.page.sets_model.index(names.index(name))


def prepare_page() -> None:
    """The page's modules (the evals service, the engine and axllm behind it) and what its
    provider form reads, on a job before the first build (PageSpec.prepare)."""
    from axmem_gui.ui.evals import page  # noqa: F401  (imported for its side: loaded)
    from axmem_gui.ui.sessions.provider_form import prepare_provider_form

    prepare_provider_form()


EVALS = FeatureSpec("evals", EvalsFeature)
