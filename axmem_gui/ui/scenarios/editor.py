"""The scenario form: task, runtime, relevanceRanking, preset skills, preloaded memories
and the turns table, over a typed `ScenarioDocument`. It never writes: every edit is
emitted as the whole new document (`edited(what, document, merge_key)`), and the page
makes it an undoable command. A stored document that does not read shows its error and
cannot be edited field by field."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QStringListModel, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QCompleter,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLineEdit,
    QListView,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.ax.profile import load_profile
from axmem_gui.core.ax.scenario import Scenario, ScenarioTurn, SearchArg
from axmem_gui.core.scenarios import ScenarioDocument, item_id, item_label, ranking_number
from axmem_gui.services.scenarios import RUNTIMES
from axmem_gui.ui.fitted_columns import FittedColumns
from axmem_gui.ui.inert_text import plain_label
from axmem_gui.ui.scenarios.models import TurnsModel
from axmem_gui.ui.whole_text import fit_placeholder

RANKING_ON, RANKING_OFF, RANKING_CUSTOM = "on", "off", "custom"
#: The turns table always has room for this many rows (the setup above scrolls).
TURN_ROWS = 4
#: relevanceRanking keys, their spin box ranges and the value a new custom object starts at.
RANKING_FIELDS = (
    ("topK", 0, 50, 1.0, 0),
    ("minScore", 0.0, 1.0, 0.01, 2),
    ("marginRatio", 0.0, 1.0, 0.01, 2),
    ("minDocs", 0, 1000, 1.0, 0),
)


class LinesDelegate(QStyledItemDelegate):
    """Edits a call's search strings in a small multi-line editor (one per line)."""

    def createEditor(
        self, parent: QWidget, option: QStyleOptionViewItem, index: Any
    ) -> QWidget:
        del option, index
        editor = QPlainTextEdit(parent)
        editor.setTabChangesFocus(True)
        editor.setMinimumHeight(60)
        return editor

    def setEditorData(self, editor: QWidget, index: Any) -> None:
        if isinstance(editor, QPlainTextEdit):
            editor.setPlainText(str(index.data(Qt.ItemDataRole.EditRole) or ""))

    def setModelData(self, editor: QWidget, model: Any, index: Any) -> None:
        if isinstance(editor, QPlainTextEdit):
            model.setData(index, editor.toPlainText(), Qt.ItemDataRole.EditRole)


class EntryPicker(QWidget):
    """A list of picked catalog ids with an id field (completing from the catalog)."""

    add_requested = Signal(str)
    remove_requested = Signal(int)

    def __init__(self, title: str, placeholder: str) -> None:
        super().__init__()
        self.model = QStringListModel(self)
        self.view = QListView()
        self.view.setModel(self.model)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setMaximumHeight(64)
        self.id_edit = QLineEdit()
        self.id_edit.setPlaceholderText(placeholder)
        self.completion = QStringListModel(self)
        completer = QCompleter(self.completion, self)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.id_edit.setCompleter(completer)
        # The id field shows its placeholder whole beside two buttons as small as their
        # words ("memory id…" was cut to "memor…" in a laptop's window).
        fit_placeholder(self.id_edit)
        self.add_button = QToolButton()
        self.add_button.setText("Add")
        self.remove_button = QToolButton()
        self.remove_button.setText("Remove")
        heading = plain_label(title)
        heading.setObjectName("formHeading")
        heading.setWordWrap(True)
        row = QHBoxLayout()
        row.setSpacing(4)
        row.addWidget(self.id_edit, 1)
        row.addWidget(self.add_button)
        row.addWidget(self.remove_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(heading)
        layout.addWidget(self.view)
        layout.addLayout(row)
        self.add_button.clicked.connect(self._on_add)
        self.id_edit.returnPressed.connect(self._on_add)
        self.remove_button.clicked.connect(self._on_remove)

    def set_items(self, items: list[str]) -> None:
        if self.model.stringList() != items:
            self.model.setStringList(items)

    def set_choices(self, ids: list[str]) -> None:
        self.completion.setStringList(ids)

    def _on_add(self) -> None:
        text = self.id_edit.text().strip()
        if text:
            self.add_requested.emit(text)

    def _on_remove(self) -> None:
        index = self.view.currentIndex()
        if index.isValid():
            self.remove_requested.emit(index.row())


#: The scenario fields whose items the pickers list.
PICKED = ("preset_skills", "preloaded_memories")


class ScenarioForm(QWidget):
    edited = Signal(str, object, object)  # what, new ScenarioDocument, merge key (None: no merge)
    add_preset = Signal(str)  # skill id
    add_memory = Signal(str)  # memory id
    turn_selected = Signal(int)
    message = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("scenarioForm")
        self.name: str | None = None
        self.document: ScenarioDocument | None = None
        self._filling = False
        self._read_only = False

        self.name_label = plain_label()
        self.name_label.setObjectName("sectionTitle")
        self.task_edit = QPlainTextEdit()
        self.task_edit.setObjectName("scenarioTask")
        self.task_edit.setPlaceholderText("The agent's task: the query the executor works on")
        self.task_edit.setMaximumHeight(72)
        self.runtime_combo = QComboBox()
        for runtime in RUNTIMES:
            self.runtime_combo.addItem(runtime, runtime)
        self.ranking_combo = QComboBox()
        self.ranking_combo.addItem("on (Ax defaults)", RANKING_ON)
        self.ranking_combo.addItem("off", RANKING_OFF)
        self.ranking_combo.addItem("custom", RANKING_CUSTOM)
        self.ranking_spins: dict[str, QSpinBox | QDoubleSpinBox] = {}
        ranking_row = QGridLayout()
        ranking_row.setSpacing(4)
        ranking_row.addWidget(self.ranking_combo, 0, 0, 1, 2)
        for i, (key, low, high, step, decimals) in enumerate(RANKING_FIELDS):
            spin: QSpinBox | QDoubleSpinBox
            if decimals:
                spin = QDoubleSpinBox()
                spin.setDecimals(decimals)
                spin.setRange(float(low), float(high))
                spin.setSingleStep(step)
            else:
                spin = QSpinBox()
                spin.setRange(int(low), int(high))
            spin.setToolTip(f"relevanceRanking.{key}")
            spin.setPrefix(f"{key} ")
            self.ranking_spins[key] = spin
            ranking_row.addWidget(spin, 1 + i // 2, i % 2)
        ranking_row.setColumnStretch(2, 1)
        self.presets = EntryPicker(
            "Preset skills (constructor skills, loaded from the first turn)", "skill id…"
        )
        self.memories = EntryPicker("Preloaded memories (inputs.memories)", "memory id…")
        self.turns_model = TurnsModel()
        self.turns_view = QTableView()
        self.turns_view.setObjectName("turnsTable")
        self.turns_view.setModel(self.turns_model)
        self.turns_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.turns_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.turns_view.setItemDelegateForColumn(TurnsModel.COL_DISCOVER, LinesDelegate(self))
        self.turns_view.setItemDelegateForColumn(TurnsModel.COL_RECALL, LinesDelegate(self))
        self.turns_view.verticalHeader().setVisible(False)
        self.turns_view.verticalHeader().setDefaultSectionSize(22)
        self.turns_view.setWordWrap(False)
        # Every header whole in the page's width: the search strings and what they load
        # are elided (their tooltips have them whole) rather than scroll sideways.
        FittedColumns(self.turns_view, (3, 4, 1, 2))
        self.add_turn_button = QPushButton("Add turn")
        self.remove_turn_button = QPushButton("Remove turn")
        self.errors_label = plain_label()
        self.errors_label.setObjectName("formErrors")
        self.errors_label.setWordWrap(True)
        self.errors_label.setVisible(False)

        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        form.addRow("Task", self.task_edit)
        form.addRow("Runtime", self.runtime_combo)
        form.addRow("Relevance hints", ranking_row)
        pickers = QHBoxLayout()
        pickers.addWidget(self.presets)
        pickers.addWidget(self.memories)
        setup = QWidget()
        setup.setObjectName("scenarioSetup")
        setup_layout = QVBoxLayout(setup)
        setup_layout.setContentsMargins(0, 0, 0, 0)
        setup_layout.setSpacing(6)
        setup_layout.addLayout(form)
        setup_layout.addLayout(pickers)
        setup_layout.addStretch(1)
        self.setup_scroll = QScrollArea()
        self.setup_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.setup_scroll.setWidgetResizable(True)
        self.setup_scroll.setWidget(setup)
        self.setup_scroll.setMinimumHeight(60)

        turn_buttons = QHBoxLayout()
        turns_heading = plain_label("Executor turns — the calls the model makes; select a turn "
                               "to preview what the model sees at its start")
        turns_heading.setObjectName("formHeading")
        turns_heading.setWordWrap(True)
        turn_buttons.addWidget(turns_heading, 1)
        turn_buttons.addWidget(self.add_turn_button)
        turn_buttons.addWidget(self.remove_turn_button)
        turns = QWidget()
        turns_layout = QVBoxLayout(turns)
        turns_layout.setContentsMargins(0, 0, 0, 0)
        turns_layout.setSpacing(6)
        turns_layout.addLayout(turn_buttons)
        turns_layout.addWidget(self.turns_view, 1)
        # The turns table keeps room for a few rows; the setup above it scrolls when the
        # window is short (on a laptop, under the bench, the table was out of sight
        # below the form).
        # (the header's hint before the style's polish is short: a row's height spare)
        rows = self.turns_view.verticalHeader().defaultSectionSize()
        self.turns_view.setMinimumHeight(
            self.turns_view.horizontalHeader().sizeHint().height()
            + (TURN_ROWS + 1) * rows
            + 2 * self.turns_view.frameWidth()
        )
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.setChildrenCollapsible(False)
        self.split.addWidget(self.setup_scroll)
        self.split.addWidget(turns)
        self.split.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(6)
        layout.addWidget(self.name_label)
        layout.addWidget(self.split, 1)
        layout.addWidget(self.errors_label)

        self.task_edit.textChanged.connect(self._on_task)
        self.runtime_combo.currentIndexChanged.connect(self._on_runtime)
        self.ranking_combo.currentIndexChanged.connect(self._on_ranking)
        for spin in self.ranking_spins.values():
            spin.valueChanged.connect(self._on_ranking)
        self.presets.add_requested.connect(self.add_preset)
        self.memories.add_requested.connect(self.add_memory)
        self.presets.remove_requested.connect(lambda row: self._remove_item("preset_skills", row))
        self.memories.remove_requested.connect(
            lambda row: self._remove_item("preloaded_memories", row)
        )
        self.turns_model.edit_requested.connect(self._on_turn_edit)
        self.add_turn_button.clicked.connect(self._add_turn)
        self.remove_turn_button.clicked.connect(self._remove_turn)
        self.turns_view.selectionModel().currentRowChanged.connect(
            lambda current, _previous: self.turn_selected.emit(current.row())
        )

    # filling ------------------------------------------------------------------------
    @property
    def scenario(self) -> Scenario | None:
        """The scenario shown (None: none, or its stored document does not read)."""
        return None if self.document is None else self.document.scenario

    def set_read_only(self, read_only: bool) -> None:
        self._read_only = read_only
        self._apply_read_only()

    def _apply_read_only(self) -> None:
        read_only = self._read_only or (self.document is not None and self.scenario is None)
        for widget in (self.task_edit,):
            widget.setReadOnly(read_only)
        for control in (self.runtime_combo, self.ranking_combo, self.presets, self.memories,
                        self.add_turn_button, self.remove_turn_button):
            control.setEnabled(not read_only)
        for spin in self.ranking_spins.values():
            spin.setReadOnly(read_only)
        self.turns_model.set_editable(not read_only)

    def set_document(self, document: ScenarioDocument) -> None:
        """Show a stored document (widgets already showing a value are left alone); one
        that does not read shows its error, with the fields empty and locked."""
        self._filling = True
        try:
            self.name = document.name
            self.document = document
            self.name_label.setText(document.name)
            scenario = document.scenario or Scenario()
            task = scenario.task or ""
            if self.task_edit.toPlainText() != task:
                self.task_edit.setPlainText(task)
            runtime = scenario.runtime
            if self.runtime_combo.findData(runtime) < 0:
                self.runtime_combo.addItem(runtime, runtime)
            self.runtime_combo.setCurrentIndex(self.runtime_combo.findData(runtime))
            self._fill_ranking(scenario.relevance_ranking)
            self.presets.set_items([item_label(s) for s in scenario.preset_skills])
            self.memories.set_items([item_id(m) or "?" for m in scenario.preloaded_memories])
            self.turns_model.set_turns(scenario.turns)
        finally:
            self._filling = False
        self.errors_label.setText(document.problem)
        self.errors_label.setVisible(bool(document.problem))
        self._apply_read_only()

    def _fill_ranking(self, value: bool | Mapping[str, Any]) -> None:
        mode = (
            RANKING_OFF if value is False else RANKING_CUSTOM if isinstance(value, Mapping)
            else RANKING_ON
        )
        self.ranking_combo.setCurrentIndex(self.ranking_combo.findData(mode))
        d = load_profile().rank_defaults
        defaults = {
            "topK": d.top_k, "minScore": d.min_score, "marginRatio": d.margin_ratio,
            "minDocs": d.min_docs,
        }
        for key, spin in self.ranking_spins.items():
            # What a spin box cannot show (NaN, null) shows the default.
            number = ranking_number(value, key)
            if number is None or not math.isfinite(number):
                number = defaults[key]
            if isinstance(spin, QSpinBox):
                spin.setValue(int(number))
            else:
                spin.setValue(float(number))
            spin.setEnabled(mode == RANKING_CUSTOM)

    # edits --------------------------------------------------------------------------
    def _emit(self, what: str, new: Scenario, merge_key: str | None = None) -> None:
        document = self.document
        if self._filling or document is None or document.scenario in (None, new):
            return
        self.edited.emit(what, document.with_scenario(new), merge_key)

    def _on_task(self) -> None:
        if self.scenario is not None:
            self._emit("task", replace(self.scenario, task=self.task_edit.toPlainText()), "task")

    def _on_runtime(self) -> None:
        if self.scenario is not None:
            runtime = str(self.runtime_combo.currentData())
            self._emit("runtime", replace(self.scenario, runtime=runtime))

    def _on_ranking(self) -> None:
        if self._filling:
            return
        mode = self.ranking_combo.currentData()
        for spin in self.ranking_spins.values():
            spin.setEnabled(mode == RANKING_CUSTOM)
        if self.scenario is None:
            return
        ranking: bool | dict[str, Any] = mode != RANKING_OFF
        if mode == RANKING_CUSTOM:
            ranking = {key: spin.value() for key, spin in self.ranking_spins.items()}
        self._emit(
            "relevanceRanking", replace(self.scenario, relevance_ranking=ranking),
            "relevanceRanking",
        )  # fmt: skip

    def _remove_item(self, field: str, row: int) -> None:
        scenario = self.scenario
        if scenario is None:
            return
        items = _items(scenario, field)
        if 0 <= row < len(items):
            kept = items[:row] + items[row + 1 :]
            self._emit(_KEYS[field], _with_items(scenario, field, kept))

    def with_item(self, field: str, item: Mapping[str, str]) -> None:
        """Add (or replace, by id) a preset skill (`preset_skills`) or preloaded memory
        (`preloaded_memories`)."""
        scenario = self.scenario
        if scenario is None:
            return
        items = _items(scenario, field)
        kept = tuple(i for i in items if item_id(i) != item["id"])
        self._emit(_KEYS[field], _with_items(scenario, field, (*kept, dict(item))))

    def _on_turn_edit(self, row: int, call: str, value: object) -> None:
        scenario = self.scenario
        if scenario is None or not 0 <= row < len(scenario.turns):
            return
        arg: SearchArg | None = tuple(map(str, value)) if isinstance(value, list) else None
        turns = list(scenario.turns)
        turns[row] = replace(turns[row], **{call: arg})
        self._emit(f"turn {row + 1} {call}", replace(scenario, turns=tuple(turns)))

    def _add_turn(self) -> None:
        if self.scenario is not None:
            turns = (*self.scenario.turns, ScenarioTurn())
            self._emit("add turn", replace(self.scenario, turns=turns))

    def _remove_turn(self) -> None:
        scenario = self.scenario
        if scenario is None or not scenario.turns:
            return
        row = self.turns_view.currentIndex().row()
        turns = scenario.turns
        row = row if 0 <= row < len(turns) else len(turns) - 1
        kept = turns[:row] + turns[row + 1 :]
        self._emit(f"remove turn {row + 1}", replace(scenario, turns=kept))


def _items(scenario: Scenario, field: str) -> tuple[Mapping[str, Any], ...]:
    return scenario.preset_skills if field == "preset_skills" else scenario.preloaded_memories


def _with_items(scenario: Scenario, field: str, items: tuple[Mapping[str, Any], ...]) -> Scenario:
    if field == "preset_skills":
        return replace(scenario, preset_skills=items)
    return replace(scenario, preloaded_memories=items)


#: What an edit of a picked list is called (its JSON key, as the undo text shows it).
_KEYS = {"preset_skills": "presetSkills", "preloaded_memories": "preloadedMemories"}
