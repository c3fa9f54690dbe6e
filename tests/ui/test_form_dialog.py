"""The one form-dialog shape (ui/form_dialog.py) shared by the agent config, suite and case
dialogs: a problem keeps the dialog open and is shown under the form."""

from __future__ import annotations

from typing import Any

from axmem_gui.ui.form_dialog import FormDialog, split_list
from axmem_gui.ui.sessions.agent_editor import AgentConfigDialog
from axmem_gui.ui.suites.dialogs import CaseDialog, SuiteDialog


def test_split_list() -> None:
    assert split_list("a, b\nc,, ") == ["a", "b", "c"]
    assert split_list("id with space, x") == ["id with space", "x"]
    assert split_list("doc  query,notes", at_spaces=True) == ["doc", "query", "notes"]


def test_a_problem_keeps_each_form_dialog_open(qtbot: Any) -> None:
    suite = SuiteDialog(None, "New suite", "")
    case = CaseDialog(None, "New case")
    agent = AgentConfigDialog(None, [])
    for dialog in (suite, case, agent):
        qtbot.addWidget(dialog)
        assert isinstance(dialog, FormDialog)
        assert dialog.problem.isHidden()
        dialog.buttons.accepted.emit()
        assert dialog.result() == 0 and not dialog.problem.isHidden()
        assert dialog.problem.text()
    assert "Name: give the agent a name." in agent.problem.text()
    suite.name_edit.setText("smoke")
    suite.buttons.accepted.emit()
    assert suite.result() == 1 and suite.problem.isHidden()
