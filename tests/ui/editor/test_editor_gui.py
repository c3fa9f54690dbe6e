"""The catalog editor in a real main window over a real workspace file."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import QItemSelection, QItemSelectionModel, Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from axmem_gui.core.errors import ConflictError
from axmem_gui.store import Workspace
from axmem_gui.ui.catalog.feature import CATALOG, CatalogEditing
from axmem_gui.ui.commands import Resolution
from axmem_gui.ui.editor.dialogs import ConflictDialog, RenameDialog, TagDialog
from axmem_gui.ui.entry_table import EntryRole
from axmem_gui.ui.history import HistoryDialog
from axmem_gui.ui.main_window import MainWindow
from tests.helpers.present import present
from tests.helpers.store import raw
from tests.ui.conftest import WindowFactory


def editing(window: MainWindow) -> CatalogEditing:
    return window.feature(CATALOG)


def stored_name(window: MainWindow, entry_id: str) -> str | None:
    with Workspace.open(window.controller.path, read_only=True) as other:
        skill = other.skills.get(entry_id)
        return None if skill is None else skill.name


def activate(window: MainWindow, qtbot: QtBot) -> None:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)


def select_rows(window: MainWindow, rows: list[int]) -> list[str]:
    page = window.feature(CATALOG).pages["skills"]
    selection = QItemSelection()
    for row in rows:
        selection.select(page.model.index(row, 0), page.model.index(row, 0))
    flags = (
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
    )
    page.table.selectionModel().select(selection, flags)
    return [str(page.model.index(r, 0).data(EntryRole.EntryId)) for r in rows]


def test_ctrl_n_creates_an_entry_and_undo_removes_it(window: MainWindow, qtbot: QtBot) -> None:
    activate(window, qtbot)
    before = window.controller.counts().skills
    table = window.feature(CATALOG).pages["skills"].table
    qtbot.keyClick(table, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert window.controller.counts().skills == before + 1
    form = window.feature(CATALOG).pages["skills"].form
    assert form.entry is not None and form.entry.id == "new-skill"
    assert form.id_edit.text() == "new-skill" and form.name_edit.hasFocus()
    assert window.feature(CATALOG).pages["skills"].current_row_id() == "new-skill"
    assert "new-skill" in window.statusBar().currentMessage()
    window.undo_stack.undo()
    assert window.controller.counts().skills == before
    assert stored_name(window, "new-skill") is None


def test_typing_is_saved_after_a_pause_and_undone_word_by_word(
    window: MainWindow, qtbot: QtBot
) -> None:
    activate(window, qtbot)
    page = window.feature(CATALOG).pages["skills"]
    assert page.select_id("release-checklist")
    form = page.form
    form.name_edit.setFocus()
    form.name_edit.end(False)
    qtbot.keyClicks(form.name_edit, " v2")
    assert form.state_label.text() == "editing…"
    qtbot.waitUntil(lambda: stored_name(window, "release-checklist") == "Release checklist v2")
    # The burst of keys became one write, not one per key.
    assert len(raw(window.controller.workspace).skills.history("release-checklist")) == 2
    qtbot.keyClicks(form.name_edit, " final")
    qtbot.waitUntil(
        lambda: stored_name(window, "release-checklist") == "Release checklist v2 final"
    )
    assert form.state_label.text().endswith("saved")
    # The row in the table follows without a reset.
    row = page.model.row_of_id("release-checklist")
    assert page.model.index(row, 1).data() == "Release checklist v2 final"
    # Ctrl+Z in the field goes to the window's stack, not the line edit's own history
    # (a step per word: " final!" comes off first).
    qtbot.keyClicks(form.name_edit, "!")
    qtbot.keyClick(form.name_edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert stored_name(window, "release-checklist") == "Release checklist v2"
    assert form.name_edit.text() == "Release checklist v2"
    window.undo_stack.redo()
    assert stored_name(window, "release-checklist") == "Release checklist v2 final!"
    assert form.name_edit.text() == "Release checklist v2 final!"


def test_content_edit_undo_redo_restore_store_values(window: MainWindow, qtbot: QtBot) -> None:
    page = window.feature(CATALOG).pages["skills"]
    assert page.select_id("release-checklist")
    form = page.form
    original = raw(window.controller.workspace).skills.get("release-checklist")
    assert original is not None
    form.content.edit.setFocus()
    form.content.edit.moveCursor(form.content.edit.textCursor().MoveOperation.End)
    qtbot.keyClicks(form.content.edit, "Extra line")
    form.tags_edit.setFocus()  # focus-out commits at once
    ws = window.controller.workspace
    assert (
        present(raw(ws).skills.get("release-checklist")).content == original.content + "Extra line"
    )
    form.tags_edit.end(False)
    qtbot.keyClicks(form.tags_edit, ", hot")
    form.name_edit.setFocus()
    assert present(raw(ws).skills.get("release-checklist")).tags == (*original.tags, "hot")
    # a step per word (test_undo_steps.py): "Extra", " line"; ", hot"
    assert window.undo_stack.count() == 3
    for _ in range(3):
        window.undo_stack.undo()
    assert raw(ws).skills.get("release-checklist") == original
    assert form.content.text() == original.content
    assert form.tags_edit.text() == ", ".join(original.tags)
    window.undo_stack.redo()
    assert form.content.text() == original.content + "Extra"
    window.undo_stack.redo()
    assert form.content.text() == original.content + "Extra line"


def test_delete_key_removes_without_asking_and_undo_brings_back(
    window: MainWindow, qtbot: QtBot
) -> None:
    activate(window, qtbot)
    page = window.feature(CATALOG).pages["skills"]
    assert page.select_id("release-checklist")
    value = raw(window.controller.workspace).skills.get("release-checklist")
    page.table.setFocus()
    qtbot.keyClick(page.table, Qt.Key.Key_Delete)
    assert raw(window.controller.workspace).skills.get("release-checklist") is None
    assert page.model.row_of_id("release-checklist") < 0
    assert page.form.entry is not None and page.form.entry.id != "release-checklist"
    window.undo_stack.undo()
    assert raw(window.controller.workspace).skills.get("release-checklist") == value
    assert page.current_row_id() == "release-checklist"


def test_bulk_delete_and_undo(window: MainWindow, qtbot: QtBot) -> None:
    activate(window, qtbot)
    page = window.feature(CATALOG).pages["skills"]
    total = window.controller.counts().skills
    ids = select_rows(window, [1, 2, 4, 6])
    assert "4 selected" in page.selection_label.text()
    page.table.setFocus()
    qtbot.keyClick(page.table, Qt.Key.Key_Delete)
    assert window.controller.counts().skills == total - 4
    assert all(raw(window.controller.workspace).skills.get(i) is None for i in ids)
    assert window.undo_stack.count() == 1
    window.undo_stack.undo()
    assert window.controller.counts().skills == total
    assert page.model.total() == total


def test_bulk_tag_add_remove_and_undo(
    window: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = window.feature(CATALOG).pages["skills"]
    ids = select_rows(window, [0, 3, 5])
    asked: list[tuple[bool, int]] = []

    def ask(
        cls: object, parent: QWidget | None, adding: bool, count: int, known: list[str]
    ) -> str:
        asked.append((adding, count))
        return " hot "

    monkeypatch.setattr(TagDialog, "ask", classmethod(ask))
    editing(window).add_tag_action.trigger()
    assert asked == [(True, 3)]
    ws = window.controller.workspace
    assert all("hot" in present(raw(ws).skills.get(i)).tags for i in ids)
    row = page.model.row_of_id(ids[1])
    assert "hot" in page.model.index(row, 3).data()
    # The selection survives the edit, so the same rows can be untagged.
    assert page.selected_ids() == ids
    editing(window).remove_tag_action.trigger()
    assert all("hot" not in present(raw(ws).skills.get(i)).tags for i in ids)
    window.undo_stack.undo()
    assert all("hot" in present(raw(ws).skills.get(i)).tags for i in ids)
    window.undo_stack.undo()
    assert all("hot" not in present(raw(ws).skills.get(i)).tags for i in ids)


def test_f2_renames_the_id_and_undo_renames_back(
    window: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    activate(window, qtbot)
    page = window.feature(CATALOG).pages["skills"]
    assert page.select_id("release-checklist")
    monkeypatch.setattr(RenameDialog, "ask", classmethod(lambda cls, p, k, old: "ship-it"))
    qtbot.keyClick(page.table, Qt.Key.Key_F2)
    ws = window.controller.workspace
    assert raw(ws).skills.get("release-checklist") is None
    assert raw(ws).skills.get("ship-it") is not None
    assert page.form.id_edit.text() == "ship-it"
    assert page.current_row_id() == "ship-it"
    window.undo_stack.undo()
    assert raw(ws).skills.get("ship-it") is None
    assert page.form.id_edit.text() == "release-checklist"


def test_rename_to_an_existing_id_is_refused_with_a_message(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    from axmem_gui.ui.dialogs import ErrorDialog

    page = window.feature(CATALOG).pages["skills"]
    assert page.select_id("release-checklist")
    other = raw(window.controller.workspace).skills.ids()[1]
    shown: list[str] = []
    monkeypatch.setattr(RenameDialog, "ask", classmethod(lambda cls, p, k, old: other))
    monkeypatch.setattr(ErrorDialog, "show", classmethod(lambda cls, p, t, m: shown.append(m)))
    editing(window).rename_action.trigger()
    assert shown == [f"skill '{other}' already exists; choose another id"]
    assert window.undo_stack.count() == 0


def test_history_dialog_diff_and_restore(
    window: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = window.feature(CATALOG).pages["skills"]
    assert page.select_id("release-checklist")
    ws = window.controller.workspace
    original = raw(ws).skills.get("release-checklist")
    assert original is not None
    page.form.description_edit.setFocus()
    page.form.description_edit.end(False)
    qtbot.keyClicks(page.form.description_edit, " (edited)")
    page.form.name_edit.setFocus()
    history = raw(ws).skills.history("release-checklist")
    assert [r.op for r in history] == ["create", "update"]

    dialog = HistoryDialog(
        window,
        "skill",
        "release-checklist",
        history,
        replace(original, description=original.description + " (edited)"),
    )
    qtbot.addWidget(dialog)
    assert dialog.revisions.rowCount() == 2
    assert dialog.select_revision(1)
    tags = {row.tag for row in dialog.diff.rows}
    changed = [row for row in dialog.diff.rows if row.tag == "changed"]
    assert tags == {"equal", "changed"} and len(changed) == 1
    assert changed[0].right.endswith("(edited)") and not changed[0].left.endswith("(edited)")
    assert dialog.restore_button.isEnabled()
    assert dialog.diff.index(2, 1).data(Qt.ItemDataRole.BackgroundRole) is not None
    dialog.select_revision(2)
    assert not dialog.restore_button.isEnabled()  # same as current
    dialog.select_revision(1)
    dialog.restore_button.click()
    assert dialog.chosen is not None and dialog.chosen.revision == 1

    monkeypatch.setattr(HistoryDialog, "ask", classmethod(lambda cls, *a: history[0]))
    editing(window).history_action.trigger()
    assert raw(ws).skills.get("release-checklist") == original
    assert raw(ws).skills.history("release-checklist")[-1].op == "restore"
    assert page.form.description_edit.text() == original.description
    window.undo_stack.undo()
    assert present(raw(ws).skills.get("release-checklist")).description.endswith("(edited)")


def test_conflict_with_another_instance_asks_and_reloads_theirs(
    window: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[ConflictError] = []

    def ask(cls: object, parent: QWidget | None, error: ConflictError) -> Resolution:
        asked.append(error)
        return Resolution.THEIRS

    monkeypatch.setattr(ConflictDialog, "ask", classmethod(ask))
    page = window.feature(CATALOG).pages["skills"]
    assert page.select_id("release-checklist")
    page.form.name_edit.setFocus()
    page.form.name_edit.end(False)
    qtbot.keyClicks(page.form.name_edit, " mine")
    with Workspace.open(window.controller.path) as other:  # a second connection
        entry = other.skills.get("release-checklist")
        assert entry is not None
        other.skills.upsert(replace(entry, name="Theirs"))
    page.form.commit_pending()
    assert len(asked) == 1 and asked[0].entry_id == "release-checklist"
    assert stored_name(window, "release-checklist") == "Theirs"
    assert page.form.name_edit.text() == "Theirs"
    assert window.undo_stack.count() == 0


def test_conflict_overwrite_with_mine(
    window: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ConflictDialog, "ask", classmethod(lambda cls, p, e: Resolution.MINE))
    page = window.feature(CATALOG).pages["skills"]
    assert page.select_id("release-checklist")
    page.form.name_edit.setFocus()
    page.form.name_edit.end(False)
    qtbot.keyClicks(page.form.name_edit, " mine")
    with Workspace.open(window.controller.path) as other:
        entry = other.skills.get("release-checklist")
        assert entry is not None
        other.skills.upsert(replace(entry, name="Theirs"))
    qtbot.waitUntil(lambda: stored_name(window, "release-checklist") == "Release checklist mine")
    assert window.undo_stack.count() == 1


def test_read_only_workspace_disables_editing(qtbot: QtBot, make_window: WindowFactory) -> None:
    win = make_window(read_only=True)
    controller = win.controller
    page = win.feature(CATALOG).pages["skills"]
    assert page.select_id("release-checklist")
    actions = editing(win)
    assert not actions.new_action.isEnabled() and not actions.delete_action.isEnabled()
    assert not actions.rename_action.isEnabled() and not actions.add_tag_action.isEnabled()
    assert actions.history_action.isEnabled()
    assert page.form.name_edit.isReadOnly() and page.form.content.edit.isReadOnly()
    assert "read-only" in page.form.state_label.text()
    qtbot.keyClicks(page.form.name_edit, "x")
    actions.new_entry("skills")
    actions.delete_selected("skills")
    assert win.undo_stack.count() == 0
    assert (
        present(raw(controller.workspace).skills.get("release-checklist")).name
        == "Release checklist"
    )


def test_memories_form_edits_content(window: MainWindow, qtbot: QtBot) -> None:
    window.show_section("memories")
    page = window.feature(CATALOG).pages["memories"]
    first = raw(window.controller.workspace).memories.ids()[0]
    assert page.select_id(first)
    assert not page.form.name_edit.isVisibleTo(page.form)
    page.form.content.edit.setFocus()
    qtbot.keyClicks(page.form.content.edit, "Note: ")
    page.form.tags_edit.setFocus()
    assert present(raw(window.controller.workspace).memories.get(first)).content.startswith(
        "Note: "
    )
    window.undo_stack.undo()
    assert not present(raw(window.controller.workspace).memories.get(first)).content.startswith(
        "Note: "
    )


def test_add_tag_dialog_starts_empty_and_offers_known_tags(qtbot: QtBot) -> None:
    # It preselected the first known tag ("incident") for entries that lack it; Enter added it.
    dialog = TagDialog(None, True, 2, ["incident", "deploy"])
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert dialog.tag() == ""
    assert dialog.combo.currentIndex() == -1
    assert [dialog.combo.itemText(i) for i in range(dialog.combo.count())] == [
        "incident",
        "deploy",
    ]
    assert not dialog.ok_button.isEnabled()  # Enter on the empty dialog adds nothing
    qtbot.keyClicks(dialog.combo.lineEdit(), "hot")
    assert dialog.ok_button.isEnabled()
    qtbot.keyClick(dialog.combo.lineEdit(), Qt.Key.Key_Return)
    assert dialog.result() == dialog.DialogCode.Accepted and dialog.tag() == "hot"
