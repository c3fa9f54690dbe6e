"""Editing a context map without rewriting history.

Edits go to a draft: a new, unsaved snapshot made from the snapshot being edited. Every
edit is one QUndoCommand on the window's stack that swaps the whole draft (before/after),
so undo and redo are exact. "Save snapshot" stores the draft as a new snapshot labelled
"edited"; undoing the save brings the draft back (the stored snapshot stays in history,
because history is never rewritten), and redoing it puts the draft away again.

Commands hold plain data and the `MapEditor` (a QObject with no widget), so tests drive
them without a window.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand

from axmem_gui.core.contextmap import StoredContextMap
from axmem_gui.services.contextmaps import TimelineEntry, snapshot_key

DRAFT_KEY = "draft"


@dataclass(frozen=True)
class Draft:
    """Unsaved edits: the map after them, the snapshot they start from, what was done."""

    agent: str
    base: TimelineEntry
    stored: StoredContextMap
    edits: tuple[str, ...]

    @property
    def key(self) -> str:
        return DRAFT_KEY


Source = TimelineEntry | Draft


class MapEditor(QObject):
    """Holds the one draft of the page. `draft_changed(focus_key)` tells the view which
    timeline row to show afterwards (the draft, or the snapshot the draft became)."""

    draft_changed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._draft: Draft | None = None

    @property
    def draft(self) -> Draft | None:
        return self._draft

    def set_draft(self, draft: Draft | None, focus: str) -> None:
        self._draft = draft
        self.draft_changed.emit(focus)

    def reset(self) -> None:
        """Forget the draft (another workspace was opened; the undo stack was cleared)."""
        self._draft = None

    def edit(self, source: Source, stored: StoredContextMap, description: str) -> DraftCommand:
        """The command that makes `stored` the draft: edits of the draft extend it, an
        edit of a stored snapshot starts a new draft from that snapshot."""
        if isinstance(source, Draft):
            after = Draft(source.agent, source.base, stored, (*source.edits, description))
        else:
            after = Draft(source.agent, source, stored, (description,))
        return DraftCommand(self, self._draft, after, description)

    def discard(self) -> DraftCommand | None:
        if self._draft is None:
            return None
        return DraftCommand(self, self._draft, None, "discard unsaved map edits")


class DraftCommand(QUndoCommand):
    def __init__(
        self, editor: MapEditor, before: Draft | None, after: Draft | None, text: str
    ) -> None:
        super().__init__(f"Context map: {text}")
        self.editor = editor
        self.before = before
        self.after = after

    def redo(self) -> None:
        self.editor.set_draft(self.after, _focus(self.after, self.before))

    def undo(self) -> None:
        self.editor.set_draft(self.before, _focus(self.before, self.after))


def _focus(shown: Draft | None, other: Draft | None) -> str:
    if shown is not None:
        return DRAFT_KEY
    # No draft left: show the snapshot the edits started from.
    return other.base.key if other is not None else ""


class SaveDraftCommand(QUndoCommand):
    """Created after the draft was stored as snapshot `pk` (saving can fail, and a
    command must not); redo puts the draft away, undo brings it back."""

    def __init__(self, editor: MapEditor, draft: Draft, pk: int) -> None:
        super().__init__("Context map: save edited snapshot")
        self.editor = editor
        self.draft = draft
        self.pk = pk

    def redo(self) -> None:
        self.editor.set_draft(None, snapshot_key(self.pk))

    def undo(self) -> None:
        self.editor.set_draft(self.draft, DRAFT_KEY)


def save_draft(editor: MapEditor, store: Callable[[Draft], int]) -> SaveDraftCommand | None:
    """Store the current draft (raises what `store` raises) and return the command to push."""
    draft = editor.draft
    if draft is None:
        return None
    pk = store(draft)
    return SaveDraftCommand(editor, draft, pk)
