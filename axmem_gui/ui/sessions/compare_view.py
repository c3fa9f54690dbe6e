"""Two sessions side by side: calls aligned by forward, stage and turn; for the selected
pair the two prompts and replies next to each other with differing lines tinted; per
forward the loaded/used sets, outputs and context-map items; tokens and latency."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGridLayout,
    QHeaderView,
    QScrollArea,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.jsout import json_dumps
from axmem_gui.core.session.compare import CallPair, SessionComparison, render_comparison
from axmem_gui.core.session.compare_config import render_agent_diff, render_catalog_diff
from axmem_gui.core.session.model import Exchange, Session
from axmem_gui.core.session.replay_cursor import request_as_text
from axmem_gui.ui.elided import elided
from axmem_gui.ui.inert_text import plain_label
from axmem_gui.ui.sessions import texts
from axmem_gui.ui.sessions.chips import ChipRow, chip
from axmem_gui.ui.sessions.exact_text import ADDED, CHANGED, REMOVED, ExactTextView, shrinkable
from axmem_gui.ui.sessions.textdiff import ADDED as MARK_ADDED
from axmem_gui.ui.sessions.textdiff import REMOVED as MARK_REMOVED
from axmem_gui.ui.sessions.textdiff import line_marks
from axmem_gui.ui.sessions.viewer import set_banner
from axmem_gui.ui.table_model import HeaderedTableModel

Index = QModelIndex | QPersistentModelIndex

COLUMNS = ("Forward · stage · turn", "A", "B", "Prompt", "Output", "Tokens A → B", "ms A → B")
DIFFERS = QColor(200, 120, 20)
ONE_SIDED = QColor(220, 50, 47)
MARK_COLORS = {MARK_REMOVED: REMOVED, MARK_ADDED: ADDED}
CONTEXT_LINES = 3


def _tokens(t: tuple[int, int]) -> str:
    return f"{t[0] + t[1]:,}"


class CallPairModel(HeaderedTableModel):
    headers = COLUMNS

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pairs: tuple[CallPair, ...] = ()

    def set_pairs(self, pairs: tuple[CallPair, ...]) -> None:
        self.beginResetModel()
        self._pairs = pairs
        self.endResetModel()

    def pair(self, row: int) -> CallPair:
        return self._pairs[row]

    def row_count(self) -> int:
        return len(self._pairs)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not self._row_in_range(index):
            return None
        pair = self._pairs[index.row()]
        column = index.column()
        one_sided = pair.a_index is None or pair.b_index is None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(pair, column, one_sided)
        if role == Qt.ItemDataRole.ForegroundRole:
            if one_sided:
                return ONE_SIDED
            if (column == 3 and not pair.same_prompt) or (column == 4 and not pair.same_output):
                return DIFFERS
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (1, 2, 5, 6):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _display(self, pair: CallPair, column: int, one_sided: bool) -> str:
        if column == 0:
            return pair.key.label()
        if column == 1:
            return "—" if pair.a_index is None else f"#{pair.a_index}"
        if column == 2:
            return "—" if pair.b_index is None else f"#{pair.b_index}"
        if column in (3, 4):
            if one_sided:
                return "only in B" if pair.a_index is None else "only in A"
            same = pair.same_prompt if column == 3 else pair.same_output
            return "same" if same else "differs"
        if column == 5:
            return f"{_tokens(pair.a_tokens)} → {_tokens(pair.b_tokens)}"
        return f"{pair.a_ms:,.0f} → {pair.b_ms:,.0f}"


class SideBySide(QWidget):
    """Two exact-text views, A left and B right, differing lines tinted."""

    def __init__(self, what: str) -> None:
        super().__init__()
        self.a = ExactTextView(f"A · {what}")
        self.b = ExactTextView(f"B · {what}")
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.a)
        split.addWidget(self.b)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)
        # Scroll both sides together: the lines are aligned by the diff tints, not padded.
        self.a.edit.verticalScrollBar().valueChanged.connect(
            self.b.edit.verticalScrollBar().setValue
        )
        self.b.edit.verticalScrollBar().valueChanged.connect(
            self.a.edit.verticalScrollBar().setValue
        )

    def set_texts(self, a: str, b: str, a_empty: str = "", b_empty: str = "") -> None:
        self.a.set_text(a, a_empty)
        self.b.set_text(b, b_empty)
        marks = line_marks(a, b)
        self.a.highlight_lines((i, MARK_COLORS.get(m, CHANGED)) for i, m in marks.left)
        self.b.highlight_lines((i, MARK_COLORS.get(m, CHANGED)) for i, m in marks.right)
        firsts = [lines[0][0] for lines in (marks.left, marks.right) if lines]
        if firsts:  # bring the first difference into view, with a little context above
            self.a.edit.verticalScrollBar().setValue(max(0, min(firsts) - CONTEXT_LINES))

    def views(self) -> list[ExactTextView]:
        return [self.a, self.b]


def _set_chips(row: ChipRow, a: tuple[str, ...], b: tuple[str, ...]) -> None:
    chips = [chip(x, "same" if x in b else "removed", "A and B" if x in b else "only A") for x in a]
    chips += [chip(x, "added", "only B") for x in b if x not in a]
    row.set_chips(chips)


class ForwardsPanel(QScrollArea):
    """Per forward: inputs/outputs, loaded/used sets (A only, B only, both), map items."""

    def __init__(self) -> None:
        super().__init__()
        self.setWidgetResizable(True)
        self.rows: dict[tuple[int, str], ChipRow] = {}

    def set_comparison(self, cmp: SessionComparison) -> None:
        body = QWidget()
        grid = QGridLayout(body)
        grid.setColumnStretch(1, 1)
        self.rows = {}
        line = 0
        for fw in cmp.forwards:
            title = plain_label(
                f"Forward {fw.index + 1}: inputs {'same' if fw.same_inputs else 'differ'}, "
                f"output {'same' if fw.same_output else 'differs'} "
                f"(A {fw.a_status or '—'}, B {fw.b_status or '—'})"
            )
            title.setObjectName("panelCaption")
            grid.addWidget(title, line, 0, 1, 2)
            line += 1
            if not fw.same_output:
                for side, value in (("A output", fw.a_output), ("B output", fw.b_output)):
                    text = plain_label(json_dumps(value))
                    text.setWordWrap(True)
                    text.setProperty("exactText", True)
                    text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                    grid.addWidget(plain_label(side), line, 0)
                    grid.addWidget(text, line, 1)
                    line += 1
            for kind, diff in [*fw.sets.items(), ("context map items", fw.map_items)]:
                row = ChipRow()
                _set_chips(row, diff.a, diff.b)
                self.rows[(fw.index, kind)] = row
                label = plain_label(kind.replace("_", " "))
                grid.addWidget(label, line, 0, Qt.AlignmentFlag.AlignTop)
                grid.addWidget(row, line, 1)
                line += 1
        legend = ChipRow()
        legend.set_chips(
            [chip("in A and B", "same"), chip("only A", "removed"), chip("only B", "added")]
        )
        grid.addWidget(plain_label("legend"), line, 0)
        grid.addWidget(legend, line, 1)
        grid.setRowStretch(line + 1, 1)
        self.setWidget(body)


class CompareView(QWidget):
    whitespace_changed = Signal(bool)

    def __init__(self, a: Session, b: Session, comparison: SessionComparison) -> None:
        super().__init__()
        self.a, self.b, self.comparison = a, b, comparison
        # One line each (cut with an ellipsis, whole in the tooltip): the aligned calls
        # below get the room (at 1350×693 they showed six rows).
        self.a_title = elided(f"A  {a.label}  ·  {comparison.a_label}", "compareTitle")
        self.b_title = elided(f"B  {b.label}  ·  {comparison.b_label}", "compareTitle")
        self.totals = plain_label(self._totals_text())
        self.totals.setObjectName("sessionMeta")
        shrinkable(self.totals)
        self.banner = plain_label()
        self.banner.setObjectName("sessionBanner")
        self.banner.setWordWrap(True)

        self.model = CallPairModel(self)
        self.model.set_pairs(comparison.calls)
        self.table = QTableView()
        self.table.setObjectName("compareCalls")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.setAlternatingRowColors(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setStretchLastSection(False)
        for column, width in enumerate((330, 50, 50, 80, 80, 140, 110)):
            self.table.setColumnWidth(column, width)

        self.prompts = SideBySide("prompt (request as sent)")
        self.outputs = SideBySide("response")
        self.forwards = ForwardsPanel()
        self.forwards.set_comparison(comparison)
        self.report = ExactTextView("Comparison report")
        self.report.set_text(render_comparison(comparison))
        self.given = ExactTextView("What each agent was given: its config, and the catalog")
        self.given.set_text(
            "\n".join(
                [*render_agent_diff(comparison.agent), "", *render_catalog_diff(comparison.catalog)]
            )
            + "\n"
        )
        self.views = [*self.prompts.views(), *self.outputs.views(), self.given, self.report]
        for view in self.views:
            view.whitespace_toggled.connect(self._sync_whitespace)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.prompts, "Prompts")
        self.tabs.addTab(self.outputs, "Responses")
        self.tabs.addTab(self.forwards, "Loaded / used · outputs")
        self.tabs.addTab(self.given, "Agent · catalog")
        self.tabs.addTab(self.report, "Report")

        titles = QGridLayout()
        titles.addWidget(self.a_title, 0, 0)
        titles.addWidget(self.b_title, 0, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.tabs)
        # The aligned calls take a little more than half (ten rows and more on a laptop),
        # the texts of the selected pair the rest.
        split.setSizes([550, 450])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(3)
        layout.addLayout(titles)
        layout.addWidget(self.totals)
        layout.addWidget(self.banner)
        layout.addWidget(split, 1)

        self.table.selectionModel().currentRowChanged.connect(
            lambda cur, _p: self.show_pair(cur.row())
        )
        first = comparison.first_prompt_difference
        self._summary_banner(first)
        start = comparison.calls.index(first) if first is not None else 0
        if comparison.calls:
            self.table.selectRow(start)

    def _totals_text(self) -> str:
        ta, tb = self.comparison.a_totals, self.comparison.b_totals

        def pair(a: float, b: float, unit: str = "") -> str:
            return f"{a:,.0f}{unit} → {b:,.0f}{unit}"

        return (
            f"calls {pair(ta.calls, tb.calls)}  ·  prompt tokens "
            f"{pair(ta.prompt_tokens, tb.prompt_tokens)}  ·  completion tokens "
            f"{pair(ta.completion_tokens, tb.completion_tokens)}  ·  model time "
            f"{pair(ta.model_ms, tb.model_ms, ' ms')}"
        )

    def _summary_banner(self, first: CallPair | None) -> None:
        given = [
            what
            for what, diff in (
                ("agent config", self.comparison.agent),
                ("catalog", self.comparison.catalog),
            )
            if not diff.same
        ]
        before = (
            f"The agents were given a different {' and '.join(given)} (see Agent · catalog). "
            if given
            else ""
        )
        if first is None:
            set_banner(self.banner, before + "Every aligned call sent the same prompt.", "ok")
            return
        differing = sum(1 for c in self.comparison.calls if not c.same_prompt)
        set_banner(
            self.banner,
            f"{before}{differing} of {len(self.comparison.calls)} aligned calls differ; the "
            f"first prompt difference is at {first.key.label()}.",
            "warn",
        )

    def set_show_whitespace(self, show: bool) -> None:
        for view in self.views:
            view.blockSignals(True)
            view.set_show_whitespace(show)
            view.blockSignals(False)

    def _sync_whitespace(self, show: bool) -> None:
        self.set_show_whitespace(show)
        self.whitespace_changed.emit(show)

    @staticmethod
    def _exchange(side: Session, index: int | None) -> Exchange | None:
        calls = side.exchanges
        return calls[index] if index is not None and 0 <= index < len(calls) else None

    def show_pair(self, row: int) -> None:
        if not 0 <= row < self.model.rowCount():
            return
        pair = self.model.pair(row)
        ea = self._exchange(self.a, pair.a_index)
        eb = self._exchange(self.b, pair.b_index)

        def request(ex: Exchange | None) -> str:
            return request_as_text(ex.request) if ex is not None and ex.request else ""

        self.prompts.set_texts(
            request(ea), request(eb), "A made no such call.", "B made no such call."
        )
        self.outputs.set_texts(
            texts.response(ea) if ea else "",
            texts.response(eb) if eb else "",
            "A made no such call.",
            "B made no such call.",
        )
