"""An import as one undo step.

The import itself runs on the task runner; the command is pushed once it has committed,
so its first `redo` does nothing. Undo puts every touched entry back as it was
(`undo_import`, one transaction); redo applies the same plan again, which first checks
that the entries are still as the plan saw them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtGui import QUndoCommand

from axmem_gui.core.errors import AxmemError
from axmem_gui.services.transfer import ImportResult, apply_import, undo_import
from axmem_gui.services.workspace import OpenWorkspace
from axmem_gui.ui.lint.severity import plural


class _Controller(Protocol):
    @property
    def workspace(self) -> OpenWorkspace: ...

    def notify_changed(self, what: str = "*") -> None: ...


def import_text(result: ImportResult) -> str:
    return f"Import {plural(len(result.changes), 'entry', 'entries')}"


class ImportCommand(QUndoCommand):
    def __init__(
        self,
        controller: _Controller,
        result: ImportResult,
        report_error: Callable[[str], None] = lambda _m: None,
        *,
        applied: bool = True,
    ) -> None:
        super().__init__(import_text(result))
        self.controller = controller
        self.result = result
        self.report_error = report_error
        self._skip_redo = applied
        self.failed = False

    def redo(self) -> None:
        if self._skip_redo:
            self._skip_redo = False
            return
        try:
            self.result = apply_import(self.controller.workspace, self.result.plan)
        except AxmemError as exc:
            self._fail(f"Cannot redo the import: {exc}")
            return
        # (The catalog service announced what the import wrote.)

    def undo(self) -> None:
        try:
            undo_import(self.controller.workspace, self.result)
        except AxmemError as exc:
            self._fail(f"Cannot undo the import: {exc}")

    def _fail(self, message: str) -> None:
        self.failed = True
        self.setObsolete(True)
        self.controller.notify_changed("*")
        self.report_error(message)
