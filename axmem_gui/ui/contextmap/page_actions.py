"""The editing and file actions of the context map page: toolbar, undoable edits through
`MapEditor` commands, save/discard of the draft, import and export of snapshot files.

A mixin so the page module stays about showing the map; it relies on the page's models,
views, editor and controller (declared below for readers and type checkers).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QKeySequence, QUndoStack
from PySide6.QtWidgets import QToolBar, QTreeView, QWidget

from axmem_gui.core.contextmap import ContextMapState, StoredContextMap
from axmem_gui.core.errors import AxmemError
from axmem_gui.services import contextmaps as svc
from axmem_gui.ui.contextmap.dialogs import (
    AddItemDialog,
    EvolutionDialog,
    ExportSnapshotDialog,
    ImportSnapshotDialog,
)
from axmem_gui.ui.contextmap.editing import Draft, MapEditor, Source, save_draft
from axmem_gui.ui.contextmap.map_model import COL_TEXT, MapTreeModel
from axmem_gui.ui.contextmap.rows import ItemRow
from axmem_gui.ui.controller import WorkspaceController
from axmem_gui.ui.dialogs import ErrorDialog


class MapEditingMixin(QWidget):
    message: Signal
    controller: WorkspaceController
    undo_stack: QUndoStack
    editor: MapEditor
    map_model: MapTreeModel
    tree: QTreeView
    _agent: str | None
    _focus_item: str | None

    def current_source(self) -> Source | None:
        raise NotImplementedError

    def current_state(self) -> ContextMapState | None:
        raise NotImplementedError

    def reload(self, select_key: str | None = None) -> None:
        raise NotImplementedError

    def _action(
        self, bar: QToolBar, text: str, slot: Callable[[], object], shortcut: str | None, tip: str
    ) -> QAction:
        act = QAction(text, self)
        if shortcut:
            act.setShortcut(QKeySequence(shortcut))
            act.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            tip += f" ({QKeySequence(shortcut).toString(QKeySequence.SequenceFormat.NativeText)})"
        act.setToolTip(tip)
        act.triggered.connect(lambda _checked=False: slot())
        bar.addAction(act)
        self.addAction(act)
        return act

    def _build_toolbar(self) -> QToolBar:
        bar = QToolBar()
        bar.setObjectName("mapToolbar")
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.add_action = self._action(
            bar, "Add item", self.add_item, "Ctrl+N", "Add an item to a section"
        )
        self.edit_action = self._action(
            bar, "Edit text", self.begin_text_edit, "F2", "Edit the selected item's text"
        )
        self.delete_action = self._action(
            bar, "Delete", self.delete_selected, "Delete", "Delete the selected item"
        )
        bar.addSeparator()
        self.helpful_action = self._action(
            bar, "+1", lambda: self.bump_score(1), "Ctrl+Up", "Score +1 (like a helpful tag)"
        )
        self.harmful_action = self._action(
            bar, "−1", lambda: self.bump_score(-1), "Ctrl+Down", "Score −1 (like a harmful tag)"
        )
        self.clear_score_action = self._action(
            bar, "Clear score", self.clear_score, None, "Remove the score (Ax counts it as 0)"
        )
        bar.addSeparator()
        self.freeze_action = self._action(
            bar, "Evolution…", self.edit_evolution, None, "Freeze the map or set maxChars"
        )
        bar.addSeparator()
        self.save_action = self._action(
            bar, "Save snapshot", self.save, "Ctrl+S", "Store the edits as a new snapshot"
        )
        self.discard_action = self._action(
            bar, "Discard", self.discard, None, "Drop the unsaved edits (undoable)"
        )
        return bar

    # editing --------------------------------------------------------------------------
    def selected_item(self) -> ItemRow | None:
        row = self.map_model.row_at(self.tree.currentIndex())
        return row if isinstance(row, ItemRow) and not row.removed else None

    def _update_actions(self, *_: object) -> None:
        has_map = self.current_source() is not None
        item = self.selected_item() is not None
        draft = self.editor.draft is not None
        writable = not self.controller.read_only
        for act in (self.edit_action, self.delete_action, self.helpful_action):
            act.setEnabled(item)
        self.harmful_action.setEnabled(item)
        self.clear_score_action.setEnabled(item)
        self.add_action.setEnabled(has_map)
        self.freeze_action.setEnabled(has_map)
        self.save_action.setEnabled(draft and writable)
        self.discard_action.setEnabled(draft)

    def _apply(
        self, change: Callable[[StoredContextMap], StoredContextMap], description: str
    ) -> bool:
        source = self.current_source()
        if source is None:
            return False
        try:
            stored = change(source.stored)
        except AxmemError as exc:
            ErrorDialog.show(self, "Cannot edit the context map", str(exc))
            return False
        if stored == source.stored:
            return False
        self.undo_stack.push(self.editor.edit(source, stored, description))
        return True

    def edit_item_text(self, item_id: str, text: str) -> bool:
        self._focus_item = item_id
        return self._apply(
            lambda s: svc.edit_item_text(s, item_id, text), f"edited the text of {item_id}"
        )

    def set_item_score(self, item_id: str, score: float | None) -> bool:
        self._focus_item = item_id
        state = self.current_state()
        old = svc.describe_score(state.scores.get(item_id) if state is not None else None)
        what = f"score of {item_id}: {old} → {svc.describe_score(score)}"
        return self._apply(lambda s: svc.set_score(s, item_id, score), what)

    def add_item(self) -> bool:
        source = self.current_source()
        if source is None:
            return False
        selected = self.map_model.row_at(self.tree.currentIndex())
        section = None
        if isinstance(selected, ItemRow):
            section = selected.section
        elif selected is not None:
            section = selected.section.name
        answer = AddItemDialog.ask(self, section)
        if answer is None:
            return False
        section_name, content = answer
        try:
            stored, item_id = svc.add_item(source.stored, section_name, content)
        except AxmemError as exc:
            ErrorDialog.show(self, "Cannot add the item", str(exc))
            return False
        self._focus_item = item_id
        self.undo_stack.push(self.editor.edit(source, stored, f"added {item_id} to {section_name}"))
        return True

    def begin_text_edit(self) -> None:
        item = self.selected_item()
        if item is not None:
            self.tree.edit(self.map_model.index_of_item(item.item_id, COL_TEXT))

    def delete_selected(self) -> bool:
        item = self.selected_item()
        if item is None:
            return False
        return self._apply(lambda s: svc.delete_item(s, item.item_id), f"deleted {item.item_id}")

    def bump_score(self, delta: int) -> bool:
        item = self.selected_item()
        if item is None:
            return False
        return self.set_item_score(item.item_id, item.effective_score + delta)

    def clear_score(self) -> bool:
        item = self.selected_item()
        return self.set_item_score(item.item_id, None) if item is not None else False

    def edit_evolution(self) -> bool:
        state = self.current_state()
        if state is None:
            return False
        answer = EvolutionDialog.ask(self, state)
        if answer is None:
            return False
        words = []
        if answer.infinite_evolve != state.infinite_evolve or (
            answer.evolve_steps != state.evolve_steps and not answer.infinite_evolve
        ):
            words.append(
                "evolves after every run"
                if answer.infinite_evolve
                else f"frozen at evolveSteps {answer.evolve_steps}"
            )
        if answer.max_chars != state.max_chars:
            words.append(f"maxChars {state.max_chars} → {answer.max_chars}")

        def change(stored: StoredContextMap) -> StoredContextMap:
            stored = svc.set_evolution(stored, answer.infinite_evolve, answer.evolve_steps)
            return svc.set_max_chars(stored, answer.max_chars)

        return self._apply(change, "; ".join(words) or "evolution settings")

    def save(self) -> bool:
        ws = self.controller.workspace

        def store(draft: Draft) -> int:
            return svc.save_edited(ws, draft.agent, draft.stored, draft.base, draft.edits)

        try:
            command = save_draft(self.editor, store)
        except AxmemError as exc:
            ErrorDialog.show(self, "Cannot save the snapshot", str(exc))
            return False
        if command is None:
            return False
        self.undo_stack.push(command)
        self.controller.notify_changed("contextmaps")
        self.message.emit("Saved the edited map as a new snapshot")
        return True

    def discard(self) -> bool:
        command = self.editor.discard()
        if command is None:
            return False
        self.undo_stack.push(command)
        return True

    # files ----------------------------------------------------------------------------
    def import_snapshot(self) -> bool:
        ws = self.controller.workspace
        request = ImportSnapshotDialog.ask(
            self, str(ws.path.parent), svc.map_agents(ws), self._agent
        )
        if request is None:
            return False
        try:
            pk = svc.import_snapshot(ws, request.agent, request.path)
        except AxmemError as exc:
            ErrorDialog.show(self, "Cannot import the snapshot", str(exc))
            return False
        self._agent = request.agent
        self.controller.notify_changed("contextmaps")
        self.reload(svc.snapshot_key(pk))
        self.message.emit(f"Imported {request.path.name} as a snapshot of {request.agent}")
        return True

    def export_snapshot(self) -> bool:
        source = self.current_source()
        if source is None:
            ErrorDialog.show(self, "Nothing to export", "Select a context map snapshot first.")
            return False
        label = "edited" if isinstance(source, Draft) else (source.label or "snapshot")
        suggested = str(
            self.controller.path.parent / f"{self._agent or 'map'}-{label}.json".replace(" ", "-")
        )
        answer = ExportSnapshotDialog.ask(self, suggested, source.stored.shape)
        if answer is None:
            return False
        path, shape = answer
        try:
            svc.export_snapshot(source.stored, shape, path)
        except AxmemError as exc:
            ErrorDialog.show(self, "Cannot export the snapshot", str(exc))
            return False
        self.message.emit(f"Exported the map to {path}")
        return True
