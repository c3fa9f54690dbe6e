"""The suites page: each suite with its result, the selected suite's cases (pass / fail /
regressed, recall@k, reciprocal rank, why a case fails), Run suites (Ctrl+Enter) and JUnit export.
Suites and cases are authored here (new, edit, duplicate, delete, import, export), each an
undoable command through the suites service; the bench adds cases with "Add as case…".

Suites rerun by themselves shortly after every catalog edit (not recorded); a case that
passed in the baseline run and fails now is a regression, flagged here and, through
`regressions_changed`, in the navigator. Run records the run, which becomes the baseline.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QUndoStack
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QListView,
    QProgressBar,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableView,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.errors import AxmemError
from axmem_gui.core.suites import Suite
from axmem_gui.core.wording import counted
from axmem_gui.services.suites import SuiteOutcome, write_junit
from axmem_gui.ui import file_dialogs
from axmem_gui.ui.actions import make_action
from axmem_gui.ui.fitted_columns import FittedColumns
from axmem_gui.ui.inert_text import plain_label
from axmem_gui.ui.pages import empty_state
from axmem_gui.ui.resources import style_leaves
from axmem_gui.ui.retrieval.state import RetrievalState
from axmem_gui.ui.suites.authoring import SuiteAuthoring
from axmem_gui.ui.suites.models import CaseTableModel, SuiteEntry, SuiteListModel, SuiteRole
from axmem_gui.ui.suites.runner import SuiteRunner

#: Suites rerun this long after the last catalog edit of a burst.
RERUN_DEBOUNCE_MS = 300
EMPTY_TEXT = (
    "No suites yet — a suite holds cases: search strings with the ids that must (and must "
    "not) load. Click New suite, then add cases here or from the retrieval bench (Add as "
    "case…), and they run after every catalog edit. Suite JSON files come in with Import "
    "suites… (or `axmem suite import FILE`)."
)


class JunitDialog:
    """Asks where to write the JUnit report; tests replace `ask`."""

    @classmethod
    def ask(cls, parent: QWidget, start: str) -> Path | None:
        path, _ = file_dialogs.get_save_file_name(
            parent, "Export JUnit report", start, "JUnit XML (*.xml)"
        )
        return Path(path) if path else None


class SuitesPage(SuiteAuthoring, QWidget):
    message = Signal(str)
    regressions_changed = Signal(int)
    summary_changed = Signal(str)
    #: kind, search strings, loaded ids: open a case in the retrieval bench.
    bench_requested = Signal(str, list, list)

    def __init__(self, state: RetrievalState, undo_stack: QUndoStack | None = None) -> None:
        super().__init__()
        self.setObjectName("suitesPage")
        self.state = state
        self.controller = state.controller
        self.undo_stack = undo_stack if undo_stack is not None else QUndoStack(self)
        self.runner = SuiteRunner(state, self)
        self.outcomes: dict[str, SuiteOutcome] = {}

        self.list_model = SuiteListModel()
        self.list_view = QListView()
        self.list_view.setObjectName("suiteList")
        self.list_view.setModel(self.list_model)
        self.list_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        heading = plain_label("Retrieval suites")
        heading.setObjectName("sectionTitle")
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(heading)
        self.suite_bar = self._toolbar()
        left_layout.addWidget(self.suite_bar)
        left_layout.addWidget(self.list_view, 1)

        self.summary_label = plain_label()
        self.summary_label.setObjectName("suiteSummary")
        self.summary_label.setWordWrap(True)
        self.run_button = QPushButton("Run suites  (Ctrl+Enter)")
        self.run_button.setObjectName("suitesRun")
        self.run_button.setToolTip("Run every suite now and record the run as the baseline")
        self.junit_button = QPushButton("Export JUnit…")
        self.auto_check = QCheckBox("Rerun after catalog edits")
        self.auto_check.setChecked(True)
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(160)
        self.progress.setVisible(False)
        self.cases_model = CaseTableModel()
        self.cases_view = QTableView()
        self.cases_view.setObjectName("casesTable")
        self.cases_view.setModel(self.cases_model)
        self.cases_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.cases_view.verticalHeader().setVisible(False)
        self.cases_view.verticalHeader().setDefaultSectionSize(22)
        self.cases_view.setWordWrap(False)
        self.cases_view.setToolTip("Double-click a case to open it in the retrieval bench")
        # Within the view's width (fixed widths gave it a horizontal scroll bar): the
        # long texts give way, the last column ("why it fails") takes what is left.
        FittedColumns(self.cases_view, flexible=(7, 3, 4, 5, 1))
        bar = QHBoxLayout()
        bar.addWidget(self.run_button)
        bar.addWidget(self.junit_button)
        bar.addWidget(self.auto_check)
        bar.addStretch(1)
        bar.addWidget(self.progress)
        self.case_bar = self._toolbar()
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addLayout(bar)
        right_layout.addWidget(self.case_bar)
        right_layout.addWidget(self.summary_label)
        right_layout.addWidget(self.cases_view, 1)
        self.case_detail = plain_label()
        self.case_detail.setObjectName("caseDetail")
        self.case_detail.setWordWrap(True)
        self.case_detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        right_layout.addWidget(self.case_detail)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.setChildrenCollapsible(False)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(1, 1)
        # Wide enough for the suite actions (New, Edit, Duplicate, Delete, More).
        left.setMinimumWidth(self.fontMetrics().horizontalAdvance("M" * 22))
        split.setSizes([300, 900])
        self.empty = self._empty_page()
        self.stack = QStackedWidget()
        self.stack.addWidget(split)
        self.stack.addWidget(self.empty)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.stack)

        self._rerun_timer = QTimer(self)
        self._rerun_timer.setSingleShot(True)
        self._rerun_timer.setInterval(RERUN_DEBOUNCE_MS)
        self._rerun_timer.timeout.connect(self.rerun)

        self.run_button.clicked.connect(lambda _checked=False: self.run(record=True))
        self.junit_button.clicked.connect(lambda _checked=False: self.export_junit())
        self.list_view.selectionModel().currentChanged.connect(lambda *_: self._show_current())
        self.cases_view.doubleClicked.connect(self._open_in_bench)
        self.cases_view.selectionModel().currentRowChanged.connect(
            lambda *_: self._show_case_detail()
        )
        self._build_actions()
        self.runner.progressed.connect(self._on_progress)
        self.runner.finished.connect(self._on_finished)
        state.changed.connect(self._on_catalog_changed)
        self.controller.changed.connect(self._on_workspace_changed)
        self.reload()
        self.rerun()
        # Styled per widget, not as a container (see `style_leaves`).
        style_leaves(self, "retrieval")

    # construction -------------------------------------------------------------------
    @staticmethod
    def _toolbar() -> QToolBar:
        bar = QToolBar()
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        bar.setIconSize(QSize(1, 1))
        return bar

    def _empty_page(self) -> QWidget:
        page = QWidget()
        page.setObjectName("suitesEmpty")
        text = empty_state(EMPTY_TEXT)
        self.empty_new_button = QPushButton("New suite…")
        self.empty_new_button.setObjectName("emptyNewSuite")
        self.empty_new_button.clicked.connect(lambda _c=False: self.new_suite())
        self.empty_import_button = QPushButton("Import suites…")
        self.empty_import_button.clicked.connect(lambda _c=False: self.import_suites())
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.empty_new_button)
        buttons.addWidget(self.empty_import_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(page)
        layout.addStretch(1)
        layout.addWidget(text)
        layout.addLayout(buttons)
        layout.addStretch(2)
        return page

    def _add(self, bar: QToolBar, text: str, slot: Callable[[], object], tip: str) -> QAction:
        action = make_action(self, text, slot, tip=tip)
        bar.addAction(action)
        return action

    # suites -------------------------------------------------------------------------
    def _read_suites(self) -> list[SuiteEntry]:
        return [
            SuiteEntry(e.name, e.suite, e.problem, self.outcomes.get(e.name))
            for e in self.controller.workspace.suites.entries()
        ]

    def suites(self) -> list[Suite]:
        return [e.suite for e in self.list_model.entries() if e.suite is not None]

    def reload(self) -> None:
        current = self.current_name()
        entries = self._read_suites()
        self.list_model.set_entries(entries)
        self.stack.setCurrentIndex(0 if entries else 1)
        names = [e.name for e in entries]
        if names and current not in names:
            current = names[0]
        if current is not None and current in names:
            index = self.list_model.index(names.index(current))
            if self.list_view.currentIndex() != index:
                self.list_view.selectionModel().setCurrentIndex(
                    index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                )
        self._show_current()

    def current_name(self) -> str | None:
        index = self.list_view.currentIndex()
        value = index.data(SuiteRole.Name) if index.isValid() else None
        return None if value is None else str(value)

    def select(self, name: str) -> None:
        for row, entry in enumerate(self.list_model.entries()):
            if entry.name == name:
                self.list_view.selectionModel().setCurrentIndex(
                    self.list_model.index(row), QItemSelectionModel.SelectionFlag.ClearAndSelect
                )

    def _show_current(self) -> None:
        name = self.current_name()
        entry = next((e for e in self.list_model.entries() if e.name == name), None)
        if entry is None:
            self.cases_model.set_suite(None, None)
            self.summary_label.setText("")
            self._update_actions()
            return
        keep = self.current_case()
        self.cases_model.set_suite(entry.suite, entry.outcome)
        if keep is not None:
            self.select_case(keep.name)
        self.summary_label.setText(self._summary_text(entry))
        self._show_case_detail()
        self._update_actions()

    def _show_case_detail(self) -> None:
        """The selected case (or the first failing one): why it fails, what came back."""
        model = self.cases_model
        row = self.cases_view.currentIndex().row()
        if not 0 <= row < model.rowCount():
            row = next(
                (r for r in range(model.rowCount()) if model.status(r) in ("regressed", "fail")),
                -1,
            )
        self._update_actions()
        if row < 0:
            self.case_detail.setText(
                "No cases yet: New case…, or Add as case… in the retrieval bench."
                if model.rowCount() == 0
                else "Double-click a case to open it in the retrieval bench."
            )
            return
        case = model.case(row)
        reasons = model.index(row, 10).data() or ""
        returned = model.index(row, 7).data() or ""
        status = {
            "regressed": "regressed (passed in the baseline run)",
            "fail": "fails",
            "pass": "passes",
            "": "not run",
        }[model.status(row)]
        text = f"{case.name}: {status}."
        if reasons:
            text += f" {reasons}."
        if returned:
            text += f" Returned: {returned}."
        if case.note:
            text += f" Note: {case.note}"
        self.case_detail.setText(text + "  (Double-click to open it in the bench.)")

    @staticmethod
    def _summary_text(entry: SuiteEntry) -> str:
        if entry.suite is None:
            return entry.error
        if not entry.suite.cases:
            return "No cases yet — add one with New case…, or from the bench (Add as case…)."
        if entry.outcome is None:
            cases = len(entry.suite.cases)
            return f"{counted(cases, 'case')} — not run yet (Ctrl+Enter)"
        result = entry.outcome.result
        s = result.summary
        text = f"{s.passed}/{s.total} passed"
        if s.mean_recall_at_k is not None:
            text += f" · recall@k {s.mean_recall_at_k:.3f}"
        if s.mrr is not None:
            text += f" · MRR {s.mrr:.3f}"
        text += f" · {result.engine}"
        comparison = entry.outcome.comparison
        if comparison is not None:
            if comparison.regressions:
                text += f" · {len(comparison.regressions)} regressed: " + ", ".join(
                    comparison.regressions
                )
            if comparison.fixed:
                text += f" · fixed: {', '.join(comparison.fixed)}"
        return text

    # running ------------------------------------------------------------------------
    def run(self, *, record: bool = True) -> None:
        """Run every valid suite over the current catalog (Ctrl+Enter records it)."""
        if not self.state.usable():
            return
        if self.state.pending:
            self.state.refresh_now()  # run over the catalog as it is now
        suites = self.suites()
        if not suites:
            self.message.emit("No suites to run — add one first.")
            return
        self.progress.setVisible(True)
        self.progress.setRange(0, max(1, sum(len(s.cases) for s in suites)))
        self.progress.setValue(0)
        self.runner.start(suites, record=record)

    def stop(self) -> None:
        """Drop a pending rerun and cancel the run in progress (the window is closing)."""
        self._rerun_timer.stop()
        self.runner.cancel()

    def rerun(self) -> None:
        """The automatic rerun after edits: not recorded."""
        self.run(record=False)

    def _on_catalog_changed(self) -> None:
        if self.auto_check.isChecked():
            self._rerun_timer.start()

    def _on_workspace_changed(self, what: str) -> None:
        if what in ("*", "suites"):
            if what == "*":
                self.outcomes.clear()
                self.runner.session_baselines.clear()
                # another workspace (or one changed wholesale): no result of it yet
                self.summary_changed.emit("")
                self.regressions_changed.emit(0)
            self.reload()
            if what == "suites":
                self._rerun_timer.start()

    def _on_progress(self, done: int, total: int) -> None:
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(done)

    def _on_finished(self, outcomes: list[SuiteOutcome]) -> None:
        self.progress.setVisible(False)
        for outcome in outcomes:
            self.outcomes[outcome.result.suite] = outcome
        self.list_model.set_entries(self._read_suites())
        self._show_current()
        if self.runner.record_error:
            self.message.emit(self.runner.record_error)
        regressions = sum(
            len(o.comparison.regressions) for o in self.outcomes.values() if o.comparison
        )
        passed = sum(o.result.summary.passed for o in self.outcomes.values())
        total = sum(o.result.summary.total for o in self.outcomes.values())
        mark = "✓" if passed == total else "✗"
        self.summary_changed.emit(f"suite {passed}/{total} {mark}")
        self.regressions_changed.emit(regressions)

    @property
    def regression_count(self) -> int:
        return sum(len(o.comparison.regressions) for o in self.outcomes.values() if o.comparison)

    # actions ------------------------------------------------------------------------
    def export_junit(self, path: Path | None = None) -> Path | None:
        outcomes = [self.outcomes[s.name] for s in self.suites() if s.name in self.outcomes]
        if not outcomes:
            self.message.emit("Run the suites first (Ctrl+Enter), then export.")
            return None
        if path is None:
            path = JunitDialog.ask(self, str(self.controller.path.parent / "suites.junit.xml"))
            if path is None:
                return None
        try:
            write_junit(path, outcomes)
        except AxmemError as exc:
            self.message.emit(str(exc))
            return None
        self.message.emit(f"JUnit report written to {path}")
        return path

    def _open_in_bench(self, index: QModelIndex) -> None:
        if not index.isValid():
            return
        case = self.cases_model.case(index.row())
        self.bench_requested.emit(case.kind, list(case.searches), list(case.loaded))
