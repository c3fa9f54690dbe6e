"""Undoable session-page edits: deleting sessions (undo stores them back, exchanges and
all), creating and editing agent configs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtGui import QUndoCommand

from axmem_gui.core.errors import AxmemError
from axmem_gui.services import agents

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


class AgentCommand(QUndoCommand):
    """Create, edit or delete (`after` None) an agent config, undoably: undo writes the
    old config back (or removes a new one). Every step checks that the config is still at
    the revision this window last wrote (`known`, shared by the window's agent commands),
    so a change made elsewhere meanwhile (the CLI, another window) is never overwritten;
    such a step is refused, reported, and the command dropped from the stack."""

    def __init__(
        self,
        workspace: Callable[[], Workspace],
        before: tuple[str, int, dict[str, Any]] | None,
        after: dict[str, Any] | None,
        known: dict[str, int],
        changed: Callable[[], None],
        report: Callable[[str], None],
    ) -> None:
        if after is None:
            assert before is not None, "deleting needs the config that is there"
            text = f"Delete agent '{before[0]}'"
        elif before is None:
            text = f"New agent '{after.get('name')}'"
        else:
            text = f"Edit agent '{before[0]}'"
        super().__init__(text)
        self._workspace = workspace
        self._before = None if before is None else (before[0], before[2])
        self._after = None if after is None else dict(after)
        self._known = known
        if before is not None:
            known.setdefault(before[0], before[1])
        self._changed = changed
        self._report = report

    def set_report(self, report: Callable[[str], None]) -> None:
        self._report = report

    def _write(self, remove: str | None, write: dict[str, Any] | None) -> None:
        try:
            expected = None
            if remove is not None:
                revision = self._known.get(remove)
                expected = (remove, revision if revision is not None else -1)
            new_revision = agents.replace_agent(self._workspace(), expected, write)
        except AxmemError as exc:
            self.setObsolete(True)
            self._report(str(exc))
        else:
            if remove is not None:
                self._known.pop(remove, None)
            if write is not None and new_revision is not None:
                self._known[str(write["name"])] = new_revision
        self._changed()

    def redo(self) -> None:
        self._write(None if self._before is None else self._before[0], self._after)

    def undo(self) -> None:
        self._write(
            None if self._after is None else str(self._after["name"]),
            None if self._before is None else self._before[1],
        )
