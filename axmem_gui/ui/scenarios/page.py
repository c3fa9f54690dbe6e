"""The scenarios page: the workspace's scenarios (left) and the selected one's editor
(right). Every edit is an undoable command on the window's stack; selecting a turn shows
what the model sees at its start in the prompt preview dock."""

from __future__ import annotations

import json
import weakref
from typing import Any

from PySide6.QtCore import QItemSelectionModel, QStringListModel, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence, QShowEvent, QUndoStack
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QGridLayout,
    QInputDialog,
    QListView,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.errors import AxmemError
from axmem_gui.core.scenarios import (
    ScenarioDocument,
    check_name,
    new_scenario_document,
    unique_name,
)
from axmem_gui.services.live_search import LiveSearch
from axmem_gui.services.scenarios import (
    ScenarioService,
    preloaded_memory,
    preset_skill,
    simulate_scenario,
    turn_calls_summary,
)
from axmem_gui.ui.actions import make_action
from axmem_gui.ui.inert_text import plain_label
from axmem_gui.ui.pages import empty_state
from axmem_gui.ui.resources import style_leaves
from axmem_gui.ui.retrieval.state import RetrievalState
from axmem_gui.ui.scenarios.commands import (
    create_command,
    delete_command,
    edit_command,
    rename_command,
)
from axmem_gui.ui.scenarios.editor import ScenarioForm

EMPTY_TEXT = (
    "No scenarios yet — a scenario is a task plus the discover and recall calls of each "
    "turn. Create one (New, Ctrl+N) to preview what the model sees turn by turn."
)


class NameDialog:
    """Asks for a scenario name; tests replace `ask`."""

    @classmethod
    def ask(cls, parent: QWidget, title: str, text: str) -> str | None:
        value, ok = QInputDialog.getText(parent, title, "Scenario name:", text=text)
        return value if ok else None


class ScenariosPage(QWidget):
    message = Signal(str)
    #: scenario name (or None) and 0-based turn to preview.
    preview_requested = Signal(object, int)

    def __init__(self, state: RetrievalState, undo_stack: QUndoStack) -> None:
        super().__init__()
        self.setObjectName("scenariosPage")
        self.state = state
        self.controller = state.controller
        self.undo_stack = undo_stack
        self._loads_dirty = True
        #: The live index and domain versions the id completers were filled from.
        self._choices_for: dict[str, tuple[weakref.ref[LiveSearch], int]] = {}
        self._loads_key: tuple[str, tuple[int, int]] | None = None

        self.names_model = QStringListModel(self)
        self.list_view = QListView()
        self.list_view.setObjectName("scenarioList")
        self.list_view.setModel(self.names_model)
        self.list_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.new_button = QPushButton("New")
        self.duplicate_button = QPushButton("Duplicate")
        self.rename_button = QPushButton("Rename…")
        self.delete_button = QPushButton("Delete")
        buttons = QGridLayout()
        buttons.setSpacing(4)
        for i, button in enumerate(
            (self.new_button, self.duplicate_button, self.rename_button, self.delete_button)
        ):
            buttons.addWidget(button, i // 2, i % 2)
        heading = plain_label("Scenarios")
        heading.setObjectName("sectionTitle")
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(heading)
        left_layout.addWidget(self.list_view, 1)
        left_layout.addLayout(buttons)

        self.form = ScenarioForm()
        # Scrolls on a short screen rather than make the whole window taller than it.
        self.form_scroll = QScrollArea()
        self.form_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.form_scroll.setWidgetResizable(True)
        self.form_scroll.setWidget(self.form)
        self.form_scroll.setMinimumHeight(160)
        self.empty = empty_state(EMPTY_TEXT)
        self.right = QStackedWidget()
        self.right.addWidget(self.form_scroll)
        self.right.addWidget(self.empty)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.setChildrenCollapsible(False)
        split.addWidget(left)
        split.addWidget(self.right)
        split.setStretchFactor(1, 1)
        split.setSizes([180, 800])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(split)

        self.new_action = self._page_action("New scenario", self.new_scenario, "Ctrl+N")
        self.rename_action = self._page_action("Rename scenario", self.rename_current, "F2")
        self.delete_action = self._page_action(
            "Delete scenario", self.delete_current, QKeySequence.StandardKey.Delete
        )
        # Delete only from the list (in a text field it deletes text).
        self.delete_action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        self.list_view.addAction(self.delete_action)

        self.new_button.clicked.connect(self.new_scenario)
        self.duplicate_button.clicked.connect(self.duplicate_current)
        self.rename_button.clicked.connect(self.rename_current)
        self.delete_button.clicked.connect(self.delete_current)
        self.list_view.selectionModel().currentChanged.connect(lambda *_: self._show_current())
        self.form.edited.connect(self._on_edited)
        self.form.add_preset.connect(self._add_preset)
        self.form.add_memory.connect(self._add_memory)
        self.form.turn_selected.connect(self._on_turn_selected)
        self.controller.changed.connect(self._on_workspace_changed)
        state.changed.connect(self._on_catalog_changed)
        self.reload()
        # Styled per widget, not as a container (see `style_leaves`).
        style_leaves(self, "retrieval")

    def _page_action(self, text: str, slot: Any, shortcut: Any) -> QAction:
        action = make_action(self, text, slot, shortcut)
        action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.addAction(action)
        return action

    # data ---------------------------------------------------------------------------
    @property
    def scenarios(self) -> ScenarioService:
        return self.controller.workspace.scenarios

    def _stored(self, name: str | None) -> ScenarioDocument | None:
        found = None if name is None else self.scenarios.get(name)
        return None if found is None else found.document

    def names(self) -> list[str]:
        return self.names_model.stringList()

    def current_name(self) -> str | None:
        index = self.list_view.currentIndex()
        return str(index.data()) if index.isValid() else None

    def select(self, name: str) -> None:
        names = self.names()
        if name in names:
            index = self.names_model.index(names.index(name))
            self.list_view.selectionModel().setCurrentIndex(
                index, QItemSelectionModel.SelectionFlag.ClearAndSelect
            )

    def reload(self) -> None:
        """Re-read names and the current scenario (keeps the selection)."""
        current = self.current_name()
        names = self.scenarios.names()
        if names != self.names():
            self.names_model.setStringList(names)
            if current is not None and current in names:
                self.select(current)
            elif names:
                self.select(names[0])
        read_only = self.controller.read_only
        for widget in (
            self.new_button,
            self.duplicate_button,
            self.rename_button,
            self.delete_button,
        ):
            widget.setEnabled(not read_only)
        self.form.set_read_only(read_only)
        self._show_current()

    def _show_current(self) -> None:
        name = self.current_name()
        document = self._stored(name)
        if name is None or document is None:
            self.right.setCurrentWidget(self.empty)
            return
        self.right.setCurrentWidget(self.form_scroll)
        changed_scenario = self.form.name != name
        self.form.set_document(document)
        self._fill_choices()
        self._loads_dirty = True
        self._update_loads()
        if changed_scenario:
            self.preview_requested.emit(name, 0)

    def _fill_choices(self) -> None:
        """The id completers, refilled only when their domain changed (100,000 memory ids
        are tens of milliseconds to hand to Qt: not on every scenario shown)."""
        live = self.state.live
        for domain, version, choices in (
            ("skills", live.version[0], self.form.presets),
            ("memories", live.version[1], self.form.memories),
        ):
            known = self._choices_for.get(domain)
            if known is None or known[0]() is not live or known[1] != version:
                self._choices_for[domain] = (weakref.ref(live), version)
                choices.set_choices(live.ids(domain))

    def _update_loads(self) -> None:
        """What each turn's calls load, over the current catalog (only while visible, and
        only when the calls, the preloaded memories or the catalog changed: typing a task
        does not re-run them)."""
        if not self.isVisible() or not self._loads_dirty or self.form.name is None:
            return
        self._loads_dirty = False
        scenario = self.form.scenario
        if scenario is None:
            self._loads_key = None
            self.form.turns_model.set_loads([])
            return
        calls = scenario.to_json()
        key = (
            json.dumps([calls["turns"], calls["preloadedMemories"]], sort_keys=True),
            self.state.live.version,
        )
        if key == self._loads_key:
            return
        self._loads_key = key
        live = self.state.live
        sim = simulate_scenario(
            live.catalog(),
            scenario,
            self.state.profile,
            skill_search=live.skill_search(),
            memory_search=live.memory_search(),
        )
        self.form.turns_model.set_loads(turn_calls_summary(sim))

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._update_loads()

    def _on_workspace_changed(self, what: str) -> None:
        if what in ("*", "scenarios"):
            self.reload()

    def _on_catalog_changed(self) -> None:
        self._loads_dirty = True
        self._update_loads()

    # edits --------------------------------------------------------------------------
    def _report(self, message: str) -> None:
        self.message.emit(message)

    def _on_edited(self, what: str, new: object, merge_key: object) -> None:
        before = self._stored(self.form.name)
        if before is None or not isinstance(new, ScenarioDocument):
            return
        key = merge_key if isinstance(merge_key, str) else None
        self.undo_stack.push(edit_command(self.controller, before, new, what, self._report, key))

    def _add_preset(self, skill_id: str) -> None:
        skill = self.state.live.entry("skills", skill_id)
        if not isinstance(skill, Skill):
            self._report(f"No skill with id {skill_id!r} in the catalog")
            return
        self.form.with_item("preset_skills", preset_skill(skill))
        self.form.presets.id_edit.clear()

    def _add_memory(self, memory_id: str) -> None:
        memory = self.state.live.entry("memories", memory_id)
        if not isinstance(memory, Memory):
            self._report(f"No memory with id {memory_id!r} in the catalog")
            return
        self.form.with_item("preloaded_memories", preloaded_memory(memory))
        self.form.memories.id_edit.clear()

    def _on_turn_selected(self, row: int) -> None:
        if self.form.name is not None and row >= 0:
            self.preview_requested.emit(self.form.name, row)

    def new_scenario(self) -> None:
        if self.controller.read_only:
            return
        name = unique_name(self.names(), "New scenario")
        self.undo_stack.push(
            create_command(self.controller, new_scenario_document(name), self._report)
        )
        self.select(name)
        self.form.task_edit.setFocus()

    def duplicate_current(self) -> None:
        name = self.current_name()
        document = self._stored(name)
        if name is None or document is None or self.controller.read_only:
            return
        copy_name = unique_name(self.names(), f"{name} copy")
        self.undo_stack.push(
            create_command(self.controller, document.renamed(copy_name), self._report)
        )
        self.select(copy_name)

    def rename_current(self) -> None:
        name = self.current_name()
        document = self._stored(name)
        if name is None or document is None or self.controller.read_only:
            return
        answer = NameDialog.ask(self, "Rename scenario", name)
        if answer is None:
            return
        try:
            new = check_name(answer)
        except AxmemError as exc:
            self._report(str(exc))
            return
        if new == name:
            return
        if new in self.names():
            self._report(f"A scenario named {new!r} already exists; choose another name")
            return
        self.undo_stack.push(rename_command(self.controller, document, new, self._report))
        self.select(new)

    def delete_current(self) -> None:
        name = self.current_name()
        document = self._stored(name)
        if name is None or document is None or self.controller.read_only:
            return
        row = self.names().index(name)
        self.undo_stack.push(delete_command(self.controller, document, self._report))
        names = self.names()
        if names:
            self.select(names[min(row, len(names) - 1)])
