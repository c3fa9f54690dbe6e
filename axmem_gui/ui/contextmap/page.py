"""The context map page: timeline (left), the selected map (centre) with step slider,
diff toggle and budget gauge; its editing and file actions live in `page_actions`.

Reads through the controller's workspace and the services; edits go through `MapEditor`
commands on the window's undo stack; nothing here writes history in place.
"""

from __future__ import annotations

from PySide6.QtCore import QItemSelection, QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QKeySequence, QUndoStack
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QPlainTextEdit,
    QSlider,
    QSplitter,
    QStackedWidget,
    QTableView,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.contextmap import ContextMapState, diff_maps
from axmem_gui.services import contextmaps as svc
from axmem_gui.ui.contextmap.delegates import MapItemDelegate
from axmem_gui.ui.contextmap.editing import DRAFT_KEY, Draft, MapEditor, Source
from axmem_gui.ui.contextmap.gauge import BudgetGauge
from axmem_gui.ui.contextmap.map_model import COL_ID, COL_SCORE, COL_TEXT, MapRole, MapTreeModel
from axmem_gui.ui.contextmap.page_actions import MapEditingMixin
from axmem_gui.ui.contextmap.timeline_model import (
    COL_EVICTED,
    COL_LABEL,
    COL_SESSION,
    TimelineModel,
)
from axmem_gui.ui.controller import WorkspaceController
from axmem_gui.ui.fitted_columns import FittedColumns
from axmem_gui.ui.inert_text import plain_label
from axmem_gui.ui.pages import empty_state
from axmem_gui.ui.resources import style_sheet

EMPTY_TEXT = (
    "No context map snapshots yet — they are recorded with each session of an agent that "
    "has a context map; or import a snapshot (File > Import snapshot…)"
)
PREVIOUS = ""
#: The timeline's width: its five headers whole beside row numbers up to 999.
TIMELINE_WIDTH = 400  # the compare combo's "previous snapshot" choice


class ContextMapPage(MapEditingMixin):
    message = Signal(str)

    def __init__(self, controller: WorkspaceController, undo_stack: QUndoStack) -> None:
        super().__init__()
        self.setObjectName("contextMapPage")
        self.controller = controller
        self.undo_stack = undo_stack
        self.editor = MapEditor(self)
        self.editor.draft_changed.connect(self._on_draft_changed)
        self.timeline_model = TimelineModel()
        self.map_model = MapTreeModel()
        self.map_model.set_editable(True)
        # Queued: the view's editor closes before the command resets the model.
        conn = Qt.ConnectionType.QueuedConnection
        self.map_model.text_edit_requested.connect(self.edit_item_text, conn)
        self.map_model.score_edit_requested.connect(self.set_item_score, conn)
        self._agent: str | None = None
        self._focus_item: str | None = None
        self._build()
        self.setStyleSheet(style_sheet("contextmap"))
        controller.opened.connect(self._on_workspace_opened)
        self.reload()

    # construction -------------------------------------------------------------------
    def _build(self) -> None:
        self.agent_combo = QComboBox()
        self.agent_combo.setObjectName("agentPicker")
        self.agent_combo.setMinimumContentsLength(14)
        self.agent_combo.currentIndexChanged.connect(self._on_agent_picked)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setObjectName("stepSlider")
        self.slider.setPageStep(1)
        self.slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.slider.valueChanged.connect(self._on_slider)
        self.slider_label = plain_label()
        self.slider_label.setObjectName("sliderLabel")
        self.diff_button = QToolButton()
        self.diff_button.setText("Diff")
        self.diff_button.setCheckable(True)
        self.diff_button.setShortcut(QKeySequence("Ctrl+D"))
        self.diff_button.setToolTip("Highlight what changed since another snapshot (Ctrl+D)")
        self.diff_button.toggled.connect(self._show_current)
        self.raw_button = QToolButton()
        self.raw_button.setText("Raw text")
        self.raw_button.setCheckable(True)
        self.raw_button.setToolTip("The map text exactly as Ax shows it to the model")
        self.raw_button.toggled.connect(self._show_current)
        self.compare_combo = QComboBox()
        self.compare_combo.setObjectName("compareCombo")
        self.compare_combo.setMinimumContentsLength(16)
        self.compare_combo.currentIndexChanged.connect(self._show_current)
        top = QHBoxLayout()
        top.addWidget(plain_label("Agent"))
        top.addWidget(self.agent_combo)
        top.addSpacing(12)
        top.addWidget(self.slider, 1)
        top.addWidget(self.slider_label)
        top.addSpacing(12)
        top.addWidget(self.raw_button)
        top.addWidget(self.diff_button)
        top.addWidget(plain_label("against"))
        top.addWidget(self.compare_combo)

        self.timeline_view = QTableView()
        self.timeline_view.setObjectName("timeline")
        self.timeline_view.setModel(self.timeline_model)
        self.timeline_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.timeline_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.timeline_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.timeline_view.verticalHeader().setDefaultSectionSize(22)
        self.timeline_view.setWordWrap(False)
        # Every header whole in a laptop's 1350-pixel window (it cut "Chars" and hid
        # "Evicted" behind a scroll bar): numbers as wide as they are, the session's
        # name and the snapshot's label elided first, "Evicted" (what each update pushed
        # out) taking what is left.
        FittedColumns(self.timeline_view, (COL_SESSION, COL_LABEL, COL_EVICTED))
        self.timeline_view.selectionModel().selectionChanged.connect(self._on_timeline_selection)
        self.details = QPlainTextEdit()
        self.details.setObjectName("updateDetails")
        self.details.setReadOnly(True)
        self.details.setPlaceholderText("Select a snapshot to see the update that made it.")
        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(self.timeline_view)
        left.addWidget(self.details)
        left.setSizes([300, 220])

        self.gauge = BudgetGauge()
        self.next_out_label = plain_label()
        self.next_out_label.setObjectName("nextOutLabel")
        self.settings_label = plain_label()
        self.settings_label.setObjectName("mapSettings")
        self.diff_label = plain_label()
        self.diff_label.setObjectName("diffSummary")
        self.toolbar = self._build_toolbar()
        self.tree = QTreeView()
        self.tree.setObjectName("mapTree")
        self.tree.setModel(self.map_model)
        self.tree.setItemDelegate(MapItemDelegate(self.tree))
        self.tree.setUniformRowHeights(False)
        self.tree.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
        )
        self.tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.tree.setAllColumnsShowFocus(True)
        tree_header = self.tree.header()
        tree_header.setStretchLastSection(False)
        tree_header.setSectionResizeMode(COL_ID, QHeaderView.ResizeMode.Interactive)
        tree_header.setSectionResizeMode(COL_TEXT, QHeaderView.ResizeMode.Stretch)
        tree_header.setSectionResizeMode(COL_SCORE, QHeaderView.ResizeMode.Fixed)
        self.tree.setColumnWidth(COL_ID, 172)
        self.tree.setColumnWidth(COL_SCORE, 84)
        self.map_model.modelReset.connect(self._after_map_reset)
        self.tree.selectionModel().selectionChanged.connect(self._update_actions)

        gauge_row = QHBoxLayout()
        gauge_row.addWidget(self.gauge, 1)
        gauge_row.addWidget(self.next_out_label)
        self.no_snapshots = empty_state("")
        self.center_stack = QStackedWidget()
        self.center_stack.addWidget(self.tree)
        self.center_stack.addWidget(self.no_snapshots)
        self.raw_text = QPlainTextEdit()
        self.raw_text.setObjectName("rawMapText")
        self.raw_text.setReadOnly(True)
        self.raw_text.setProperty("exactText", True)
        self.raw_text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.center_stack.addWidget(self.raw_text)
        center = QWidget()
        center_layout = QVBoxLayout(center)
        center_layout.setContentsMargins(0, 0, 0, 0)
        center_layout.addLayout(gauge_row)
        center_layout.addWidget(self.settings_label)
        center_layout.addWidget(self.toolbar)
        center_layout.addWidget(self.diff_label)
        center_layout.addWidget(self.center_stack, 1)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(center)
        split.setStretchFactor(1, 1)
        split.setSizes([TIMELINE_WIDTH, 700])
        self.content = content = QWidget()
        content_layout = QVBoxLayout(content)
        content_layout.setContentsMargins(0, 0, 0, 0)
        content_layout.addLayout(top)
        content_layout.addWidget(split, 1)

        self.empty = empty_state(EMPTY_TEXT)
        self.stack = QStackedWidget()
        self.stack.addWidget(content)
        self.stack.addWidget(self.empty)
        heading = plain_label("Context maps")
        heading.setObjectName("sectionTitle")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(heading)
        layout.addWidget(self.stack, 1)

    # loading --------------------------------------------------------------------------
    @property
    def agent(self) -> str | None:
        return self._agent

    def reload(self, select_key: str | None = None) -> None:
        ws = self.controller.workspace
        agents = svc.map_agents(ws)
        draft = self.editor.draft
        if draft is not None and draft.agent not in agents:
            agents.append(draft.agent)
        agent = self._agent if self._agent in agents else self._first_agent(agents)
        self.agent_combo.blockSignals(True)
        self.agent_combo.clear()
        for name in agents:
            self.agent_combo.addItem(name or "(no agent)", name)
        self.agent_combo.setCurrentIndex(agents.index(agent) if agent is not None else -1)
        self.agent_combo.blockSignals(False)
        self._agent = agent
        self.stack.setCurrentWidget(self.content if agents else self.empty)
        self._load_timeline(select_key or self.current_key())

    def _first_agent(self, agents: list[str]) -> str | None:
        with_snapshots = svc.agents_with_snapshots(self.controller.workspace)
        return next((a for a in agents if a in with_snapshots), agents[0] if agents else None)

    def _load_timeline(self, select_key: str | None) -> None:
        entries = (
            svc.timeline(self.controller.workspace, self._agent) if self._agent is not None else []
        )
        draft = self.editor.draft
        shown_draft = draft if draft is not None and draft.agent == self._agent else None
        self.timeline_model.set_rows(entries, shown_draft)
        rows = self.timeline_model.rowCount()
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(0, rows - 1))
        self.slider.setEnabled(rows > 1)
        self.slider.blockSignals(False)
        self._fill_compare_combo()
        row = self.timeline_model.row_of_key(select_key) if select_key else -1
        self.select_row(row if row >= 0 else rows - 1)
        if rows == 0:
            self._show_current()

    def _fill_compare_combo(self) -> None:
        chosen = self.compare_combo.currentData()
        self.compare_combo.blockSignals(True)
        self.compare_combo.clear()
        self.compare_combo.addItem("previous snapshot", PREVIOUS)
        for i, entry in enumerate(self.timeline_model.entries()):
            self.compare_combo.addItem(f"{i + 1}. {entry.label or 'snapshot'}", entry.key)
        found = self.compare_combo.findData(chosen) if chosen else 0
        self.compare_combo.setCurrentIndex(max(0, found))
        self.compare_combo.blockSignals(False)

    def _on_workspace_opened(self) -> None:
        self.editor.reset()
        self._agent = None
        self.reload()

    def _on_agent_picked(self, index: int) -> None:
        self._agent = self.agent_combo.itemData(index) if index >= 0 else None
        self._load_timeline(None)

    def select_agent(self, agent: str) -> None:
        index = self.agent_combo.findData(agent)
        if index >= 0:
            self.agent_combo.setCurrentIndex(index)

    # selection ------------------------------------------------------------------------
    def select_row(self, row: int) -> None:
        if row < 0:
            self.timeline_view.clearSelection()
            return
        index = self.timeline_model.index(row, 0)
        self.timeline_view.selectionModel().select(
            index,
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows,
        )
        self.timeline_view.setCurrentIndex(index)
        self.timeline_view.scrollTo(index)

    def select_key(self, key: str) -> bool:
        row = self.timeline_model.row_of_key(key)
        if row >= 0:
            self.select_row(row)
        return row >= 0

    def current_row(self) -> int:
        rows = self.timeline_view.selectionModel().selectedRows()
        return rows[0].row() if rows else -1

    def current_key(self) -> str | None:
        item = self.current_source()
        if item is None:
            return None
        return DRAFT_KEY if isinstance(item, Draft) else item.key

    def current_source(self) -> Source | None:
        return self.timeline_model.row_item(self.current_row())

    def current_state(self) -> ContextMapState | None:
        source = self.current_source()
        return source.stored.state if source is not None else None

    def _on_timeline_selection(self, *_: QItemSelection) -> None:
        row = self.current_row()
        self.slider.blockSignals(True)
        self.slider.setValue(max(0, row))
        self.slider.blockSignals(False)
        total = self.timeline_model.rowCount()
        self.slider_label.setText(f"{row + 1} / {total}" if row >= 0 else "–")
        self._show_current()

    def _on_slider(self, value: int) -> None:
        self.select_row(value)

    # showing the map ------------------------------------------------------------------
    def compare_source(self) -> Source | None:
        """The snapshot the diff compares against (None when the diff is off)."""
        source = self.current_source()
        if source is None or not self.diff_button.isChecked():
            return None
        chosen = self.compare_combo.currentData()
        if chosen:
            return self.timeline_model.row_item(self.timeline_model.row_of_key(chosen))
        if isinstance(source, Draft):
            return source.base
        entries = self.timeline_model.entries()
        key = svc.previous_key(entries, self.current_row())
        return self.timeline_model.row_item(self.timeline_model.row_of_key(key)) if key else None

    def _show_current(self) -> None:
        source = self.current_source()
        compare = self.compare_source()
        state = source.stored.state if source is not None else None
        self.map_model.set_map(state, compare.stored.state if compare is not None else None)
        self.gauge.set_state(state)
        if source is None:
            self.center_stack.setCurrentWidget(self.no_snapshots)
        elif self.raw_button.isChecked():
            if self.raw_text.toPlainText() != source.stored.state.text:
                self.raw_text.setPlainText(source.stored.state.text)
            self.center_stack.setCurrentWidget(self.raw_text)
        else:
            self.center_stack.setCurrentWidget(self.tree)
        self.no_snapshots.setText(
            f"No context map snapshots of {self._agent or 'this agent'} yet — run it, or "
            "import a snapshot (File > Import snapshot…)."
        )
        self._show_details(source)
        self._show_settings(source)
        self._show_diff_summary(source, compare)
        self._update_actions()

    def _after_map_reset(self) -> None:
        self.tree.expandAll()
        for row in range(self.map_model.rowCount()):
            self.tree.setFirstColumnSpanned(row, QModelIndex(), True)
        if self._focus_item is not None:
            index = self.map_model.index_of_item(self._focus_item, COL_ID)
            self._focus_item = None
            if index.isValid():
                self.tree.setCurrentIndex(index)
                self.tree.scrollTo(index)

    def _show_details(self, source: Source | None) -> None:
        if source is None:
            self.details.clear()
            return
        if isinstance(source, Draft):
            lines = [f"Unsaved edits of “{source.base.label or 'snapshot'}”:"]
            lines += [f"  {edit}" for edit in source.edits]
            lines.append("Save snapshot (Ctrl+S) stores them as a new snapshot; Undo steps back.")
        else:
            where = f"session “{source.session_name}”" if source.session_id else "no session"
            lines = [f"{source.label or 'snapshot'} · {where} · step {source.step}", ""]
            lines += svc.describe_update(source.update)
        self.details.setPlainText("\n".join(lines))

    def _show_settings(self, source: Source | None) -> None:
        if source is None:
            self.settings_label.clear()
            self.next_out_label.clear()
            return
        state = source.stored.state
        if state.infinite_evolve:
            evolve = "evolves after every run"
        elif state.frozen:
            evolve = f"frozen (evolveSteps {state.evolve_steps}; Ax skips further updates)"
        else:
            evolve = f"evolves until step {state.evolve_steps}"
        shape = "TS snapshot" if source.stored.shape.value == "ts-snapshot" else "axllm dict"
        items = sum(1 for r in self.map_model.item_rows() if not r.removed)
        self.settings_label.setText(f"step {state.steps} · {evolve} · {items} items · {shape}")
        marked = [r for r in self.map_model.item_rows() if r.evict_next]
        if not marked:
            self.next_out_label.setText("nothing to evict")
        elif marked[0].pending_evict:
            ids = ", ".join(r.item_id for r in marked)
            self.next_out_label.setText(f"the next update evicts: {ids}")
        else:
            self.next_out_label.setText(f"next out: {marked[0].item_id}")

    def _show_diff_summary(self, source: Source | None, compare: Source | None) -> None:
        if source is None or not self.diff_button.isChecked():
            self.diff_label.setVisible(False)
            return
        self.diff_label.setVisible(True)
        if compare is None:
            self.diff_label.setText("Diff: nothing to compare with (the first snapshot).")
            return
        diff = diff_maps(compare.stored.state, source.stored.state)
        name = compare.label if not isinstance(compare, Draft) else "edited (unsaved)"
        parts = [
            f"+{len(diff.added)} added",
            f"−{len(diff.removed)} removed",
            f"~{len(diff.replaced)} replaced",
            f"{len(diff.rescored)} rescored",
        ]
        if diff.moved:
            parts.append(f"{len(diff.moved)} moved")
        parts.append(f"steps {diff.steps[0]} → {diff.steps[1]}")
        if diff.max_chars[0] != diff.max_chars[1]:
            parts.append(f"maxChars {diff.max_chars[0]:,} → {diff.max_chars[1]:,}")
        if diff.layout_changed:
            parts.append("headers or notes changed")
        if diff.is_empty:
            parts = ["no changes"]
        self.diff_label.setText(f"Diff against “{name}”: " + " · ".join(parts))

    def _on_draft_changed(self, focus: str) -> None:
        draft = self.editor.draft
        if draft is not None and draft.agent != self._agent:
            self._agent = draft.agent
            self.reload(focus)
            return
        self._load_timeline(focus or self.current_key())

    def item_index(self, item_id: str, column: int = COL_TEXT) -> QModelIndex:
        return self.map_model.index_of_item(item_id, column)

    def select_item(self, item_id: str) -> bool:
        index = self.item_index(item_id, COL_ID)
        if index.isValid():
            self.tree.setCurrentIndex(index)
        return index.isValid()

    def marked_ids(self) -> list[str]:
        return [r.item_id for r in self.map_model.item_rows() if r.evict_next]

    def item_changes(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for s in range(self.map_model.rowCount()):
            section = self.map_model.index(s, 0)
            for r in range(self.map_model.rowCount(section)):
                index = self.map_model.index(r, 0, section)
                out[str(index.data(MapRole.ItemId))] = list(index.data(MapRole.Changes))
        return out
