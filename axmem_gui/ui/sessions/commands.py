"""Undoable session edits: deleting sessions (undo stores them back, exchanges and all)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtGui import QUndoCommand

Workspace = Any  # axmem_gui.store.Workspace; the command reads it fresh on every step


class DeleteSessionsCommand(QUndoCommand):
    def __init__(
        self,
        workspace: Callable[[], Workspace],
        docs: Sequence[dict[str, Any]],
        changed: Callable[[], None],
    ) -> None:
        count = len(docs)
        name = docs[0].get("name") or docs[0].get("id") if count == 1 else f"{count} sessions"
        super().__init__(f"Delete session {name}" if count == 1 else f"Delete {name}")
        self._workspace = workspace
        self._docs = [dict(d) for d in docs]
        self._changed = changed

    def redo(self) -> None:
        ws = self._workspace()
        with ws.transaction():
            for doc in self._docs:
                ws.sessions.delete(str(doc["id"]))
        self._changed()

    def undo(self) -> None:
        ws = self._workspace()
        with ws.transaction():
            for doc in self._docs:
                ws.sessions.save(doc)
        self._changed()
