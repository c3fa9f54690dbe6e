"""An entry's id, changed from the catalog pages: by hand (Rename Id…, F2), by the naming
rule's fix for a skill's id (made unique), and a new skill's id following its name
("new-skill" named "Deploy freeze" becomes "deploy-freeze") until the user renames it.
Each is one undoable command, pushed once the write waiting for another program is saved.

A mixin of `CatalogEditing` (feature.py), which keeps the pages, the edit session and the
other edits; what these methods use of it is `RenamesHost`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from axmem_gui.core.catalog import Skill, singular
from axmem_gui.core.skill_names import agent_skill_name
from axmem_gui.ui.commands import RenameEntryCommand
from axmem_gui.ui.dialogs import ErrorDialog
from axmem_gui.ui.editor.dialogs import RenameDialog

if TYPE_CHECKING:
    from collections.abc import Callable

    from PySide6.QtGui import QUndoStack

    from axmem_gui.services.catalog import CatalogService
    from axmem_gui.ui.commands import EditSession
    from axmem_gui.ui.controller import WorkspaceController
    from axmem_gui.ui.feature import Shell
    from axmem_gui.ui.pages import CatalogPage
    from axmem_gui.ui.writes import WriteQueue


class RenamesHost(Protocol):
    """What the renames use of the feature (and of themselves: the mixin's methods, typed
    on this protocol, call one another through it)."""

    shell: Shell
    controller: WorkspaceController
    stack: QUndoStack
    session: EditSession
    writes: WriteQueue
    pages: dict[str, CatalogPage]
    _auto_ids: set[str]

    @property
    def catalog(self) -> CatalogService: ...

    def _kind(self, kind: str | None) -> str | None: ...

    def _when_free(self, action: Callable[[], None]) -> None: ...

    def _status(self, text: str) -> None: ...

    def _rename_to_fix(self, kind: str, old_id: str, wanted: str) -> None: ...

    def _follow(self, kind: str, entry_id: str) -> None: ...


class CatalogRenames:
    """Renaming entries from the catalog pages (mixed into `CatalogEditing`, whose
    `__init__` sets `_auto_ids`)."""

    #: Ids of skills made with New that follow their name until renamed by hand.
    _auto_ids: set[str]

    def rename(self: RenamesHost, kind: str | None = None) -> None:
        kind = self._kind(kind)
        if kind is None or self.controller.read_only:
            return
        page = self.pages[kind]
        old_id = page.current_id()
        if old_id is None:
            return
        page.form.commit_pending()
        new_id = RenameDialog.ask(self.shell.dialog_parent, singular(kind), old_id)
        if new_id is None or new_id == old_id:
            return
        if not new_id.strip():
            ErrorDialog.show(
                self.shell.dialog_parent, "Cannot rename", f"{singular(kind)} id: must not be empty"
            )
            return
        if self.catalog.revision_of(kind, new_id) is not None:
            ErrorDialog.show(
                self.shell.dialog_parent,
                "Cannot rename",
                f"{singular(kind)} '{new_id}' already exists; choose another id",
            )
            return
        self._auto_ids.discard(old_id)  # named by hand: it no longer follows the name
        command = RenameEntryCommand(self.session, kind, old_id, new_id)
        self._when_free(lambda: self.writes.push(self.stack, command))

    def rename_to_fix(self: RenamesHost, kind: str, wanted: str) -> None:
        """The naming rule's fix for the shown skill's id (made unique), undoable."""
        page = self.pages[kind]
        old_id = page.current_id()
        if old_id is None or self.controller.read_only:
            return
        page.form.commit_pending()
        self._when_free(lambda: self._rename_to_fix(kind, old_id, wanted))

    def _rename_to_fix(self: RenamesHost, kind: str, old_id: str, wanted: str) -> None:
        new_id = agent_skill_name(wanted, lambda n: self.catalog.revision_of(kind, n) is not None)
        self._auto_ids.discard(old_id)
        self.writes.push(
            self.stack,
            RenameEntryCommand(self.session, kind, old_id, new_id),
            lambda: self._status(f"Renamed '{old_id}' to '{new_id}' — Ctrl+Z renames it back"),
        )

    def _follow_name(self: RenamesHost, kind: str) -> None:
        """A new skill's id follows its name ("new-skill" named "Deploy freeze" becomes
        "deploy-freeze") until the user renames it (once the name's write is saved)."""
        shown = self.pages[kind].form.entry
        if shown is None or shown.id not in self._auto_ids or self.controller.read_only:
            return
        self._when_free(lambda: self._follow(kind, shown.id))

    def _follow(self: RenamesHost, kind: str, entry_id: str) -> None:
        found = self.catalog.get(kind, entry_id)
        entry = None if found is None else found.entry
        if entry is None or entry.id not in self._auto_ids:
            return
        if not isinstance(entry, Skill) or not entry.name.strip():
            return
        wanted = agent_skill_name(entry.name)
        if wanted == entry.id:
            return
        new_id = agent_skill_name(
            entry.name, lambda n: n != entry.id and self.catalog.revision_of(kind, n) is not None
        )
        if new_id == entry.id:
            return
        self._auto_ids.add(new_id)
        self.writes.push(
            self.stack,
            RenameEntryCommand(self.session, kind, entry.id, new_id),
            lambda: self._status(f"The id follows the name: '{new_id}' (F2 chooses another)"),
        )
