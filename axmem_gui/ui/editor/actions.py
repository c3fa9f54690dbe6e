"""Catalog editing in the main window: the Edit menu actions, the page toolbars, and the
glue from forms and tables to undo commands on the window's one QUndoStack."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence

from axmem_gui.store.records import memory_from_value, memory_to_row, skill_from_value, skill_to_row
from axmem_gui.store.repositories import ConflictError
from axmem_gui.ui.actions import make_action
from axmem_gui.ui.commands import (
    NOUN,
    EditSession,
    RenameEntryCommand,
    Resolution,
    create_command,
    delete_command,
    edit_command,
    new_entry,
    repository,
    restore_command,
    stored_entry,
    tag_command,
)
from axmem_gui.ui.dialogs import ErrorDialog
from axmem_gui.ui.editor.dialogs import ConflictDialog, RenameDialog, TagDialog
from axmem_gui.ui.editor.form import EditRequest
from axmem_gui.ui.entry_table import EntryRole
from axmem_gui.ui.history import HistoryDialog, full_history, revision_value
from axmem_gui.ui.pages import CatalogPage

if TYPE_CHECKING:
    from axmem_gui.ui.main_window import MainWindow

STATUS_MS = 6000


class CatalogEditing(QObject):
    """Owns the edit session of a window and every catalog editing action."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.stack = window.undo_stack
        self.session = EditSession(window.controller, resolver=self._ask_conflict)
        self.session.entries_changing.connect(self._before_change)
        self.session.entries_changed_done.connect(self._after_change)
        self.session.focus_requested.connect(self._focus)
        self.session.error_reported.connect(self._show_error)
        self.pages: dict[str, CatalogPage] = {
            "skills": window.skills_page,
            "memories": window.memories_page,
        }
        self._build_actions()
        for kind, page in self.pages.items():
            page.form.edit_committed.connect(self.commit_edit)
            page.form.rename_requested.connect(lambda k=kind: self.rename(k))
            page.form.history_requested.connect(lambda k=kind: self.show_history(k))
            page.delete_requested.connect(lambda k=kind: self.delete_selected(k))
            for action in self.toolbar_actions:
                page.toolbar.addAction(action)
        window.edit_menu.aboutToShow.connect(self.commit_all)
        window.controller.opened.connect(self.update_enabled)
        window.navigator.selectionModel().selectionChanged.connect(self.update_enabled)
        self.update_enabled()

    # actions ------------------------------------------------------------------------
    def _action(
        self,
        text: str,
        slot: Callable[[], object],
        shortcut: QKeySequence | QKeySequence.StandardKey | str | None,
        tip: str,
    ) -> QAction:
        return make_action(self.window, text, slot, shortcut, tip)

    def _build_actions(self) -> None:
        self.new_action = self._action(
            "New", self.new_entry, QKeySequence.StandardKey.New, "Create an entry (Ctrl+N)"
        )
        self.delete_action = self._action(
            "Delete",
            lambda: self.delete_selected(None),
            QKeySequence.StandardKey.Delete,
            "Delete the selected entries (Del in the table; Ctrl+Z undoes)",
        )
        # Shown in the menu, active only where it belongs: the table's own Delete action.
        self.delete_action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        self.rename_action = self._action(
            "Rename Id…", lambda: self.rename(None), "F2", "Change the entry's id (F2)"
        )
        self.add_tag_action = self._action(
            "Add Tag…", lambda: self.tag_selected(True), None, "Add a tag to the selected entries"
        )
        self.remove_tag_action = self._action(
            "Remove Tag…",
            lambda: self.tag_selected(False),
            None,
            "Remove a tag from the selected entries",
        )
        self.history_action = self._action(
            "History…",
            lambda: self.show_history(None),
            "Ctrl+Shift+H",
            "Every saved revision of the entry, with a diff and Restore (Ctrl+Shift+H)",
        )
        menu = self.window.edit_menu
        menu.addSeparator()
        for action in (
            self.new_action,
            self.delete_action,
            self.rename_action,
            self.add_tag_action,
            self.remove_tag_action,
            self.history_action,
        ):
            menu.addAction(action)
        self.toolbar_actions = (
            self.new_action,
            self.delete_action,
            self.rename_action,
            self.add_tag_action,
            self.remove_tag_action,
            self.history_action,
        )
        self.edit_actions = self.toolbar_actions[:-1]

    def active_kind(self) -> str | None:
        section = self.window.current_section()
        return section if section in self.pages else None

    def update_enabled(self, *_: object) -> None:
        read_only = self.window.controller.read_only
        on_catalog = self.active_kind() is not None
        for action in self.edit_actions:
            action.setEnabled(on_catalog and not read_only)
        self.history_action.setEnabled(on_catalog)
        for page in self.pages.values():
            page.form.set_read_only(read_only)
            page.delete_key_action.setEnabled(not read_only)

    def commit_all(self) -> None:
        for page in self.pages.values():
            page.form.commit_pending()

    # session callbacks --------------------------------------------------------------
    def _before_change(self, kind: str, ids: list[str], structural: bool) -> None:
        page = self.pages.get(kind)
        if page is not None and not structural:
            page.expect_update(ids)

    def _after_change(self, kind: str) -> None:
        page = self.pages.get(kind)
        if page is not None:
            page.expect_update(None)  # a hint nobody used must not steer a later reload

    def _focus(self, kind: str, entry_id: str) -> None:
        page = self.pages.get(kind)
        if page is None:
            return
        if self.window.current_section() != kind:
            self.window.show_section(kind)
        page.focus_entry(entry_id)

    def _show_error(self, message: str) -> None:
        ErrorDialog.show(self.window, "Change not saved", message)

    def _ask_conflict(self, error: ConflictError) -> Resolution:
        return ConflictDialog.ask(self.window, error)

    def _status(self, text: str) -> None:
        self.window.statusBar().showMessage(text, STATUS_MS)

    # edits --------------------------------------------------------------------------
    def commit_edit(self, request: EditRequest) -> None:
        if self.window.controller.read_only:
            return
        self.stack.push(
            edit_command(
                self.session,
                request.kind,
                request.before,
                request.after,
                request.revision,
                request.field,
            )
        )

    def _kind(self, kind: str | None) -> str | None:
        return kind if kind is not None else self.active_kind()

    def new_entry(self, kind: str | None = None) -> None:
        kind = self._kind(kind)
        if kind is None or self.window.controller.read_only:
            return
        self.commit_all()
        entry = new_entry(self.session.workspace, kind)
        self.stack.push(create_command(self.session, kind, entry))
        form = self.pages[kind].form
        target = form.name_edit if kind == "skills" else form.content.edit
        target.setFocus()
        if kind == "skills":
            form.name_edit.selectAll()
        self._status(f"Created {NOUN[kind]} '{entry.id}' — F2 renames it, Ctrl+Z removes it")

    def delete_selected(self, kind: str | None = None) -> None:
        kind = self._kind(kind)
        if kind is None or self.window.controller.read_only:
            return
        page = self.pages[kind]
        page.form.commit_pending()
        rows = sorted(r.row() for r in page.table.selectionModel().selectedRows())
        command = delete_command(self.session, kind, page.selected_ids())
        if command is None:
            return
        self.stack.push(command)
        if command.failed:
            return
        count = len(command.changes)
        if rows and page.model.rowCount():
            row = min(rows[0], page.model.rowCount() - 1)
            page.select_id(str(page.model.index(row, 0).data(EntryRole.EntryId)))
        else:
            page.show_entry(None)
        what = f"'{command.changes[0].entry_id}'" if count == 1 else f"{count:,} {kind}"
        self._status(f"Deleted {what} — Ctrl+Z brings it back")

    def rename(self, kind: str | None = None) -> None:
        kind = self._kind(kind)
        if kind is None or self.window.controller.read_only:
            return
        page = self.pages[kind]
        old_id = page.current_id()
        if old_id is None:
            return
        page.form.commit_pending()
        new_id = RenameDialog.ask(self.window, NOUN[kind], old_id)
        if new_id is None or new_id == old_id:
            return
        if not new_id.strip():
            ErrorDialog.show(self.window, "Cannot rename", f"{NOUN[kind]} id: must not be empty")
            return
        if repository(self.session.workspace, kind).revision_of(new_id) is not None:
            ErrorDialog.show(
                self.window,
                "Cannot rename",
                f"{NOUN[kind]} '{new_id}' already exists; choose another id",
            )
            return
        self.stack.push(RenameEntryCommand(self.session, kind, old_id, new_id))

    def tag_selected(self, add: bool, kind: str | None = None) -> None:
        kind = self._kind(kind)
        if kind is None or self.window.controller.read_only:
            return
        page = self.pages[kind]
        page.form.commit_pending()
        ids = page.selected_ids()
        if not ids:
            return
        known = self._known_tags(kind, ids if not add else None)
        tag = TagDialog.ask(self.window, add, len(ids), known)
        if tag is None:
            return
        tag = tag.strip()
        if not tag or "," in tag:
            ErrorDialog.show(
                self.window, "Cannot tag", "tag: must be non-empty and contain no comma"
            )
            return
        command = tag_command(self.session, kind, ids, tag, add=add)
        if command is None:
            has = "already have" if add else "do not have"
            self._status(f"Nothing to change: the selected {kind} {has} the tag '{tag}'")
            return
        self.stack.push(command)

    def _known_tags(self, kind: str, ids: list[str] | None) -> list[str]:
        """Tags of the given entries, or of the loaded rows, most common first."""
        counts: dict[str, int] = {}
        if ids is not None:
            entries = [stored_entry(self.session.workspace, kind, i) for i in ids[:5000]]
            tag_lists = [found[0].tags for found in entries if found is not None]
        else:
            model = self.pages[kind].model
            rows = range(min(model.rowCount(), 5000))
            tag_lists = [model.index(r, 0).data(EntryRole.Entry).tags for r in rows]
        for tags in tag_lists:
            for tag in tags:
                counts[tag] = counts.get(tag, 0) + 1
        return sorted(counts, key=lambda t: (-counts[t], t))

    def show_history(self, kind: str | None = None) -> None:
        kind = self._kind(kind)
        if kind is None:
            return
        page = self.pages[kind]
        entry_id = page.current_id()
        if entry_id is None:
            return
        page.form.commit_pending()
        ws = self.session.workspace
        found = stored_entry(ws, kind, entry_id)
        to_row = skill_to_row if kind == "skills" else memory_to_row
        current = None if found is None else to_row(found[0])  # type: ignore[arg-type]
        revisions = full_history(repository(ws, kind), entry_id)
        chosen = HistoryDialog.ask(
            self.window, NOUN[kind], entry_id, revisions, current, ws.read_only
        )
        if chosen is None or ws.read_only:
            return
        value = revision_value(chosen)
        if value is None:
            return
        from_value = skill_from_value if kind == "skills" else memory_from_value
        entry = from_value(value)
        self.stack.push(restore_command(self.session, kind, entry, f"revision {chosen.revision}"))


def install_catalog_editing(window: MainWindow) -> CatalogEditing:
    editing = CatalogEditing(window)
    window.catalog_editing = editing  # type: ignore[attr-defined]
    return editing
