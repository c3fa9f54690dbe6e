"""The Evals page: eval sets, their runs, and the selected run's figures; run a set on the
bundled local model or any provider (repeat, parallel runs, progress, cancel), compare two
runs with regressions flagged.

`EvalsFeature` (ui/evals/feature.py, registered as `EVALS` in ui/wiring.py) builds this page
when it is first shown and fills it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QListView,
    QListWidget,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableView,
    QTabWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.services.eval_running import MAX_PARALLEL
from axmem_gui.ui.evals.matrix import EvalMatrixModel
from axmem_gui.ui.evals.models import CaseStatsModel, EvalRunsModel, EvalSetListModel
from axmem_gui.ui.evals.run_pane import WholeBelow
from axmem_gui.ui.fitted_columns import FittedColumns
from axmem_gui.ui.inert_text import plain_label
from axmem_gui.ui.pages import empty_state
from axmem_gui.ui.sessions.provider_form import LocalModelChoice, ProviderForm
from axmem_gui.ui.tasks import TaskRunner

EMPTY_TEXT = (
    "No eval sets yet — an eval set is a list of user requests with the skills and "
    "memories the model should load (and must not). Press New set… to write one, or add a "
    "JSON file with `axmem eval add FILE.json`."
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
        # Within the view's width (fixed widths gave both tables a horizontal scroll bar).
        FittedColumns(self.runs_view, flexible=(2, 0, 6))
        self.set_bar = QToolBar()
        self.set_bar.setObjectName("evalSetBar")
        self.case_list = QListWidget()
        self.case_list.setObjectName("evalSetCases")
        self.case_list.setMaximumHeight(130)
        self.case_list.setToolTip("The cases of the selected set (double-click to edit)")
        self.case_bar = QToolBar()
        self.case_bar.setObjectName("evalCaseBar")
        self.matrix_model = EvalMatrixModel()
        self.matrix_view = QTableView()
        self.matrix_view.setObjectName("evalMatrix")
        self.matrix_view.setModel(self.matrix_model)
        self.matrix_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.matrix_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.matrix_view.setWordWrap(False)
        self.matrix_view.verticalHeader().setDefaultSectionSize(22)
        self.matrix_view.horizontalHeader().setDefaultSectionSize(110)
        self.matrix_view.setToolTip(
            "A row per run, a column per case: ✓ hit, ✗ miss, ▼ regression (it passed in "
            "the run above). Double-click a cell to open its session."
        )
        self.cases_model = CaseStatsModel()
        self.cases_view = _table("evalCases")
        self.cases_view.setModel(self.cases_model)
        FittedColumns(self.cases_view, flexible=(6, 0))
        self.details = QPlainTextEdit()
        self.details.setObjectName("evalDetails")
        self.details.setReadOnly(True)
        self.details.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        mono = QFont("monospace")
        mono.setStyleHint(QFont.StyleHint.Monospace)
        self.details.setFont(mono)

        self.provider_form = ProviderForm(runner)
        self.local = LocalModelChoice(self.provider_form, compact=True)
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
        left_layout.addWidget(self.set_bar)
        cases_title = plain_label("Cases of this set")
        cases_title.setObjectName("sectionTitle")
        left_layout.addWidget(cases_title)
        left_layout.addWidget(self.case_list)
        left_layout.addWidget(self.case_bar)
        run_box = QWidget()
        run_box.setObjectName("evalRunBox")
        run_layout = QVBoxLayout(run_box)
        run_layout.setContentsMargins(0, 0, 0, 0)
        form = QFormLayout()
        form.addRow(self.local)
        form.addRow(self.provider_form)
        runs = QHBoxLayout()
        runs.addWidget(self.repeat, 1)
        runs.addWidget(plain_label("at once"))
        runs.addWidget(self.parallel)
        form.addRow("Runs per case", runs)
        run_layout.addLayout(form)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.progress, 1)  # beside the buttons: a row less to fit
        run_layout.addLayout(buttons)
        run_layout.addWidget(self.status)
        run_layout.addStretch(1)
        # The run controls are shown whole: the lists above give up their room first
        # (on a laptop the provider form ran off the bottom of the page).
        column = WholeBelow(left, run_box)
        column.setObjectName("evalControls")
        self.controls = column
        self.run_box = run_box

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
        matrix_box = QWidget()
        matrix_layout = QVBoxLayout(matrix_box)
        matrix_layout.setContentsMargins(0, 0, 0, 0)
        matrix_title = plain_label("Runs × cases")
        matrix_title.setObjectName("sectionTitle")
        matrix_layout.addWidget(matrix_title)
        matrix_layout.addWidget(self.matrix_view)
        self.run_tabs = QTabWidget()
        self.run_tabs.setObjectName("evalRunTabs")
        self.run_tabs.addTab(self.cases_view, "Selected run")
        self.run_tabs.addTab(self.details, "Report text")
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(runs_box)
        right.addWidget(matrix_box)
        right.addWidget(self.run_tabs)
        right.setSizes([140, 240, 220])

        # The pane is as wide as the controls need (a laptop screen cut the Run button
        # and the provider fields in half).
        needed = run_box.sizeHint().width() + column.area.verticalScrollBar().sizeHint().width()
        column.setMinimumWidth(min(needed, 520))
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(column)
        split.addWidget(right)
        split.setStretchFactor(1, 1)
        split.setCollapsible(0, False)
        split.setSizes([min(needed, 520), 900])
        self.empty_new_button = QPushButton("New set…")
        self.empty_new_button.setObjectName("evalEmptyNew")
        self.empty = QWidget()
        empty_layout = QVBoxLayout(self.empty)
        empty_layout.addStretch(1)
        empty_layout.addWidget(empty_state(EMPTY_TEXT))
        empty_layout.addWidget(self.empty_new_button, 0, Qt.AlignmentFlag.AlignHCenter)
        empty_layout.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.empty, 1)
        layout.addWidget(split, 1)
        self.body = split

    def set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        if running:
            self.progress.setValue(0)
