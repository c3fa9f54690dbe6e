"""Qt models of the Evals page: the eval sets, the runs of the selected set, and the
cases of the selected run. Thin adapters over core/evals data."""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from axmem_gui.core.evals.compare import pct
from axmem_gui.core.evals.model import EvalSet
from axmem_gui.core.evals.report import CaseStats, EvalReport
from axmem_gui.core.wording import counted
from axmem_gui.ui.table_model import HeaderedTableModel, Index

FAIL_COLOR = QColor(200, 40, 40)


class EvalRole(IntEnum):
    Name = Qt.ItemDataRole.UserRole + 1
    RunId = Qt.ItemDataRole.UserRole + 2


class EvalSetListModel(QAbstractListModel):
    def __init__(self) -> None:
        super().__init__()
        self.sets: list[EvalSet] = []

    def set_sets(self, sets: Sequence[EvalSet]) -> None:
        self.beginResetModel()
        self.sets = list(sets)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.sets)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.sets):
            return None
        s = self.sets[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{s.name}  ·  {counted(len(s.cases), 'case')}"
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"agent {s.agent} · repeat {s.repeat} · threshold {pct(s.threshold)}"
        if role == EvalRole.Name:
            return s.name
        return None


class EvalRunsModel(HeaderedTableModel):
    headers = ("Run", "Status", "Model", "Result", "Precision", "Recall", "Catalog")

    def __init__(self) -> None:
        super().__init__()
        self.reports: list[EvalReport] = []

    def set_reports(self, reports: Sequence[EvalReport]) -> None:
        self.beginResetModel()
        self.reports = list(reports)
        self.endResetModel()

    def row_count(self) -> int:
        return len(self.reports)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not self._row_in_range(index):
            return None
        r = self.reports[index.row()]
        if role == EvalRole.RunId:
            return r.id
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 3 and not r.passed:
            return QBrush(FAIL_COLOR)
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        m = r.metrics()
        cases = r.cases()
        values = (
            r.id,
            r.status,
            f"{r.provider.name or '?'} · {r.provider.model or '?'}",
            f"{sum(1 for c in cases if c.passed)}/{len(cases)} cases pass",
            pct(m.precision),
            pct(m.recall),
            r.catalog_digest.split(":", 1)[-1][:8],
        )
        return values[index.column()]


class CaseStatsModel(HeaderedTableModel):
    headers = (
        "Case",
        "Result",
        "Hits",
        "Threshold",
        "False triggers",
        "Failed runs",
        "Search strings",
        "Tokens",
        "Mean time",
    )

    def __init__(self) -> None:
        super().__init__()
        self.cases: list[CaseStats] = []

    def set_cases(self, cases: Sequence[CaseStats]) -> None:
        self.beginResetModel()
        self.cases = list(cases)
        self.endResetModel()

    def row_count(self) -> int:
        return len(self.cases)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not self._row_in_range(index):
            return None
        c = self.cases[index.row()]
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 1 and not c.passed:
            return QBrush(FAIL_COLOR)
        if role == Qt.ItemDataRole.ToolTipRole:
            lines = [
                f"{t.id}: {'wanted' if t.wanted else 'avoid'}, loaded {t.loaded}/{t.runs}"
                for t in c.triggers
            ]
            return "\n".join([*lines, *c.reasons])
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        runs = c.counted + c.failed + c.cancelled
        values = (
            c.name,
            "pass" if c.passed else "FAIL",
            f"{c.hits}/{c.counted} ({pct(c.rate)})",
            pct(c.threshold),
            str(c.false_triggers),
            str(c.failed + c.cancelled),
            " | ".join(s for _k, s, _n in c.searches) or "(none)",
            f"{c.prompt_tokens + c.completion_tokens:,}",
            "-" if runs == 0 else f"{c.duration_ms / runs / 1000:.1f} s",
        )
        return values[index.column()]
