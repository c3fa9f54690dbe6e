"""The Lint dock: every finding of the workspace, the `### Available Skills` token
budget, and a double-click that jumps to the entry."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QModelIndex, QObject, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QSpinBox,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.lint import Finding
from axmem_gui.core.settings import BUDGET_RANGE
from axmem_gui.ui.elided import ElidedLabel
from axmem_gui.ui.inert_text import inert, plain_label
from axmem_gui.ui.lint.linter import LintOutcome, LiveLinter
from axmem_gui.ui.lint.model import (
    HEADERS,
    SEVERITY_FILTERS,
    FindingRole,
    FindingsFilterModel,
    FindingsModel,
)
from axmem_gui.ui.lint.ordering import FindingColumn
from axmem_gui.ui.lint.severity import counts_text, plural
from axmem_gui.ui.pages import empty_state
from axmem_gui.ui.resources import style_leaves


class LintDock(QWidget):
    #: kind ("skill" / "memory" / "catalog"), entry id ("" for the catalog)
    entry_activated = Signal(str, str)

    def __init__(self, linter: LiveLinter, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lintDock")
        self.linter = linter
        # Sorts of a big report are made on the runner, not on the GUI thread.
        self.model = FindingsModel(linter.runner)
        self.proxy = FindingsFilterModel()
        self.proxy.setSourceModel(self.model)

        # Labels that change with every edit are elided, never widening the window.
        self.counts_label = ElidedLabel()
        self.counts_label.setObjectName("lintCounts")
        self.counts_label.setMinimumWidth(self.fontMetrics().horizontalAdvance("M" * 10))
        self.severity_combo = QComboBox()
        self.severity_combo.addItems(list(SEVERITY_FILTERS))
        self.severity_combo.currentTextChanged.connect(self.proxy.set_severities)
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Filter by code, entry or text")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self.proxy.set_text)
        self.filter_edit.installEventFilter(self)  # its focus: the model gets ready
        self.budget_spin = QSpinBox()
        self.budget_spin.setObjectName("budgetSpin")
        self.budget_spin.setRange(*BUDGET_RANGE)
        self.budget_spin.setSingleStep(100)
        self.budget_spin.setGroupSeparatorShown(True)
        self.budget_spin.setSuffix(" tokens")
        self.budget_spin.setKeyboardTracking(False)
        self.budget_spin.setToolTip(
            "Token budget for Ax's `### Available Skills` index (estimated as characters / "
            "4); kept in the workspace"
        )
        self.budget_spin.setValue(linter.budget_tokens())
        self.budget_spin.valueChanged.connect(linter.set_budget_tokens)
        self.index_label = ElidedLabel()
        self.index_label.setObjectName("indexSize")
        self.state_label = ElidedLabel()
        self.state_label.setObjectName("lintState")
        self.filter_edit.setMinimumWidth(80)

        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.counts_label, 1)
        bar.addSpacing(12)
        bar.addWidget(self.severity_combo)
        bar.addWidget(self.filter_edit, 2)
        bar.addSpacing(12)
        budget = plain_label("Budget:")
        budget.setToolTip("Token budget of the `### Available Skills` index")
        bar.addWidget(budget)
        bar.addWidget(self.budget_spin)
        bar.addWidget(self.index_label, 1)
        bar.addSpacing(12)
        bar.addWidget(self.state_label, 1)

        self.table = QTableView()
        self.table.setObjectName("lintTable")
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        for column, width in (
            (FindingColumn.Severity, 90),
            (FindingColumn.Code, 150),
            (FindingColumn.Entry, 200),
            (FindingColumn.Message, 520),
        ):
            self.table.setColumnWidth(column, width)
        # The header shows the sort of the rows shown, not one still being made.
        self.model.sort_state_changed.connect(self._on_sort_state)
        # A report shown once its order is made resets the table: the scroll stays.
        self._scroll = 0
        self.model.modelAboutToBeReset.connect(self._keep_scroll)
        self.model.modelReset.connect(self._restore_scroll)
        self.table.doubleClicked.connect(self._on_double_click)
        self.table.activated.connect(self._on_double_click)

        self.empty = empty_state("No lint findings — every entry can be found by its words.")
        self.stack = QStackedWidget()
        self.stack.addWidget(self.table)
        self.stack.addWidget(self.empty)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.setSpacing(2)
        layout.addLayout(bar)
        layout.addWidget(self.stack, 1)

        linter.outcome_changed.connect(self.show_outcome)
        linter.running_changed.connect(self.model.hold_jobs)  # (before the state label)
        linter.running_changed.connect(self._update_state)
        linter.failed.connect(self._on_failed)
        linter.controller.opened.connect(self._on_opened)
        self.show_outcome(linter.outcome)
        # Styled per widget, not as a container (see `style_leaves`).
        style_leaves(self, "lint")


    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.filter_edit and event.type() == QEvent.Type.FocusIn:
            self.model.prepare_filter()
        return super().eventFilter(watched, event)

    def sizeHint(self) -> QSize:
        # A strip under the catalog, not half the window (users can drag it taller).
        return QSize(900, 190)

    def _on_opened(self) -> None:
        self.budget_spin.blockSignals(True)
        self.budget_spin.setValue(self.linter.budget_tokens())
        self.budget_spin.blockSignals(False)

    def _keep_scroll(self) -> None:
        self._scroll = self.table.verticalScrollBar().value()

    def _restore_scroll(self) -> None:
        self.table.verticalScrollBar().setValue(self._scroll)

    def _on_sort_state(self) -> None:
        header = self.table.horizontalHeader()
        shown = (self.model.sort_column(), self.model.sort_order())
        if (header.sortIndicatorSection(), header.sortIndicatorOrder()) != shown:
            # Not a new sort asked for: the view's sort slot must not hear it.
            blocked = header.blockSignals(True)
            header.setSortIndicator(*shown)
            header.blockSignals(blocked)
        self._update_state()

    def show_outcome(self, outcome: LintOutcome | None) -> None:
        scroll = self.table.verticalScrollBar().value()
        findings = () if outcome is None else outcome.report.findings
        self.model.set_findings(findings)
        self.table.verticalScrollBar().setValue(scroll)
        has_rows = bool(findings) or outcome is None
        self.stack.setCurrentWidget(self.table if has_rows else self.empty)
        if outcome is None:
            self.counts_label.setText("")
            self.index_label.setText("")
        else:
            report = outcome.report
            self.counts_label.setText(counts_text(dict(outcome.counts())))
            over = report.index_tokens > report.budget_tokens
            self.index_label.setText(f"≈{report.index_tokens:,} used" + (" (over)" if over else ""))
            self.index_label.setProperty("over", over)
            self.index_label.style().unpolish(self.index_label)
            self.index_label.style().polish(self.index_label)
        self._update_state()

    def _update_state(self, *_: object) -> None:
        outcome = self.linter.outcome
        if self.model.sorting():
            column = self.model.wanted_sort()[0]
            self.state_label.setText(f"sorting by {HEADERS[column].lower()}…")
        elif self.linter.running:
            self.state_label.setText("checking…")
        elif outcome is not None:
            report = outcome.report
            self.state_label.setText(
                f"checked {plural(report.skills, 'skill')}, "
                f"{plural(report.memories, 'memory', 'memories')} "
                f"in {outcome.seconds * 1000:,.0f} ms"
            )
        else:
            self.state_label.setText("")

    def _on_failed(self, message: str) -> None:
        self.state_label.setText(message)
        self.state_label.setToolTip(inert(message))

    def _on_double_click(self, index: QModelIndex) -> None:
        finding = index.data(FindingRole.Finding)
        if isinstance(finding, Finding):
            self.entry_activated.emit(finding.kind, finding.entry_id or "")

    def finding_at(self, row: int) -> Finding:
        found = self.proxy.index(row, 0).data(FindingRole.Finding)
        assert isinstance(found, Finding)
        return found
