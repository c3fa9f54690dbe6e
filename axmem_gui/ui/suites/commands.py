"""Undoable suite edits: one QUndoCommand per user action (new, edit, duplicate, delete a
suite; add, edit, delete a case; import), on the window's one undo stack.

A command holds the suites service's changes (each suite from the value the user saw to
the new one) and applies them forward on redo and backward on undo, in one transaction
that first checks the store still holds what the command expects. A change made elsewhere
in between (another window, the CLI) is refused with a message rather than overwritten;
the command then becomes obsolete so the stack never claims a state the store lacks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from PySide6.QtGui import QUndoCommand

from axmem_gui.core.errors import AxmemError
from axmem_gui.services.suites import SuiteChange
from axmem_gui.services.workspace import OpenWorkspace


class _Controller(Protocol):
    @property
    def workspace(self) -> OpenWorkspace: ...

    def notify_changed(self, what: str = "*") -> None: ...


def _reversed(changes: Sequence[SuiteChange]) -> list[SuiteChange]:
    return [SuiteChange(c.name, c.after, c.before) for c in changes]


class SuiteChangesCommand(QUndoCommand):
    def __init__(
        self,
        controller: _Controller,
        changes: Sequence[SuiteChange],
        text: str,
        report: Callable[[str], None],
        focus: str | None = None,
        on_applied: Callable[[str | None], None] | None = None,
    ) -> None:
        super().__init__(text)
        self.controller = controller
        self.changes = list(changes)
        self.report = report
        self.focus = focus
        self.on_applied = on_applied or (lambda _name: None)
        self.failed = False
        self._first = True

    def redo(self) -> None:
        changes = self.changes
        if not self._first:
            # Later redos check values only: undo moved the revision numbers.
            changes = [SuiteChange(c.name, c.before, c.after) for c in changes]
        self._first = False
        if self._run(changes):
            self.on_applied(self.focus)

    def undo(self) -> None:
        if self._run(_reversed(self.changes)):
            removed = {c.name for c in self.changes if c.before is None}
            self.on_applied(None if self.focus in removed else self.focus)

    def _run(self, changes: Sequence[SuiteChange]) -> bool:
        try:
            self.controller.workspace.suites.apply(changes)  # (announces what it wrote)
        except AxmemError as exc:
            self.failed = True
            self.setObsolete(True)
            self.report(str(exc))
            self.controller.notify_changed("suites")  # the page shows the store's suites
            return False
        return True
