"""The Evals page: eval sets, their runs, and the selected run's figures; run a set on the
bundled local model or any provider (repeat, parallel runs, progress, cancel), compare two
runs with regressions flagged.

`EvalsFeature` (the feature, registered as `EVALS` in ui/wiring.py) fills the page, runs
evals through the task runner and tells the workspace controller when a run recorded
sessions (the Sessions page reloads)."""

from __future__ import annotations

from PySide6.QtCore import QItemSelection, QModelIndex, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QListView,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.errors import AxmemError
from axmem_gui.core.evals.compare import compare_reports, render_comparison, render_report
from axmem_gui.core.evals.report import EvalReport
from axmem_gui.engine.clients import CancelToken
from axmem_gui.engine.providers import ProviderSettings
from axmem_gui.services import evals
from axmem_gui.services.evals import MAX_PARALLEL
from axmem_gui.ui.evals.jobs import EvalOrder, eval_job
from axmem_gui.ui.evals.models import CaseStatsModel, EvalRole, EvalRunsModel, EvalSetListModel
from axmem_gui.ui.feature import Contributions, FeatureContext, FeatureSpec, PageSpec
from axmem_gui.ui.inert_text import plain_label
from axmem_gui.ui.pages import empty_state
from axmem_gui.ui.sessions.provider_form import LocalModelChoice, ProviderForm
from axmem_gui.ui.tasks import TaskRunner

EMPTY_TEXT = (
    "No eval sets yet — an eval set is a list of user requests with the skills and "
    "memories the model should load (and must not). Add one with `axmem eval add FILE.json`."
)
PROGRESS_STEPS = 1000


def _table(name: str) -> QTableView:
    view = QTableView()
    view.setObjectName(name)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setDefaultSectionSize(22)
    view.setWordWrap(False)
    header = view.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    header.setStretchLastSection(True)
    return view


class EvalsPage(QWidget):
    """The view; `EvalsFeature` below drives it."""

    def __init__(self, runner: TaskRunner) -> None:
        super().__init__()
        self.setObjectName("evalsPage")
        self.sets_model = EvalSetListModel()
        self.sets_view = QListView()
        self.sets_view.setObjectName("evalSets")
        self.sets_view.setModel(self.sets_model)
        self.sets_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.sets_view.setMaximumHeight(150)  # the run controls below stay in view
        self.runs_model = EvalRunsModel()
        self.runs_view = _table("evalRuns")
        self.runs_view.setModel(self.runs_model)
        self.runs_view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.runs_view.setToolTip("Select two runs and press Compare")
        for column, width in enumerate((210, 80, 220, 120, 70, 60)):
            self.runs_view.setColumnWidth(column, width)
        self.cases_model = CaseStatsModel()
        self.cases_view = _table("evalCases")
        self.cases_view.setModel(self.cases_model)
        for column, width in enumerate((170, 50, 90, 70, 90, 80, 260, 70)):
            self.cases_view.setColumnWidth(column, width)
        self.details = QPlainTextEdit()
        self.details.setObjectName("evalDetails")
        self.details.setReadOnly(True)
        self.details.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        mono = QFont("monospace")
        mono.setStyleHint(QFont.StyleHint.Monospace)
        self.details.setFont(mono)

        self.provider_form = ProviderForm(runner)
        self.local = LocalModelChoice(self.provider_form)
        self.local_check = self.local.check
        self.local_check.setObjectName("evalLocalModel")
        self.repeat = QSpinBox()
        self.repeat.setRange(0, 100)
        self.repeat.setSpecialValueText("as the set says")
        self.parallel = QSpinBox()
        self.parallel.setRange(1, MAX_PARALLEL)
        self.run_button = QPushButton("Run eval")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.compare_button = QPushButton("Compare")
        self.compare_button.setToolTip("Compare the two selected runs (older first)")
        self.progress = QProgressBar()
        self.progress.setRange(0, PROGRESS_STEPS)
        self.progress.setTextVisible(False)
        self.status = plain_label()
        self.status.setObjectName("evalStatus")
        self.status.setWordWrap(True)

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        title = plain_label("Trigger evals")
        title.setObjectName("sectionTitle")
        left_layout.addWidget(title)
        left_layout.addWidget(self.sets_view, 1)
        form = QFormLayout()
        form.addRow(self.local)
        form.addRow(self.provider_form)
        form.addRow("Runs per case", self.repeat)
        form.addRow("Runs at once", self.parallel)
        left_layout.addLayout(form)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        left_layout.addLayout(buttons)
        left_layout.addWidget(self.progress)
        left_layout.addWidget(self.status)

        runs_bar = QHBoxLayout()
        runs_title = plain_label("Runs of this set")
        runs_title.setObjectName("sectionTitle")
        runs_bar.addWidget(runs_title)
        runs_bar.addStretch(1)
        runs_bar.addWidget(self.compare_button)
        runs_box = QWidget()
        runs_layout = QVBoxLayout(runs_box)
        runs_layout.setContentsMargins(0, 0, 0, 0)
        runs_layout.addLayout(runs_bar)
        runs_layout.addWidget(self.runs_view)
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(runs_box)
        right.addWidget(self.cases_view)
        right.addWidget(self.details)
        right.setSizes([180, 200, 260])

        # The run controls scroll, so the page (and the window) fits a laptop screen.
        scroll = QScrollArea()
        scroll.setObjectName("evalControls")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(left)
        # The controls wrap and scroll down, never sideways: the pane is as wide as they
        # need (a laptop screen cut the Run button and the provider fields in half).
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        needed = left.sizeHint().width() + scroll.verticalScrollBar().sizeHint().width()
        scroll.setMinimumWidth(min(needed, 520))
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(scroll)
        split.addWidget(right)
        split.setStretchFactor(1, 1)
        split.setCollapsible(0, False)
        split.setSizes([min(needed, 520), 900])
        self.empty = empty_state(EMPTY_TEXT)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.empty)
        layout.addWidget(split, 1)
        self.body = split

    def set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        if running:
            self.progress.setValue(0)


class EvalsFeature:
    def __init__(self, context: FeatureContext) -> None:
        self.controller = controller = context.controller
        self.runner = runner = context.runner
        self.shell = context.shell
        #: Built when the page is first shown or read (`page`): the first paint waits
        #: for none of it (the provider form asks the OS keyring what it offers).
        self._page: EvalsPage | None = None
        self.job_id: int | None = None
        self.token: CancelToken | None = None
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
        return Contributions(pages=[PageSpec("evals", "Evals", build=lambda: self.page)])

    def shutdown(self) -> None:
        """The workspace is closing: stop the eval in progress (its finished runs stay)."""
        if self.token is not None:
            self.token.cancel()

    # data ---------------------------------------------------------------------------
    def selected_set(self) -> str | None:
        index = self.page.sets_view.currentIndex()
        return index.data(EvalRole.Name) if index.isValid() else None

    def reload(self) -> None:
        ws = self.controller.workspace
        current = self.selected_set()
        try:
            sets = evals.list_sets(ws)
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
        reports = evals.list_reports(self.controller.workspace, name) if name else []
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
        self.page.details.setPlainText(render_report(report))

    def compare_selected(self) -> None:
        chosen = self._selected_reports()
        if len(chosen) != 2:
            self.page.status.setText("Select two runs to compare.")
            return
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
        order = EvalOrder(self.controller.path, name, settings, repeat, self.page.parallel.value())
        self.token = CancelToken()
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
        if not self._end(job_id) or not isinstance(result, EvalReport):
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


EVALS = FeatureSpec("evals", EvalsFeature)
