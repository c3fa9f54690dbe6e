"""The retrieval bench dock: one `discover` or `recall` call with several search strings,
Ax's ranked result with score bars, the same searches through BM25 beside it, the selected
entry with its matched terms, and "why not?" for any entry.

The bench reruns by itself after catalog edits once it has been run, so what it shows is
always what the current catalog returns.
"""

from __future__ import annotations

import time
from dataclasses import replace

from PySide6.QtCore import QEvent, QModelIndex, QObject, QStringListModel, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QCompleter,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.catalog import searched_by
from axmem_gui.core.errors import AxmemError
from axmem_gui.services.bench import (
    BenchKind,
    BenchResult,
    WhyNot,
    bm25_call,
    parse_ids,
    parse_searches,
    query_words,
    run_bench,
    why_not,
)
from axmem_gui.ui.bench.entry_view import EntryView
from axmem_gui.ui.bench.models import (
    SCORE_BAR_WIDTH,
    AxResultModel,
    BenchRole,
    Bm25ResultModel,
    ScoreBarDelegate,
)
from axmem_gui.ui.bench.why_not import why_not_html
from axmem_gui.ui.fitted_columns import FittedColumns
from axmem_gui.ui.inert_text import plain_label
from axmem_gui.ui.resources import style_leaves
from axmem_gui.ui.retrieval.state import RetrievalState

KINDS: tuple[tuple[BenchKind, str], ...] = (
    ("discover", "discover  (skills)"),
    ("recall", "recall  (memories)"),
)
RUN_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)
#: After the first run of a kind, its BM25 index starts building this much later (the
#: run's result is painted first).
BM25_BUILD_DELAY_MS = 150
#: The panes' first widths: inputs, Ax's table, BM25's table, the entry / why-not tabs.
SPLIT_SIZES = (215, 500, 375, 260)
#: An id column is never narrower than this many characters (the tooltip has it whole).
ID_CHARS = 12


def is_run_key(event: QKeyEvent) -> bool:
    return event.key() in RUN_KEYS and bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)


class RunKeyFilter(QObject):
    """Ctrl+Enter inside the bench runs the bench (it takes the key before the window's
    Ctrl+Enter, which runs the suite)."""

    triggered = Signal()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if not isinstance(event, QKeyEvent) or not is_run_key(event):
            return super().eventFilter(watched, event)
        if event.type() == QEvent.Type.ShortcutOverride:
            event.accept()
            return True
        if event.type() == QEvent.Type.KeyPress:
            self.triggered.emit()
            return True
        return super().eventFilter(watched, event)


def _table(model: AxResultModel | Bm25ResultModel) -> QTableView:
    view = QTableView()
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setItemDelegateForColumn(model.COL_SCORE, ScoreBarDelegate(view))
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setDefaultSectionSize(22)
    view.setAlternatingRowColors(True)
    # Every header whole ("coverage", not "overage"; "bm25", not "b"), numbers as wide as
    # they are, ids and texts sharing what is left of a narrow dock (elided).
    id_width = view.fontMetrics().horizontalAdvance("x" * ID_CHARS)
    FittedColumns(
        view, model.FLEXIBLE, {model.COL_SCORE: SCORE_BAR_WIDTH, model.COL_ID: id_width}
    )
    return view


class BenchPanel(QWidget):
    ran = Signal()
    explained = Signal()
    #: kind, search strings, loaded ids, returned ids: "Add as case…" for a suite.
    add_case_requested = Signal(str, list, list, list)

    def __init__(self, state: RetrievalState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("benchPanel")
        self.state = state
        self.result: BenchResult | None = None
        self.why: WhyNot | None = None
        self.last_run_ms = 0.0
        #: The last run shows no BM25 column yet: its index is being built, or its call
        #: runs on the task runner (`_bm25_ticket`).
        self.bm25_pending = False
        self._bm25_ticket: int | None = None

        self.kind_combo = QComboBox()
        for kind, title in KINDS:
            self.kind_combo.addItem(title, kind)
        self.searches_edit = QPlainTextEdit()
        self.searches_edit.setObjectName("benchSearches")
        self.searches_edit.setPlaceholderText(
            "Search strings, one per line — e.g.\nhow do I ship a release\nrollback"
        )
        self.searches_edit.setTabChangesFocus(True)
        self.loaded_edit = QLineEdit()
        self.loaded_edit.setPlaceholderText("Loaded ids: a, b")
        self.loaded_edit.setToolTip(
            "recall skips memories already in inputs.memories (ids, comma-separated)"
        )
        # Named apart from the Suites page's "Run suites", which shows beside it there.
        self.run_button = QPushButton("Run bench  (Ctrl+Enter)")
        self.run_button.setObjectName("benchRun")
        self.run_button.setToolTip("Run these search strings (Ctrl+Enter anywhere in the bench)")
        self.run_button.setDefault(False)
        self.add_case_button = QPushButton("Add as case…")
        self.add_case_button.setObjectName("addAsCase")
        self.add_case_button.setToolTip(
            "Keep this call as a retrieval suite case, expecting what it returns now"
        )
        self.add_case_button.setEnabled(False)
        self.status = plain_label("Type search strings and press Ctrl+Enter.")
        self.status.setObjectName("benchStatus")
        self.status.setWordWrap(True)

        inputs = QWidget()
        inputs_layout = QVBoxLayout(inputs)
        inputs_layout.setContentsMargins(0, 0, 0, 0)
        inputs_layout.setSpacing(4)
        inputs_layout.addWidget(self.kind_combo)
        inputs_layout.addWidget(self.searches_edit, 1)
        inputs_layout.addWidget(self.loaded_edit)
        run_row = QHBoxLayout()
        run_row.addWidget(self.run_button, 1)
        run_row.addWidget(self.add_case_button)
        inputs_layout.addLayout(run_row)
        inputs_layout.addWidget(self.status)
        self._inputs_layout = inputs_layout

        self.ax_model = AxResultModel()
        self.ax_table = _table(self.ax_model)
        self.ax_table.setObjectName("axResults")
        self.bm25_model = Bm25ResultModel()
        self.bm25_table = _table(self.bm25_model)
        self.bm25_table.setObjectName("bm25Results")
        self.bm25_table.setToolTip(
            "What a host onSkillsSearch / onMemoriesSearch backed by BM25 (SQLite FTS5, "
            "full content, no stopwords, no stemming) would return for the same strings"
        )
        ax_box = self._titled("Ax built-in search", self.ax_table)
        bm25_box = self._titled("BM25 (SQLite FTS5) — a host search", self.bm25_table)

        self.entry_view = EntryView()
        self.why_id_edit = QLineEdit()
        self.why_id_edit.setObjectName("whyNotId")
        self.why_id_edit.setPlaceholderText("Entry id (any, returned or not)")
        self.why_completer_model = QStringListModel(self)
        completer = QCompleter(self.why_completer_model, self)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.why_id_edit.setCompleter(completer)
        self.why_button = QPushButton("Why not?")
        self.why_view = QTextBrowser()
        self.why_view.setObjectName("whyNotReport")
        self.why_view.setOpenLinks(False)
        self.why_view.setPlaceholderText(
            "Pick an entry the call did not return (double-click a BM25 row, or type its "
            "id) to see its tokens, stopwords, what lies beyond the cut, and its rank."
        )
        why = QWidget()
        why_layout = QVBoxLayout(why)
        why_layout.setContentsMargins(0, 0, 0, 0)
        why_row = QHBoxLayout()
        why_row.addWidget(self.why_id_edit, 1)
        why_row.addWidget(self.why_button)
        why_layout.addLayout(why_row)
        why_layout.addWidget(self.why_view, 1)
        self.detail_tabs = QTabWidget()
        self.detail_tabs.setDocumentMode(True)
        self.detail_tabs.addTab(self.entry_view, "Entry")
        self.detail_tabs.addTab(why, "Why not?")

        self.split = QSplitter(Qt.Orientation.Horizontal)
        self.split.setChildrenCollapsible(False)
        for widget in (inputs, ax_box, bm25_box, self.detail_tabs):
            self.split.addWidget(widget)
        # At 1366×768 (a 1,350-pixel window) both tables show every column whole; the
        # inputs keep their width when the window grows, the rest share it.
        self.split.setSizes(list(SPLIT_SIZES))
        for pane, stretch in enumerate((0, 1, 1, 1)):
            self.split.setStretchFactor(pane, stretch)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 4)
        layout.addWidget(self.split)

        self.run_filter = RunKeyFilter(self)
        self.run_filter.triggered.connect(self.run)
        for widget in (
            self.kind_combo,
            self.searches_edit,
            self.loaded_edit,
            self.run_button,
            self.ax_table,
            self.bm25_table,
            self.why_id_edit,
            self.entry_view,
        ):
            widget.installEventFilter(self.run_filter)

        self.kind_combo.currentIndexChanged.connect(self._on_kind)
        self.searches_edit.textChanged.connect(self._on_searches_edited)
        self.run_button.clicked.connect(self.run)
        self.add_case_button.clicked.connect(lambda _c=False: self.request_add_case())
        self.why_button.clicked.connect(self.explain_current)
        self.why_id_edit.returnPressed.connect(self.explain_current)
        self.ax_table.selectionModel().currentRowChanged.connect(self._on_ax_row)
        self.bm25_table.selectionModel().currentRowChanged.connect(self._on_bm25_row)
        self.ax_table.doubleClicked.connect(self._on_double_click)
        self.bm25_table.doubleClicked.connect(self._on_double_click)
        state.changed.connect(self._on_catalog_changed)
        state.bm25_ready.connect(self._on_bm25_ready)
        state.bm25_rows_ready.connect(self._on_bm25_rows)
        self._completer_for: tuple[int, str, tuple[int, int]] | None = None
        self.why_id_edit.installEventFilter(self)
        self._on_kind()
        # Styled per widget, not as a container (see `style_leaves`).
        style_leaves(self, "retrieval")

    @staticmethod
    def _titled(title: str, widget: QWidget) -> QWidget:
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        label = plain_label(title)
        label.setObjectName("benchHeading")
        layout.addWidget(label)
        layout.addWidget(widget, 1)
        return box

    # inputs -------------------------------------------------------------------------
    def kind(self) -> BenchKind:
        data = self.kind_combo.currentData()
        return "recall" if data == "recall" else "discover"

    def set_kind(self, kind: BenchKind) -> None:
        self.kind_combo.setCurrentIndex(self.kind_combo.findData(kind))

    def set_searches(self, searches: list[str]) -> None:
        self.searches_edit.setPlainText("\n".join(searches))

    def set_loaded(self, ids: list[str]) -> None:
        self.loaded_edit.setText(", ".join(ids))

    def _on_kind(self) -> None:
        recall = self.kind() == "recall"
        self.loaded_edit.setVisible(recall)
        self._fit_inputs()
        self._fill_completer()
        # Results of the other call (and its "Why not?") would now be misleading.
        self.clear_results("Press Ctrl+Enter to run the search as " + self.kind() + ".")

    def _fit_inputs(self) -> None:
        """The inputs ask for the same height in both calls: recall's loaded-ids row
        comes out of the search strings' minimum. (The dock grew by that row when the
        bench switched to recall, e.g. on the Memories page, and stayed tall after: the
        skill editor lost two lines.)"""
        if self.loaded_edit.isHidden():
            self.searches_edit.setMinimumHeight(0)  # its own minimum again
            return
        row = self.loaded_edit.sizeHint().height() + self._inputs_layout.spacing()
        least = self.searches_edit.minimumSizeHint().height() - row
        floor = self.searches_edit.fontMetrics().lineSpacing() + 2 * self.searches_edit.frameWidth()
        self.searches_edit.setMinimumHeight(max(least, floor))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.StyleChange, QEvent.Type.FontChange):
            self._fit_inputs()  # a theme's sizes

    def _on_searches_edited(self) -> None:
        if self.result is not None and not self.searches_edit.toPlainText().strip():
            self.clear_results("Type search strings and press Ctrl+Enter.")

    def clear_results(self, status: str) -> None:
        """Forget the last run: tables, the entry shown, the "Why not?" report."""
        if self.result is None and self.why is None:
            return
        self.result = None
        self.why = None
        self.bm25_pending = False
        self._bm25_ticket = None
        self.ax_model.set_rows(())
        self.bm25_model.set_rows((), {})
        self.entry_view.clear()
        self.why_id_edit.clear()
        self.why_view.clear()
        self.add_case_button.setEnabled(False)
        self.status.setText(status)
        self.status.setProperty("error", False)
        self.status.style().polish(self.status)

    def _fill_completer(self) -> None:
        """The id completer lists every id of the domain (100,000 memories): filled when
        the id field is used, not after every catalog edit."""
        self._completer_for = None
        if self.why_id_edit.hasFocus():
            self._complete_now()

    def _complete_now(self) -> None:
        live, domain = self.state.live, searched_by(self.kind())
        key = (id(live), domain, live.version)
        if key != self._completer_for:
            self._completer_for = key
            self.why_completer_model.setStringList(live.ids(domain))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.why_id_edit and event.type() == QEvent.Type.FocusIn:
            self._complete_now()
        return super().eventFilter(watched, event)

    def _on_catalog_changed(self) -> None:
        self._fill_completer()
        if self.result is not None:
            self.run()

    def _on_bm25_ready(self, domain: str) -> None:
        if self.bm25_pending and self.result is not None and searched_by(self.kind()) == domain:
            self.run()

    # running ------------------------------------------------------------------------
    def run(self) -> None:
        if not self.state.ready:
            self.status.setText("Indexing the catalog… run again in a moment.")
            return
        searches = parse_searches(self.searches_edit.toPlainText())
        if not searches:
            self.status.setText("Type at least one search string (one per line).")
            return
        started = time.perf_counter()
        loaded = parse_ids(self.loaded_edit.text())
        # BM25 beside Ax: its index is built on the task runner, and each call runs there
        # too (FTS5 scores every document a word matches); the column fills in after.
        domain = searched_by(self.kind())
        result = run_bench(self.state.live, self.kind(), searches, loaded, with_bm25=False)
        have_index = self.state.has_bm25(domain)
        self._bm25_ticket = None
        if have_index and result.error is None and result.call is not None:
            queries, cap = result.call.queries, result.per_string_cap
            ticket = self.state.search_bm25(domain, queries, result.loaded, cap, result.result_ids)
            if ticket is None:  # no task runner: here
                rows = bm25_call(
                    self.state.live, result.kind, queries, result.loaded, cap, result.result_ids
                )
                result = replace(result, bm25_rows=rows)
            self._bm25_ticket = ticket
        self.bm25_pending = not have_index or self._bm25_ticket is not None
        self.last_run_ms = (time.perf_counter() - started) * 1000
        self.result = result
        self._show_result(result)
        if self.why is not None:
            self.explain(self.why.entry_id)
        if not have_index:
            # Built when the bench is first run (only its column uses it), once Ax's
            # result is shown and painted: a build under way would share the GIL with
            # painting it (the first recall at 100,000 memories took 58 ms instead of 15).
            QTimer.singleShot(BM25_BUILD_DELAY_MS, lambda d=domain: self._build_bm25(d))
        if self._bm25_ticket is None:
            self.ran.emit()

    def _build_bm25(self, domain: str) -> None:
        if self.state.usable():
            self.state.ensure_bm25(domain)

    def _on_bm25_rows(self, ticket: int, rows: object) -> None:
        if ticket != self._bm25_ticket or self.result is None or not isinstance(rows, tuple):
            return
        self._bm25_ticket = None
        self.bm25_pending = False
        self.result = replace(self.result, bm25_rows=rows)
        self._show_result(self.result)
        self.ran.emit()

    def _show_result(self, result: BenchResult) -> None:
        keep = self.entry_view.entry_id
        self.ax_model.set_rows(result.rows)
        terms = {q: query_words(q) for q in (result.call.queries if result.call else ())}
        self.bm25_model.set_rows(result.bm25_rows, terms)
        if result.error is not None:
            self.status.setText(result.error)
            self.status.setProperty("error", True)
        else:
            strings = len(result.call.queries) if result.call else 0
            only_bm25 = len(result.only_bm25())
            bm25 = (
                f"BM25: {len(result.bm25_rows)}, {only_bm25} not in Ax"
                if not self.bm25_pending
                else "BM25: searching…"
                if self._bm25_ticket is not None
                else "BM25: indexing…"
            )
            self.status.setText(
                f"{len(result.rows)} returned by {strings} search string(s) "
                f"(top {result.per_string_cap} each) · {bm25} · {self.last_run_ms:.1f} ms"
            )
            self.status.setProperty("error", False)
        self.status.style().polish(self.status)
        self.add_case_button.setEnabled(result.error is None and bool(result.rows))
        if keep is not None and keep in result.result_ids:
            self.ax_table.selectRow(result.result_ids.index(keep))
        elif result.rows:
            self.ax_table.selectRow(0)
        else:
            self.entry_view.show_entry(self.state.live, searched_by(self.kind()), "", [])

    def request_add_case(self) -> None:
        result = self.result
        if result is None or result.error is not None:
            return
        self.add_case_requested.emit(
            result.kind, list(result.searches), list(result.loaded), list(result.result_ids)
        )

    # detail -------------------------------------------------------------------------
    def _on_ax_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._show_row(current)

    def _on_bm25_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._show_row(current)

    def _show_row(self, index: QModelIndex) -> None:
        if not index.isValid() or self.result is None:
            return
        entry_id = str(index.data(BenchRole.EntryId))
        terms = index.data(BenchRole.Terms) or []
        self.entry_view.show_entry(self.state.live, self.result.domain, entry_id, terms)

    def _on_double_click(self, index: QModelIndex) -> None:
        if index.isValid():
            self.explain(str(index.data(BenchRole.EntryId)))

    def explain_current(self) -> None:
        entry_id = self.why_id_edit.text().strip()
        if entry_id:
            self.explain(entry_id)

    def explain(self, entry_id: str) -> None:
        """Explain `entry_id` against the current search strings (shown in "Why not?")."""
        self.why_id_edit.setText(entry_id)
        self.detail_tabs.setCurrentIndex(1)
        searches = parse_searches(self.searches_edit.toPlainText())
        try:
            result = why_not(
                self.state.live,
                self.kind(),
                entry_id,
                searches,
                parse_ids(self.loaded_edit.text()),
            )
        except AxmemError as exc:
            self.why = None
            self.why_view.setPlainText(str(exc))
            self.explained.emit()
            return
        self.why = result
        self.why_view.setHtml(why_not_html(result))
        self.explained.emit()
