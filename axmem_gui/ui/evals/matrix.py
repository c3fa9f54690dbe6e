"""The runs × cases matrix of an eval set: one row per stored run (oldest first), one
column per case (the set's cases now, then cases only older runs had). A cell says how the
case did in that run: hit (at or above its threshold), miss, failed (no run completed:
the model or server failed, the reason in the tooltip) or not run. A case that passed in
the run above and misses in this one is a regression: marked ▼ and bold. The cell holds
the session of the case's first recorded run, so a double click opens it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from axmem_gui.core.evals.compare import pct
from axmem_gui.core.evals.model import EvalSet
from axmem_gui.core.evals.report import CaseStats, EvalReport
from axmem_gui.ui.inert_text import inert, inert_tooltips

Index = QModelIndex | QPersistentModelIndex

HIT, MISS, FAILED, NOT_RUN = "hit", "miss", "failed", "not run"
#: Translucent, so a cell reads on the light and the dark theme alike.
COLORS = {
    HIT: QColor(46, 160, 67, 80),
    MISS: QColor(218, 54, 51, 90),
    FAILED: QColor(210, 140, 0, 90),
    NOT_RUN: QColor(128, 128, 128, 50),
}


class MatrixRole(IntEnum):
    State = Qt.ItemDataRole.UserRole + 1
    SessionId = Qt.ItemDataRole.UserRole + 2
    Regression = Qt.ItemDataRole.UserRole + 3


@dataclass(frozen=True, slots=True)
class Cell:
    state: str
    text: str
    tooltip: str
    session_id: str | None = None
    regression: bool = False


def _state(stats: CaseStats | None) -> str:
    if stats is None or stats.counted + stats.failed == 0:
        return NOT_RUN
    if stats.counted == 0:
        return FAILED
    return HIT if stats.passed else MISS


def _cell(report: EvalReport, stats: CaseStats | None, was_hit: bool) -> Cell:
    state = _state(stats)
    if stats is None:
        return Cell(NOT_RUN, "—", f"{report.id}: this case was not in the set then")
    session = next(
        (r.session_id for r in report.runs if r.case == stats.name and r.session_id), None
    )
    lines = [f"{stats.name} in {report.id}: {state}"]
    if stats.counted:
        lines.append(
            f"hits {stats.hits}/{stats.counted} ({pct(stats.rate)}), needs {pct(stats.threshold)}"
        )
    lines += [
        f"{t.id}: {'wanted' if t.wanted else 'must avoid'}, loaded in {t.loaded} of {t.runs}"
        for t in stats.triggers
    ]
    lines += [f"{kind} “{text}” ×{n}" for kind, text, n in stats.searches]
    lines += list(stats.reasons)
    regression = was_hit and state == MISS  # (a failed run says nothing of triggers)
    if regression:
        lines.insert(1, "regression: it passed in the run above")
    if session:
        lines.append("Double-click to open the session")
    text = {
        HIT: f"✓ {stats.hits}/{stats.counted}",
        MISS: f"✗ {stats.hits}/{stats.counted}",
        FAILED: f"failed {stats.failed}",
        NOT_RUN: "—",
    }[state]
    return Cell(state, ("▼ " if regression else "") + text, "\n".join(lines), session, regression)


def matrix(
    reports: Sequence[EvalReport], eval_set: EvalSet | None
) -> tuple[list[str], list[list[Cell]]]:
    """(case names, one row of cells per report)."""
    names: dict[str, None] = {}
    if eval_set is not None:
        names.update((c.name, None) for c in eval_set.cases)
    for report in reports:
        names.update((c.name, None) for c in report.eval_set.cases)
    columns = list(names)
    rows: list[list[Cell]] = []
    above: dict[str, bool] = {}
    for report in reports:
        stats = {c.name: c for c in report.cases()}
        row = [_cell(report, stats.get(name), above.get(name, False)) for name in columns]
        above = {name: cell.state == HIT for name, cell in zip(columns, row, strict=True)}
        rows.append(row)
    return columns, rows


class EvalMatrixModel(QAbstractTableModel):
    def __init__(self) -> None:
        super().__init__()
        self.columns: list[str] = []
        self.rows: list[list[Cell]] = []
        self.reports: list[EvalReport] = []

    def set_reports(self, reports: Sequence[EvalReport], eval_set: EvalSet | None) -> None:
        self.beginResetModel()
        self.reports = list(reports)
        self.columns, self.rows = matrix(self.reports, eval_set)
        self.endResetModel()

    def cell(self, row: int, column: int) -> Cell:
        return self.rows[row][column]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal:
            if 0 <= section < len(self.columns) and role in (
                Qt.ItemDataRole.DisplayRole,
                Qt.ItemDataRole.ToolTipRole,
            ):
                name = self.columns[section]  # (a user's string: shown as text)
                return inert(name) if role == Qt.ItemDataRole.ToolTipRole else name
            return None
        if not 0 <= section < len(self.reports):
            return None
        report = self.reports[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{section + 1} · {report.provider.model or '?'} · {report.started_at[:16]}"
        if role == Qt.ItemDataRole.ToolTipRole:
            return inert(f"{report.id} ({report.status})")
        return None

    @inert_tooltips
    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not (
            0 <= index.row() < len(self.rows) and 0 <= index.column() < len(self.columns)
        ):
            return None
        cell = self.rows[index.row()][index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return cell.text
        if role == Qt.ItemDataRole.ToolTipRole:
            return cell.tooltip
        if role == Qt.ItemDataRole.BackgroundRole:
            return QBrush(COLORS[cell.state])
        if role == Qt.ItemDataRole.FontRole and cell.regression:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignCenter)
        if role == MatrixRole.State:
            return cell.state
        if role == MatrixRole.SessionId:
            return cell.session_id
        if role == MatrixRole.Regression:
            return cell.regression
        return None
