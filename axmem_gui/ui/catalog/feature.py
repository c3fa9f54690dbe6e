"""The catalog feature: the skills and memories pages, the Edit menu actions, the page
toolbars, and the glue from forms and tables to undo commands on the one QUndoStack.
Renaming an entry's id is the mixin `CatalogRenames` (renames.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence

from axmem_gui.core.catalog import CATALOG_KINDS, Skill, label, singular
from axmem_gui.core.catalog_rows import Entry
from axmem_gui.core.errors import ConflictError
from axmem_gui.core.printable import printable
from axmem_gui.services.catalog import CatalogService
from axmem_gui.ui.actions import make_action
from axmem_gui.ui.catalog.renames import CatalogRenames
from axmem_gui.ui.commands import (
    EditSession,
    EntryChange,
    ReplaceEntriesCommand,
    Resolution,
    create_command,
    delete_command,
    restore_command,
    tag_command,
    typing_commands,
)
from axmem_gui.ui.dialogs import ErrorDialog
from axmem_gui.ui.editor.dialogs import ConflictDialog, TagDialog
from axmem_gui.ui.editor.form import EditRequest
from axmem_gui.ui.editor.markdown_render import warm_highlighting
from axmem_gui.ui.entry_table import EntryRole
from axmem_gui.ui.feature import Contributions, FeatureContext, FeatureSpec, MenuPlace, PageSpec
from axmem_gui.ui.history import HistoryDialog
from axmem_gui.ui.pages import CatalogPage
from axmem_gui.ui.remember import remember_splitter
from axmem_gui.ui.settings import AppSettings
from axmem_gui.ui.tasks import TaskRunner
from axmem_gui.ui.writes import WriteQueue

STATUS_MS = 6000
EDIT_PLACE = MenuPlace("edit", "catalog")


class CatalogEditing(CatalogRenames, QObject):
    """Owns the catalog pages, the edit session and every catalog editing action."""

    def __init__(self, context: FeatureContext) -> None:
        super().__init__(context.shell)
        self.context = context
        self.shell = context.shell
        self.controller = context.controller
        self.stack = context.undo_stack
        self.session = EditSession(context.controller, resolver=self._ask_conflict)
        self.session.entries_changing.connect(self._before_change)
        self.session.entries_changed_done.connect(self._after_change)
        self.session.focus_requested.connect(self._focus)
        self.session.error_reported.connect(self._show_error)
        self.session.unsaved.connect(self._keep_unsaved)
        #: Writes wait for another program off the GUI thread (ui/writes.py); what the
        #: user does meanwhile waits here, in order, and runs once they are saved.
        self.writes = context.writes or WriteQueue(context.controller, self)
        self.writes.waiting.connect(self._on_waiting)
        self.writes.idle.connect(self._flush_held)
        self._held: list[Callable[[], None]] = []
        self._held_edits: dict[tuple[str, str], EditRequest] = {}
        # the new skills whose id follows their name (declared and used in renames.py)
        self._auto_ids = set()
        catalog = context.controller.workspace.catalog
        #: The lists' filter queries: a runner of their own, so a keystroke's rows never
        #: wait behind the index or lint jobs of the window's runner.
        self.list_runner = TaskRunner(max_threads=1, parent=self)
        self.pages: dict[str, CatalogPage] = {
            kind: CatalogPage(kind, catalog, self.list_runner) for kind in CATALOG_KINDS
        }
        self.controller.opened.connect(self._on_opened)
        self.controller.changed.connect(self._on_changed)
        #: True while the pages reload after a change made by another program.
        self._external = False
        self.controller.externally_changed.connect(self._on_external_change)
        self._build_actions()
        for kind, page in self.pages.items():
            self._remember_layout(kind, page, context.settings)
            page.form.edit_committed.connect(self.commit_edit)
            page.form.rename_requested.connect(lambda k=kind: self.rename(k))
            page.form.rename_to_requested.connect(
                lambda new_id, k=kind: self.rename_to_fix(k, new_id)
            )
            page.form.name_finished.connect(lambda k=kind: self._follow_name(k))
            page.form.files_requested.connect(lambda k=kind: self.show_files(k))
            page.form.history_requested.connect(lambda k=kind: self.show_history(k))
            page.delete_requested.connect(lambda k=kind: self.delete_selected(k))
            page.entry_gone.connect(lambda entry_id, k=kind: self._on_entry_gone(k, entry_id))
            for action in self.toolbar_actions:
                page.toolbar.addAction(action)
        context.actions.menu_opening.connect(self._on_menu_opening)
        context.shell.focus_changed.connect(self._on_focus_changed)
        self.controller.opened.connect(self.update_enabled)
        self.shell.section_changed.connect(self.update_enabled)
        self.update_enabled()
        # Pygments (code blocks in the previews) loads off the GUI thread once the window
        # has painted: not during start-up, and done before the first entry is shown.
        context.shell.after_first_paint(warm_highlighting)

    @staticmethod
    def _remember_layout(kind: str, page: CatalogPage, settings: AppSettings) -> None:
        """The list/editor split and the source/preview split (and whether the preview
        stands beside or below) are kept per kind, as the user left them."""
        remember_splitter(page.split, settings, f"{kind}.list-editor")
        content = page.form.content
        content.set_beside(settings.preview_beside(kind))
        remember_splitter(content.split, settings, f"{kind}.source-preview")

        def on_layout(beside: bool) -> None:
            settings.set_preview_beside(kind, beside)
            settings.set_splitter_state(f"{kind}.source-preview", content.split.saveState())

        content.layout_changed.connect(on_layout)

    # feature contract ---------------------------------------------------------------
    def contributions(self) -> Contributions:
        return Contributions(
            pages=[
                *(PageSpec(kind, label(kind), self.pages[kind]) for kind in CATALOG_KINDS),
            ]
        )

    def shutdown(self) -> None:
        """Typing not yet committed (an edit kept after a refused write included) is
        saved now, before the workspace closes; a write that waits for another program
        is let finish (bounded by the store's wait); a filter being read is dropped."""
        self.commit_all()
        self.writes.wait_for_writes(int(self.controller.workspace.write_wait_s * 1000) + 2000)
        self.list_runner.shutdown()

    def _on_opened(self) -> None:
        self._held.clear()
        self._held_edits.clear()
        catalog = self.controller.workspace.catalog
        for page in self.pages.values():
            page.set_catalog(catalog)

    def _on_external_change(self) -> None:
        self._external = True  # the `changed("*")` that follows comes from elsewhere

    def _on_changed(self, what: str) -> None:
        try:
            for kind, page in self.pages.items():
                if what in ("*", kind):
                    page.reload()
        finally:
            self._external = False

    def _on_focus_changed(self, page: str, focused: bool) -> None:
        if page in self.pages:
            self.pages[page].form.content.set_writing(focused)

    def _on_menu_opening(self, menu: str) -> None:
        if menu == "edit":
            self.commit_all()

    # actions ------------------------------------------------------------------------
    def _action(
        self,
        text: str,
        slot: Callable[[], object],
        shortcut: QKeySequence | QKeySequence.StandardKey | str | None,
        tip: str,
    ) -> QAction:
        return make_action(self, text, slot, shortcut, tip)

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
        for name, action in (
            ("new", self.new_action),
            ("delete", self.delete_action),
            ("rename", self.rename_action),
            ("add-tag", self.add_tag_action),
            ("remove-tag", self.remove_tag_action),
            ("history", self.history_action),
        ):
            self.context.actions.add(f"catalog.{name}", action, EDIT_PLACE)
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
        section = self.shell.current_section()
        return section if section in self.pages else None

    def update_enabled(self, *_: object) -> None:
        read_only = self.controller.read_only
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
        if self.shell.current_section() != kind:
            self.shell.show_section(kind)
        page.focus_entry(entry_id)

    def _show_error(self, message: str) -> None:
        ErrorDialog.show(self.shell.dialog_parent, "Change not saved", message)

    @property
    def catalog(self) -> CatalogService:
        return self.session.catalog

    def _ask_conflict(self, error: ConflictError) -> Resolution:
        return ConflictDialog.ask(self.shell.dialog_parent, error)

    def _status(self, text: str) -> None:
        self.shell.show_message(text, STATUS_MS)

    def _on_entry_gone(self, kind: str, entry_id: str) -> None:
        if not self._external:
            return  # deleted here (an undo, Delete): the user knows
        # Its form closed: say why, rather than let it vanish.
        self._status(
            f"The {singular(kind)} {printable(entry_id)!r} you had open was deleted "
            "elsewhere (another program or window)."
        )

    # edits --------------------------------------------------------------------------
    # writes that wait ------------------------------------------------------------------
    def _when_free(self, action: Callable[[], None]) -> None:
        """Run `action` now, or after the write that waits for another program (an
        action reads the store to build its command: it must see that write)."""
        if self.writes.busy:
            self._held.append(action)
        else:
            action()

    def _flush_held(self) -> None:
        while self._held and not self.writes.busy:
            self._held.pop(0)()

    def _on_waiting(self, waiting: bool) -> None:
        for page in self.pages.values():
            page.form.set_waiting(waiting)
        if waiting:
            self._status("Waiting for another program to finish writing the workspace…")
        else:
            self.shell.show_message("", 1)  # (what it said is over: saved, or reported)

    def _keep_unsaved(self, kind: str, values: list[Entry]) -> None:
        """An edit refused after waiting: back into the form, uncommitted (saved with the
        next edit or when the field loses focus), never dropped."""
        page = self.pages.get(kind)
        if page is None or not values:
            return
        if page.form.entry is None or page.form.entry.id != values[0].id:
            page.focus_entry(values[0].id)
        page.form.keep_unsaved(values[0])

    def commit_edit(self, request: EditRequest) -> None:
        if self.controller.read_only or self.controller.is_closed:
            return  # (closing: a field losing its focus commits into a closed workspace)
        if self.writes.busy:
            key = (request.kind, request.before.id)
            held = self._held_edits.get(key)
            self._held_edits[key] = request if held is None else held.merged(request)
            if held is None:
                self._held.append(lambda: self._commit_held(key))
            return
        self._commit(request)

    def _commit_held(self, key: tuple[str, str]) -> None:
        request = self._held_edits.pop(key, None)
        if request is not None:
            found = self.catalog.get(request.kind, request.before.id)
            # (deleted meanwhile: the command's revision check says so)
            self._commit(request if found is None else request.rebased(found.entry, found.revision))

    def _commit(self, request: EditRequest | None) -> None:
        if request is None:
            return
        # One undo step per word boundary typed (only the last one writes); none is on
        # the stack before that write is saved (a refused one goes back to the form).
        commands = typing_commands(
            self.session,
            request.kind,
            request.values(),
            request.revision,
            request.field,
            joins=request.joins,
        )
        if commands:
            self.writes.push(self.stack, commands[-1], before=commands[:-1])

    def _kind(self, kind: str | None) -> str | None:
        return kind if kind is not None else self.active_kind()

    def new_entry(self, kind: str | None = None) -> None:
        kind = self._kind(kind)
        if kind is None or self.controller.read_only:
            return
        self.commit_all()
        self._when_free(lambda: self._create(kind))

    def _create(self, kind: str) -> None:
        entry = self.catalog.new_entry(kind)

        def created() -> None:
            if kind == "skills":
                self._auto_ids.add(entry.id)
            form = self.pages[kind].form
            target = form.name_edit if kind == "skills" else form.content.edit
            target.setFocus()
            if kind == "skills":
                form.name_edit.selectAll()
            self._status(
                f"Created {singular(kind)} '{entry.id}' — F2 renames it, Ctrl+Z removes it"
            )

        self.writes.push(self.stack, create_command(self.session, kind, entry), created)

    def delete_selected(self, kind: str | None = None) -> None:
        kind = self._kind(kind)
        if kind is None or self.controller.read_only:
            return
        page = self.pages[kind]
        page.form.commit_pending()
        rows = sorted(r.row() for r in page.table.selectionModel().selectedRows())
        ids = page.selected_ids()
        self._when_free(lambda: self._delete(kind, ids, rows))

    def _delete(self, kind: str, ids: list[str], rows: list[int]) -> None:
        page = self.pages[kind]
        command = delete_command(self.session, kind, ids)
        if command is None:
            return

        def deleted() -> None:
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

        self.writes.push(self.stack, command, deleted)

    def show_files(self, kind: str = "skills") -> None:
        """The skill folder's other files: each change an undoable edit of the skill."""
        # (with the format readers it needs: not before the first paint)
        from axmem_gui.ui.editor.skill_files import SkillFilesDialog

        page = self.pages[kind]
        entry_id = page.current_id()
        if kind != "skills" or entry_id is None:
            return
        page.form.commit_pending()

        def current() -> Skill | None:
            found = self.catalog.get(kind, entry_id)
            return found.entry if found is not None and isinstance(found.entry, Skill) else None

        def apply(after: Skill, text: str) -> bool:
            found = self.catalog.get(kind, entry_id)
            if found is None:
                return False
            command = ReplaceEntriesCommand(
                self.session,
                kind,
                [EntryChange(entry_id, found.entry, after)],
                {entry_id: found.revision},
                text,
                focus_id=entry_id,
            )
            self.stack.push(command)
            return not command.failed

        SkillFilesDialog.show_for(
            self.shell.dialog_parent, entry_id, current, apply, self.controller.read_only
        )

    def tag_selected(self, add: bool, kind: str | None = None) -> None:
        kind = self._kind(kind)
        if kind is None or self.controller.read_only:
            return
        page = self.pages[kind]
        page.form.commit_pending()
        ids = page.selected_ids()
        if not ids:
            return
        known = self._known_tags(kind, ids if not add else None)
        tag = TagDialog.ask(self.shell.dialog_parent, add, len(ids), known)
        if tag is None:
            return
        tag = tag.strip()
        if not tag or "," in tag:
            ErrorDialog.show(
                self.shell.dialog_parent,
                "Cannot tag",
                "tag: must be non-empty and contain no comma",
            )
            return
        self._when_free(lambda: self._tag(kind, ids, tag, add))

    def _tag(self, kind: str, ids: list[str], tag: str, add: bool) -> None:
        command = tag_command(self.session, kind, ids, tag, add=add)
        if command is None:
            has = "already have" if add else "do not have"
            self._status(f"Nothing to change: the selected {kind} {has} the tag '{tag}'")
            return
        self.writes.push(self.stack, command)

    def _known_tags(self, kind: str, ids: list[str] | None) -> list[str]:
        """Tags of the given entries, or of the loaded rows, most common first."""
        counts: dict[str, int] = {}
        if ids is not None:
            entries = [self.catalog.get(kind, i) for i in ids[:5000]]
            tag_lists = [found.entry.tags for found in entries if found is not None]
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
        catalog = self.catalog
        found = catalog.get(kind, entry_id)
        current = None if found is None else found.entry
        revisions = catalog.lineage(kind, entry_id)
        read_only = self.controller.read_only
        chosen = HistoryDialog.ask(
            self.shell.dialog_parent, singular(kind), entry_id, revisions, current, read_only
        )
        if chosen is None or read_only:
            return
        entry = chosen.value
        if entry is None:
            return
        # The value under the id the entry has now: a revision from before a rename
        # restores this entry, never a second one under its former id.
        entry = replace(entry, id=entry_id)
        label = f"revision {chosen.revision}"
        self._when_free(
            lambda: self.writes.push(self.stack, restore_command(self.session, kind, entry, label))
        )


CATALOG = FeatureSpec("catalog", CatalogEditing)
