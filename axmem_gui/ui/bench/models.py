"""Table models of the retrieval bench: Ax's ranked result and the BM25 result beside it,
plus the score-bar delegate."""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from PySide6.QtCore import (
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    Qt,
)
from PySide6.QtGui import QColor, QPainter, QPalette
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from axmem_gui.core.printable import printable
from axmem_gui.services.bench import BenchRow, Bm25Row
from axmem_gui.ui.inert_text import inert_tooltips
from axmem_gui.ui.table_model import HeaderedTableModel

_Index = QModelIndex | QPersistentModelIndex


class BenchRole(IntEnum):
    EntryId = Qt.ItemDataRole.UserRole + 1
    Score = Qt.ItemDataRole.UserRole + 2  # 0..1, drawn as a bar
    Query = Qt.ItemDataRole.UserRole + 3
    Terms = Qt.ItemDataRole.UserRole + 4  # words to highlight in the entry


def _number(value: float, digits: int = 3) -> str:
    return f"{value:.{digits}f}"


class AxResultModel(HeaderedTableModel):
    """What `discover` / `recall` returned, in Ax's order."""

    # Short headers, so a 1366-pixel-wide window shows them all and room is left for ids.
    headers = ("#", "id", "score", "raw", "coverage", "matched", "search")
    header_tips = (
        "Rank in Ax's result",
        "Entry id",
        "Raw score over the top raw score of the same search string",
        "Ax's raw score",
        "Share of the search string's words the entry matched",
        "The search string's words the entry matched",
        "The search string that found the entry",
    )
    COL_ID, COL_SCORE = 1, 2
    #: Columns of text that give up room in a narrow dock, first to last: the search
    #: string (typed beside the table), the matched terms, the id.
    FLEXIBLE = (6, 5, 1)

    def __init__(self) -> None:
        super().__init__()
        self._rows: tuple[BenchRow, ...] = ()

    def set_rows(self, rows: tuple[BenchRow, ...]) -> None:
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def row_data(self, row: int) -> BenchRow:
        return self._rows[row]

    def row_count(self) -> int:
        return len(self._rows)

    @inert_tooltips
    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not self._row_in_range(index):
            return None
        r = self._rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            values = (
                str(r.rank), printable(r.id), _number(r.score, 2), _number(r.raw),
                _number(r.coverage),
                ", ".join(r.matched_terms), r.query,
            )
            return values[col] if 0 <= col < len(values) else None
        if role == Qt.ItemDataRole.ToolTipRole:
            return (
                f"{printable(r.id)}: score {r.score!r} "
                f"(raw {r.raw!r} / top raw of this search string), "
                f"coverage {r.coverage!r}; matched {', '.join(r.matched_terms)}; "
                f"found by {r.query!r}"
            )
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (0, 2, 3, 4):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == BenchRole.EntryId:
            return r.id
        if role == BenchRole.Score:
            return r.score
        if role == BenchRole.Query:
            return r.query
        if role == BenchRole.Terms:
            return list(r.matched_terms)
        return None


class Bm25ResultModel(HeaderedTableModel):
    """The same searches through BM25 (SQLite FTS5)."""

    headers = ("#", "id", "score", "bm25", "in Ax", "search")
    header_tips = (
        "Rank in BM25's result",
        "Entry id",
        "BM25 score over the top score",
        "SQLite FTS5's bm25() (lower is better)",
        "Whether Ax returned the entry too",
        "The search string that found the entry",
    )
    COL_ID, COL_SCORE = 1, 2
    #: Columns of text that give up room in a narrow dock, first to last: the search
    #: string, the id.
    FLEXIBLE = (5, 1)

    def __init__(self) -> None:
        super().__init__()
        self._rows: tuple[Bm25Row, ...] = ()
        self._terms: dict[str, list[str]] = {}
        self._top = 1.0

    def set_rows(self, rows: tuple[Bm25Row, ...], terms: dict[str, list[str]]) -> None:
        self.beginResetModel()
        self._rows = rows
        self._terms = terms
        self._top = max((r.score for r in rows), default=1.0) or 1.0
        self.endResetModel()

    def row_data(self, row: int) -> Bm25Row:
        return self._rows[row]

    def row_count(self) -> int:
        return len(self._rows)

    @inert_tooltips
    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not self._row_in_range(index):
            return None
        r = self._rows[index.row()]
        col = index.column()
        relative = r.score / self._top
        if role == Qt.ItemDataRole.DisplayRole:
            values = (
                str(r.rank), printable(r.id), _number(relative, 2), _number(-r.score),
                "yes" if r.in_ax else "no", r.query,
            )
            return values[col] if 0 <= col < len(values) else None
        if role == Qt.ItemDataRole.ToolTipRole:
            extra = "" if r.in_ax else " — Ax did not return it: double-click for why not"
            return f"{printable(r.id)}: bm25() {-r.score!r} for {r.query!r}{extra}"
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (0, 2, 3):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and not r.in_ax and col == 4:
            return QColor(200, 120, 20)
        if role == BenchRole.EntryId:
            return r.id
        if role == BenchRole.Score:
            return relative
        if role == BenchRole.Query:
            return r.query
        if role == BenchRole.Terms:
            return self._terms.get(r.query, [])
        return None


#: The score column's width at least: room for a bar beside its number.
SCORE_BAR_WIDTH = 56


class ScoreBarDelegate(QStyledItemDelegate):
    """A horizontal bar for `BenchRole.Score` (0..1) with the number over it."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        value = index.data(BenchRole.Score)
        if not isinstance(value, float | int):
            super().paint(painter, option, index)
            return
        widget: QWidget | None = option.widget
        style = widget.style() if widget is not None else None
        if style is not None:
            style.drawPrimitive(
                QStyle.PrimitiveElement.PE_PanelItemViewItem, option, painter, widget
            )
        rect: QRect = option.rect.adjusted(3, 4, -3, -4)
        palette: QPalette = option.palette
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        painter.save()
        painter.setPen(Qt.PenStyle.NoPen)
        # On a selected row the highlight is the background: draw the bar in its text colour.
        bar_role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Highlight
        bar = QColor(palette.color(bar_role))
        bar.setAlpha(90 if selected else 110)
        width = round(rect.width() * max(0.0, min(1.0, float(value))))
        painter.setBrush(bar)
        painter.drawRoundedRect(QRect(rect.left(), rect.top(), width, rect.height()), 2, 2)
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        painter.setPen(palette.color(role))
        painter.drawText(
            rect, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
            str(index.data(Qt.ItemDataRole.DisplayRole) or ""),
        )
        painter.restore()
