"""Undoable session-page edits: deleting sessions (undo stores them back, exchanges and
all), creating and editing agent configs. Each step calls the same service methods the
CLI calls (services.sessions, services.agents); the service of the workspace open at
that moment is asked for on every step."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtGui import QUndoCommand

from axmem_gui.core.errors import AxmemError
from axmem_gui.core.session.agent_config import AgentConfig
from axmem_gui.core.session.model import Session
from axmem_gui.services.agents import AgentService, StoredAgent
from axmem_gui.services.sessions import SessionService


class DeleteSessionsCommand(QUndoCommand):
    """Delete sessions; undo stores them back (refused, and reported, when another
    session took one of their ids meanwhile)."""

    def __init__(
        self,
        service: Callable[[], SessionService],
        sessions: Sequence[Session],
        report: Callable[[str], None],
    ) -> None:
        count = len(sessions)
        name = sessions[0].label if count == 1 else f"{count} sessions"
        super().__init__(f"Delete session {name}" if count == 1 else f"Delete {name}")
        self._service = service
        self._sessions = tuple(sessions)
        self._report = report

    def redo(self) -> None:
        self._service().delete(self._sessions)

    def undo(self) -> None:
        try:
            self._service().restore(self._sessions)
        except AxmemError as exc:
            self.setObsolete(True)
            self._report(str(exc))


class AgentCommand(QUndoCommand):
    """Create, edit or delete (`after` None) an agent config, undoably: undo writes the
    old config back (or removes a new one). Every step checks that the config is still at
    the revision this window last wrote (`known`, shared by the window's agent commands),
    so a change made elsewhere meanwhile (the CLI, another window) is never overwritten;
    such a step is refused, reported, and the command dropped from the stack."""

    def __init__(
        self,
        service: Callable[[], AgentService],
        before: StoredAgent | None,
        after: AgentConfig | None,
        known: dict[str, int],
        report: Callable[[str], None],
    ) -> None:
        if after is None:
            assert before is not None, "deleting needs the config that is there"
            text = f"Delete agent '{before.name}'"
        elif before is None:
            text = f"New agent '{after.name}'"
        else:
            text = f"Edit agent '{before.name}'"
        super().__init__(text)
        self._service = service
        self._before = before
        self._after = after
        self._known = known
        if before is not None:
            known.setdefault(before.name, before.revision)
        self._report = report

    def set_report(self, report: Callable[[str], None]) -> None:
        self._report = report

    def _write(self, remove: str | None, write: AgentConfig | StoredAgent | None) -> None:
        try:
            expected = None
            if remove is not None:
                revision = self._known.get(remove)
                expected = (remove, revision if revision is not None else -1)
            new_revision = self._service().replace(expected, write)
        except AxmemError as exc:
            self.setObsolete(True)
            self._report(str(exc))
            return
        if remove is not None:
            self._known.pop(remove, None)
        if write is not None and new_revision is not None:
            self._known[write.name] = new_revision

    def redo(self) -> None:
        self._write(None if self._before is None else self._before.name, self._after)

    def undo(self) -> None:
        self._write(None if self._after is None else self._after.name, self._before)
