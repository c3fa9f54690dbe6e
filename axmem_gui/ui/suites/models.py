"""Qt models of the suites page: the suites with their last result, and one suite's cases
with pass / fail / regressed, recall@k and reciprocal rank."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QColor

from axmem_gui.core.suites import CaseResult, Suite, SuiteCase
from axmem_gui.core.wording import counted
from axmem_gui.services.suites import SuiteOutcome
from axmem_gui.ui.inert_text import inert_tooltips
from axmem_gui.ui.table_model import HeaderedTableModel

_Index = QModelIndex | QPersistentModelIndex
PASS_COLOR = QColor(40, 150, 60)
FAIL_COLOR = QColor(205, 50, 45)


class SuiteRole(IntEnum):
    Name = Qt.ItemDataRole.UserRole + 1
    Regressions = Qt.ItemDataRole.UserRole + 2
    Status = Qt.ItemDataRole.UserRole + 3  # "pass" | "fail" | "regressed" | "" (not run)
    CaseName = Qt.ItemDataRole.UserRole + 4


@dataclass(frozen=True)
class SuiteEntry:
    name: str
    suite: Suite | None  # None: the stored document is not a valid suite
    error: str = ""
    outcome: SuiteOutcome | None = None

    @property
    def regressions(self) -> tuple[str, ...]:
        if self.outcome is None or self.outcome.comparison is None:
            return ()
        return self.outcome.comparison.regressions


def _metric(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


class SuiteListModel(QAbstractListModel):
    def __init__(self) -> None:
        super().__init__()
        self._entries: list[SuiteEntry] = []

    def set_entries(self, entries: list[SuiteEntry]) -> None:
        if [e.name for e in entries] == [e.name for e in self._entries]:
            self._entries = entries
            if entries:
                self.dataChanged.emit(self.index(0), self.index(len(entries) - 1))
            return
        self.beginResetModel()
        self._entries = entries
        self.endResetModel()

    def entries(self) -> list[SuiteEntry]:
        return list(self._entries)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._entries)

    @inert_tooltips
    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._entries):
            return None
        entry = self._entries[index.row()]
        outcome = entry.outcome
        if role == Qt.ItemDataRole.DisplayRole:
            if entry.suite is None:
                return f"{entry.name}  ·  invalid"
            if outcome is None:
                return f"{entry.name}  ·  {counted(len(entry.suite.cases), 'case')}"
            s = outcome.result.summary
            mark = "  !" if entry.regressions else ""
            return f"{entry.name}  ·  {s.passed}/{s.total}{mark}"
        if role == Qt.ItemDataRole.ToolTipRole:
            if entry.error:
                return entry.error
            if entry.regressions:
                return "Regressed since the baseline run: " + ", ".join(entry.regressions)
            return entry.suite.description if entry.suite is not None else None
        if role == Qt.ItemDataRole.ForegroundRole and outcome is not None:
            return PASS_COLOR if outcome.result.all_passed else FAIL_COLOR
        if role == SuiteRole.Name:
            return entry.name
        if role == SuiteRole.Regressions:
            return len(entry.regressions)
        return None


class CaseTableModel(HeaderedTableModel):
    headers = (
        "", "case", "kind", "search strings", "must include", "must exclude", "k",
        "returned", "recall@k", "RR", "why it fails",
    )

    def __init__(self) -> None:
        super().__init__()
        self._cases: tuple[SuiteCase, ...] = ()
        self._results: dict[str, CaseResult] = {}
        self._regressed: frozenset[str] = frozenset()

    def set_suite(self, suite: Suite | None, outcome: SuiteOutcome | None) -> None:
        cases = suite.cases if suite is not None else ()
        results = {c.name: c for c in outcome.result.cases} if outcome is not None else {}
        regressed = frozenset(
            outcome.comparison.regressions if outcome and outcome.comparison else ()
        )
        if cases == self._cases:
            self._results, self._regressed = results, regressed
            if cases:
                self.dataChanged.emit(
                    self.index(0, 0), self.index(len(cases) - 1, len(self.headers) - 1)
                )
            return
        self.beginResetModel()
        self._cases, self._results, self._regressed = cases, results, regressed
        self.endResetModel()

    def case(self, row: int) -> SuiteCase:
        return self._cases[row]

    def status(self, row: int) -> str:
        case = self._cases[row]
        result = self._results.get(case.name)
        if result is None:
            return ""
        if case.name in self._regressed:
            return "regressed"
        return "pass" if result.passed else "fail"

    def row_count(self) -> int:
        return len(self._cases)

    @inert_tooltips
    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not self._row_in_range(index):
            return None
        case = self._cases[index.row()]
        result = self._results.get(case.name)
        status = self.status(index.row())
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(case, result, status, col)
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == 0 and status:
                return {"pass": "passed", "fail": "fails",
                        "regressed": "regressed: passed in the baseline run, fails now"}[status]
            if result is not None and result.reasons:
                return "\n".join(result.reasons)
            return case.note or None
        if role == Qt.ItemDataRole.ForegroundRole and col in (0, 10) and status:
            return PASS_COLOR if status == "pass" else FAIL_COLOR
        if role == Qt.ItemDataRole.BackgroundRole and status == "regressed":
            color = QColor(FAIL_COLOR)
            color.setAlpha(40)
            return color
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (0, 6, 8, 9):
            return int(Qt.AlignmentFlag.AlignCenter)
        if role == SuiteRole.Status:
            return status
        if role == SuiteRole.CaseName:
            return case.name
        return None

    @staticmethod
    def _display(case: SuiteCase, result: CaseResult | None, status: str, col: int) -> Any:
        marks = {"pass": "✓", "fail": "✗", "regressed": "!✗", "": "·"}
        if col == 0:
            return marks[status]
        if col == 1:
            return case.name
        if col == 2:
            return case.kind
        if col == 3:
            return " | ".join(case.searches)
        if col == 4:
            return ", ".join(case.must_include)
        if col == 5:
            return ", ".join(case.must_exclude)
        if col == 6:
            return str(case.effective_k())
        if result is None:
            return ""
        if col == 7:
            return ", ".join(result.returned) or "(nothing)"
        if col == 8:
            return _metric(result.recall_at_k)
        if col == 9:
            return _metric(result.reciprocal_rank)
        if col == 10:
            return "; ".join(result.reasons)
        return None
