"""The suite undo command driven without widgets: it writes through the suites service
(the same calls `axmem suite` makes), which checks what the command saw and announces what
it wrote; a change made by another connection in between is refused, not overwritten."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtGui import QUndoStack

from axmem_gui.core.suites import SuiteCase
from axmem_gui.services.aggregates import Change
from axmem_gui.services.workspace import OpenWorkspace, init_workspace, open_workspace
from axmem_gui.ui.suites.commands import SuiteChangesCommand

CASE = SuiteCase("weekly window", "recall", ("tuesday",), must_include=("deploy-window",))


class Controller:
    def __init__(self, ws: OpenWorkspace) -> None:
        self.workspace = ws
        self.heard: list[Change] = []
        self.notified: list[str] = []
        ws.notices.subscribe(self.heard.append)

    def notify_changed(self, what: str = "*") -> None:
        self.notified.append(what)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    p = tmp_path / "w.axmem"
    init_workspace(p, sample=True).close()
    return p


@pytest.fixture
def ctl(path: Path) -> Iterator[Controller]:
    with open_workspace(path) as ws:
        yield Controller(ws)


def test_add_a_case_then_undo_and_redo(ctl: Controller) -> None:
    suites = ctl.workspace.suites
    before, revision = suites.require("ops-retrieval")
    changes = suites.case_changes("ops-retrieval", CASE, expected_revision=revision)
    errors: list[str] = []
    stack = QUndoStack()
    stack.push(SuiteChangesCommand(ctl, changes, "Add case", errors.append))
    after, _ = suites.require("ops-retrieval")
    assert after.cases[-1] == CASE
    stack.undo()
    assert suites.require("ops-retrieval")[0] == before
    stack.redo()  # later redos compare values (the undo moved the revision)
    assert suites.require("ops-retrieval")[0] == after
    assert errors == [] and ctl.notified == []  # the service announced each write itself
    assert ctl.heard == [Change("suites", ("ops-retrieval",), False)] * 3


def test_a_suite_changed_elsewhere_is_not_overwritten(ctl: Controller, path: Path) -> None:
    suites = ctl.workspace.suites
    _before, revision = suites.require("ops-retrieval")
    changes = suites.case_changes("ops-retrieval", CASE, expected_revision=revision)
    with open_workspace(path) as other:  # the CLI, another window
        theirs = replace(other.suites.require("ops-retrieval")[0], description="theirs")
        other.suites.apply(other.suites.edit_changes("ops-retrieval", theirs))
    errors: list[str] = []
    stack = QUndoStack()
    stack.push(SuiteChangesCommand(ctl, changes, "Add case", errors.append))
    assert stack.count() == 0  # the command left the stack: it never applied
    assert len(errors) == 1 and "changed elsewhere" in errors[0]
    assert suites.require("ops-retrieval")[0] == theirs
    assert ctl.heard == [] and ctl.notified == ["suites"]  # the page shows the store again
