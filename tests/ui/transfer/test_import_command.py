"""The import undo step, driven without widgets over a real workspace file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QUndoStack

from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.services.transfer import ImportResult, apply_import, plan_import
from axmem_gui.services.workspace import OpenWorkspace, init_workspace
from axmem_gui.ui.transfer.command import ImportCommand
from tests.helpers.store import raw

DEPLOY = Skill("deploy", "Deploy", "How to deploy", "old steps")


class Controller:
    """What the command needs from the window's controller: the workspace (whose catalog
    service announces each write), and a place to say that something changed."""

    def __init__(self, ws: OpenWorkspace) -> None:
        self.workspace = ws
        self.changes: list[str] = []
        ws.notices.subscribe(lambda change: self.changes.append(change.what))

    def notify_changed(self, what: str = "*") -> None:
        self.changes.append(what)


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[OpenWorkspace]:
    workspace = init_workspace(tmp_path / "w.axmem")
    raw(workspace).skills.upsert(DEPLOY)
    yield workspace
    workspace.close()


def _imported(ws: OpenWorkspace, tmp_path: Path) -> ImportResult:
    source = tmp_path / "c.json"
    source.write_text(
        json.dumps(
            {
                "skillsCatalog": [
                    {"id": "deploy", "name": "Deploy", "content": "new steps"},
                    {"id": "review", "name": "Review", "content": "r"},
                ],
                "memoriesCatalog": [{"id": "tz", "content": "UTC"}],
            }
        ),
        encoding="utf-8",
    )
    return apply_import(ws, plan_import(ws, [source], "overwrite"))


def test_undo_and_redo_of_an_import(ws: OpenWorkspace, tmp_path: Path) -> None:
    result = _imported(ws, tmp_path)
    after = (raw(ws).skills.all(), raw(ws).memories.all())
    controller = Controller(ws)
    stack = QUndoStack()
    stack.push(ImportCommand(controller, result))
    assert controller.changes == []  # pushing does not write again
    assert stack.undoText() == "Import 3 entries"

    stack.undo()
    assert raw(ws).skills.all() == [DEPLOY]
    assert raw(ws).memories.all() == []
    stack.redo()
    assert (raw(ws).skills.all(), raw(ws).memories.all()) == after
    stack.undo()
    assert raw(ws).skills.all() == [DEPLOY]
    # Each step announced what it wrote, once per kind.
    assert sorted(controller.changes) == ["memories"] * 3 + ["skills"] * 3


def test_redo_over_a_changed_entry_is_refused_and_dropped(
    ws: OpenWorkspace, tmp_path: Path
) -> None:
    result = _imported(ws, tmp_path)
    errors: list[str] = []
    controller = Controller(ws)
    stack = QUndoStack()
    stack.push(ImportCommand(controller, result, errors.append))
    stack.undo()
    raw(ws).memories.upsert(Memory("tz", "Europe/Paris"))  # someone else adds 'tz' meanwhile
    before = (raw(ws).skills.all(), raw(ws).memories.all())
    stack.redo()
    assert len(errors) == 1
    assert "Cannot redo the import" in errors[0] and "memory 'tz'" in errors[0]
    assert (raw(ws).skills.all(), raw(ws).memories.all()) == before  # nothing half-applied
    assert stack.count() == 0  # the failed step is dropped, the stack does not lie
