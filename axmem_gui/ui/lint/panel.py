"""The lint panel under the skill / memory form: the findings of the entry shown, with
the hint of the selected (or first) one."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QItemSelection, QObject, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QListView,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.catalog import singular
from axmem_gui.core.lint import Finding
from axmem_gui.ui.editor.form import EntryForm
from axmem_gui.ui.elided import elided
from axmem_gui.ui.inert_text import plain_label
from axmem_gui.ui.lint.linter import LintOutcome, LiveLinter
from axmem_gui.ui.lint.model import EntryFindingsModel, FindingRole
from axmem_gui.ui.lint.severity import counts_text
from axmem_gui.ui.resources import style_leaves

VISIBLE_ROWS = 3
#: The findings list is never taller than this many text lines (it scrolls past them), so
#: long wrapped findings cannot push the window past a laptop screen.
MAX_VISIBLE_LINES = 4


class LintPanel(QWidget):
    def __init__(self, form: EntryForm, linter: LiveLinter, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lintPanel")
        self.form = form
        self.kind = singular(form.kind)
        self.linter = linter
        self.model = EntryFindingsModel()

        self.title = plain_label("Lint")
        self.title.setObjectName("lintTitle")
        self.summary = plain_label()
        self.summary.setObjectName("lintSummary")
        self.summary.setProperty("severity", "none")
        header = QHBoxLayout()
        header.setContentsMargins(0, 0, 0, 0)
        header.addWidget(self.title)
        header.addWidget(self.summary, 1)

        self.view = QListView()
        self.view.setObjectName("lintFindings")
        self.view.setModel(self.model)
        self.view.setWordWrap(True)
        self.view.setUniformItemSizes(False)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.view.setResizeMode(QListView.ResizeMode.Adjust)
        self.view.selectionModel().selectionChanged.connect(self._show_hint)
        self.view.viewport().installEventFilter(self)
        # One line, elided; the tooltip carries the whole hint.
        self.hint = elided(object_name="lintHint")

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(header)
        layout.addWidget(self.view)
        layout.addWidget(self.hint)

        linter.outcome_changed.connect(self.refresh)
        linter.running_changed.connect(lambda _r: self._update_summary())
        self.refresh()
        # Styled per widget, not as a container (see `style_leaves`).
        style_leaves(self, "lint")

    def entry_id(self) -> str | None:
        entry = self.form.entry
        return None if entry is None else entry.id

    def findings(self) -> tuple[Finding, ...]:
        return self.model.findings()

    def refresh(self, *_: object) -> None:
        """Show the findings of the form's entry from the newest report."""
        outcome: LintOutcome | None = self.linter.outcome
        entry_id = self.entry_id()
        found = (
            () if outcome is None or entry_id is None else outcome.for_entry(self.kind, entry_id)
        )
        self.show_findings(found)

    def show_findings(self, found: tuple[Finding, ...]) -> None:
        self.model.set_findings(found)
        self.view.setVisible(bool(found))
        self._fit_height()
        self._update_summary()
        self._show_hint()

    def _fit_height(self) -> None:
        """As tall as the first few (wrapped) findings, so short lists waste no room."""
        rows = min(self.model.rowCount(), VISIBLE_ROWS)
        if rows == 0:
            return
        # The laid-out rects know the wrapped height at the view's width.
        self.view.doItemsLayout()
        height = sum(self.view.visualRect(self.model.index(r, 0)).height() for r in range(rows))
        height = min(height, self.view.fontMetrics().lineSpacing() * MAX_VISIBLE_LINES)
        self.view.setFixedHeight(height + 2 * self.view.frameWidth() + 2)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # Rows wrap to the view's width: refit when the form is resized.
        if watched is self.view.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_height()
        return super().eventFilter(watched, event)

    def _update_summary(self) -> None:
        outcome = self.linter.outcome
        checking = " · checking…" if self.linter.running else ""
        if outcome is None:
            self.summary.setText("checking…" if self.linter.running else "not checked yet")
            self._set_severity("none")
            return
        found = self.model.findings()
        counts = {s: sum(1 for f in found if f.severity == s) for s in ("error", "warning", "info")}
        worst = next((s for s in ("error", "warning", "info") if counts[s]), "none")
        text = counts_text(counts) if found else f"no findings for this {self.kind}"
        self.summary.setText(text + checking)
        self._set_severity(worst)

    def _set_severity(self, severity: str) -> None:
        if self.summary.property("severity") != severity:
            self.summary.setProperty("severity", severity)
            self.summary.style().unpolish(self.summary)
            self.summary.style().polish(self.summary)

    def _show_hint(self, *_: QItemSelection) -> None:
        rows = self.view.selectionModel().selectedRows()
        index = rows[0] if rows else self.model.index(0, 0)
        finding = index.data(FindingRole.Finding) if index.isValid() else None
        self.hint.setVisible(isinstance(finding, Finding))
        if isinstance(finding, Finding):
            self.hint.setText(f"Hint: {finding.hint}")
