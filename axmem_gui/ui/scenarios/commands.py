"""Undoable scenario edits: create, change, rename and delete, one QUndoCommand each.

A command holds the typed document before and after and writes through the scenarios
service on redo/undo (`ScenarioService.apply`: one transaction, which first checks the
store still holds what the command expects, then announces the change). Keystroke edits
of one field of one scenario merge into one command. A write that fails (changed
elsewhere, read-only file, disk full) marks the command obsolete so the stack never claims
a state the store does not have; the failure is reported through `report`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtGui import QUndoCommand

from axmem_gui.core.errors import AxmemError
from axmem_gui.core.scenarios import ScenarioDocument
from axmem_gui.services.scenarios import ScenarioChange
from axmem_gui.services.workspace import OpenWorkspace

#: QUndoCommand.id() of mergeable scenario edits.
MERGE_ID = 0x5C3E


class _Controller(Protocol):
    @property
    def workspace(self) -> OpenWorkspace: ...


def scenario_changes(
    present: ScenarioDocument | None, target: ScenarioDocument | None
) -> list[ScenarioChange]:
    """The changes that take the store from `present` (what it holds) to `target`."""
    changes = []
    if present is not None and (target is None or target.name != present.name):
        changes.append(ScenarioChange(present.name, present, None))
    if target is not None:
        seen = present if present is not None and present.name == target.name else None
        changes.append(ScenarioChange(target.name, seen, target))
    return changes


class ScenarioCommand(QUndoCommand):
    def __init__(
        self,
        controller: _Controller,
        before: ScenarioDocument | None,
        after: ScenarioDocument | None,
        text: str,
        merge_key: str | None = None,
        report: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__(text)
        self.controller = controller
        self.before = before
        self.after = after
        self.merge_key = merge_key
        self.report = report or (lambda _message: None)
        self.failed = False

    def _run(self, present: ScenarioDocument | None, target: ScenarioDocument | None) -> None:
        try:
            self.controller.workspace.scenarios.apply(scenario_changes(present, target))
        except AxmemError as exc:
            self.failed = True
            self.setObsolete(True)
            self.report(str(exc))

    def redo(self) -> None:
        self._run(self.before, self.after)

    def undo(self) -> None:
        self._run(self.after, self.before)

    def id(self) -> int:
        return MERGE_ID if self.merge_key is not None else -1

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, ScenarioCommand) or other.merge_key != self.merge_key:
            return False
        if other.failed or self.after is None or other.before is None or other.after is None:
            return False
        if self.after.name != other.before.name or other.after.name != self.after.name:
            return False
        self.after = other.after
        if self.before is not None and self.before == self.after:
            self.setObsolete(True)  # typed and deleted again: nothing left to undo
        return True


def create_command(
    controller: _Controller, document: ScenarioDocument, report: Callable[[str], None]
) -> ScenarioCommand:
    return ScenarioCommand(
        controller, None, document, f"New scenario '{document.name}'", report=report
    )


def edit_command(
    controller: _Controller,
    before: ScenarioDocument,
    after: ScenarioDocument,
    what: str,
    report: Callable[[str], None],
    merge_key: str | None = None,
) -> ScenarioCommand:
    name = before.name
    return ScenarioCommand(
        controller,
        before,
        after,
        f"Edit scenario '{name}': {what}",
        merge_key=None if merge_key is None else f"{name}\0{merge_key}",
        report=report,
    )


def rename_command(
    controller: _Controller,
    document: ScenarioDocument,
    new: str,
    report: Callable[[str], None],
) -> ScenarioCommand:
    return ScenarioCommand(
        controller,
        document,
        document.renamed(new),
        f"Rename scenario '{document.name}' to '{new}'",
        report=report,
    )


def delete_command(
    controller: _Controller, document: ScenarioDocument, report: Callable[[str], None]
) -> ScenarioCommand:
    return ScenarioCommand(
        controller, document, None, f"Delete scenario '{document.name}'", report=report
    )
