"""Issue #30: skill ids and the Agent Skills naming rule in the editor. Renaming a skill
to "Deploy Freeze!" gave no warning (and the export wrote a folder of that name); a new
skill kept the id `new-skill` after it was named."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt

from axmem_gui.core.catalog import Skill
from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.editor.dialogs import RenameDialog
from axmem_gui.ui.main_window import MainWindow
from tests.helpers.present import present
from tests.helpers.store import raw

CTRL = Qt.KeyboardModifier.ControlModifier


def _activate(window: MainWindow, qtbot: Any) -> None:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)


def test_a_new_skills_id_follows_its_name_until_renamed(
    window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _activate(window, qtbot)
    page = window.feature(CATALOG).pages["skills"]
    qtbot.keyClick(page.table, Qt.Key.Key_N, CTRL)
    form = page.form
    assert form.entry is not None and form.entry.id == "new-skill" and form.name_edit.hasFocus()
    qtbot.keyClicks(form.name_edit, "Deploy freeze")
    qtbot.keyClick(form.name_edit, Qt.Key.Key_Tab)  # done with the name
    skills = raw(window.controller.workspace).skills
    assert form.entry.id == "deploy-freeze" and form.id_edit.text() == "deploy-freeze"
    assert skills.get("deploy-freeze") is not None and skills.get("new-skill") is None
    assert present(skills.get("deploy-freeze")).name == "Deploy freeze"
    # Undo takes the id back first, then the name.
    window.undo_stack.undo()
    assert skills.get("new-skill") is not None
    window.undo_stack.redo()
    # Named by hand, the id stays put when the name changes again.
    monkeypatch.setattr(RenameDialog, "ask", classmethod(lambda cls, p, k, old: "freeze-rules"))
    window.feature(CATALOG).rename("skills")
    assert form.entry.id == "freeze-rules"
    form.name_edit.setFocus()
    form.name_edit.selectAll()
    qtbot.keyClicks(form.name_edit, "Change freeze")
    qtbot.keyClick(form.name_edit, Qt.Key.Key_Tab)
    assert isinstance(form.entry, Skill)
    assert form.entry.id == "freeze-rules" and form.entry.name == "Change freeze"


def test_an_existing_skill_keeps_its_id_when_renamed(window: MainWindow, qtbot: Any) -> None:
    _activate(window, qtbot)
    page = window.feature(CATALOG).pages["skills"]
    assert page.select_id("release-checklist")
    page.form.name_edit.setFocus()
    qtbot.keyClicks(page.form.name_edit, " v2")
    qtbot.keyClick(page.form.name_edit, Qt.Key.Key_Tab)
    assert page.form.entry is not None and page.form.entry.id == "release-checklist"


def test_the_rename_dialog_names_the_problem_and_offers_the_fix(qtbot: Any) -> None:
    dialog = RenameDialog(None, "skill", "deploy")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert not dialog.problem.isVisible()
    dialog.id_edit.selectAll()
    qtbot.keyClicks(dialog.id_edit, "Deploy Freeze!")
    assert dialog.problem.isVisible() and "uppercase" in dialog.problem.text()
    assert dialog.fix_button.text() == "Use 'deploy-freeze'"
    dialog.fix_button.click()
    assert dialog.id_edit.text() == "deploy-freeze" and not dialog.problem.isVisible()
    memory = RenameDialog(None, "memory", "Any Id!")  # memories have no folder
    qtbot.addWidget(memory)
    memory.show()
    assert not memory.problem.isVisible()


def test_the_form_warns_about_an_id_and_fixes_it_undoably(window: MainWindow, qtbot: Any) -> None:
    page = window.feature(CATALOG).pages["skills"]
    assert page.select_id("postmortemTemplate")  # a sample id in camelCase
    form = page.form
    qtbot.waitUntil(form.id_problem_row.isVisible)
    assert "uppercase" in form.id_problem.full_text()
    assert form.id_fix_button.text() == "Rename to 'postmortem-template'"
    form.id_fix_button.click()
    skills = raw(window.controller.workspace).skills
    assert skills.get("postmortem-template") is not None
    assert skills.get("postmortemTemplate") is None
    assert form.entry is not None and form.entry.id == "postmortem-template"
    assert not form.id_problem_row.isVisible()
    window.undo_stack.undo()
    assert skills.get("postmortemTemplate") is not None
    assert page.select_id("release-checklist")
    assert not form.id_problem_row.isVisible()
