"""The budget gauge: characters (UTF-16 units, what maxChars counts) against maxChars."""

from __future__ import annotations

from PySide6.QtWidgets import QProgressBar, QWidget

from axmem_gui.core.contextmap import Budget, ContextMapState, budget_of
from axmem_gui.ui.inert_text import inert

#: Above this share of maxChars the gauge warns: the next ADD may start evicting.
HIGH_FRACTION = 0.9


class BudgetGauge(QProgressBar):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("budgetGauge")
        self.setTextVisible(True)
        self._budget: Budget | None = None
        self.set_state(None)

    @property
    def budget(self) -> Budget | None:
        return self._budget

    def set_state(self, state: ContextMapState | None) -> None:
        self._budget = budget_of(state) if state is not None else None
        budget = self._budget
        if budget is None:
            self.setRange(0, 1)
            self.setValue(0)
            level = "none"
        else:
            # Over budget the bar is full: the range follows the text so it stays honest.
            self.setRange(0, max(budget.max_chars, budget.chars))
            self.setValue(budget.chars)
            level = (
                "over"
                if not budget.fits
                else "high"
                if budget.used_fraction >= HIGH_FRACTION
                else "ok"
            )
        self.setToolTip(inert(self._tooltip()))
        if self.property("level") != level:
            self.setProperty("level", level)
            self.style().unpolish(self)
            self.style().polish(self)
        self.update()

    def text(self) -> str:
        budget = self._budget
        if budget is None:
            return "no map"
        percent = round(100 * budget.used_fraction)
        text = f"{budget.chars:,} / {budget.max_chars:,} chars ({percent}%)"
        if not budget.fits:
            text += f" · over by {budget.over_by:,}"
        return text

    def _tooltip(self) -> str:
        budget = self._budget
        if budget is None:
            return ""
        if budget.fits:
            return (
                f"{budget.remaining:,} characters left before Ax evicts items "
                "(lowest score first, then oldest id)"
            )
        return (
            f"Over maxChars by {budget.over_by:,}: the next update evicts items until the map "
            "fits (lowest score first, then oldest id)"
        )
