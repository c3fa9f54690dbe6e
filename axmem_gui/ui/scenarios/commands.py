"""Undoable scenario edits: create, change, rename and delete, one QUndoCommand each.

A command holds the document before and after (name + JSON data) and writes through the
controller's workspace on redo/undo, in one transaction, then tells the views. Keystroke
edits of one field of one scenario merge into one command. A write that fails (read-only
file, disk full) marks the command obsolete so the stack never claims a state the store
does not have; the failure is reported through `report`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from PySide6.QtGui import QUndoCommand

from axmem_gui.core.errors import AxmemError
from axmem_gui.services.workspace import Workspace

#: QUndoCommand.id() of mergeable scenario edits.
MERGE_ID = 0x5C3E


class _Controller(Protocol):
    @property
    def workspace(self) -> Workspace: ...

    def notify_changed(self, what: str = "*") -> None: ...


@dataclass(frozen=True)
class ScenarioDoc:
    name: str
    data: dict[str, Any]


def _apply(
    controller: _Controller, remove: ScenarioDoc | None, write: ScenarioDoc | None
) -> None:
    ws = controller.workspace
    with ws.transaction():
        if remove is not None and (write is None or write.name != remove.name):
            ws.scenarios.delete(remove.name)
        if write is not None:
            ws.scenarios.save(write.name, copy.deepcopy(write.data))
    controller.notify_changed("scenarios")


class ScenarioCommand(QUndoCommand):
    def __init__(
        self,
        controller: _Controller,
        before: ScenarioDoc | None,
        after: ScenarioDoc | None,
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

    def _run(self, remove: ScenarioDoc | None, write: ScenarioDoc | None) -> None:
        try:
            _apply(self.controller, remove, write)
        except AxmemError as exc:
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
        if self.after is None or other.before is None or other.after is None:
            return False
        if self.after.name != other.before.name or other.after.name != self.after.name:
            return False
        self.after = other.after
        if self.before is not None and self.before == self.after:
            self.setObsolete(True)  # typed and deleted again: nothing left to undo
        return True


def create_command(
    controller: _Controller, name: str, data: dict[str, Any], report: Callable[[str], None]
) -> ScenarioCommand:
    return ScenarioCommand(
        controller, None, ScenarioDoc(name, data), f"New scenario '{name}'", report=report
    )


def edit_command(
    controller: _Controller,
    name: str,
    before: dict[str, Any],
    after: dict[str, Any],
    what: str,
    report: Callable[[str], None],
    merge_key: str | None = None,
) -> ScenarioCommand:
    return ScenarioCommand(
        controller,
        ScenarioDoc(name, before),
        ScenarioDoc(name, after),
        f"Edit scenario '{name}': {what}",
        merge_key=None if merge_key is None else f"{name}\0{merge_key}",
        report=report,
    )


def rename_command(
    controller: _Controller,
    old: str,
    new: str,
    data: dict[str, Any],
    report: Callable[[str], None],
) -> ScenarioCommand:
    renamed = {**data, "name": new}
    return ScenarioCommand(
        controller,
        ScenarioDoc(old, data),
        ScenarioDoc(new, renamed),
        f"Rename scenario '{old}' to '{new}'",
        report=report,
    )


def delete_command(
    controller: _Controller, name: str, data: dict[str, Any], report: Callable[[str], None]
) -> ScenarioCommand:
    return ScenarioCommand(
        controller, ScenarioDoc(name, data), None, f"Delete scenario '{name}'", report=report
    )
