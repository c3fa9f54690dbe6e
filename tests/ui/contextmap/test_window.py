"""The page inside the main window, over the shipped sample workspace."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from axmem_gui.services import contextmaps as svc
from axmem_gui.services.contextmaps import TimelineEntry
from axmem_gui.ui.contextmap import ContextMapPage
from axmem_gui.ui.contextmap.dialogs import AddItemDialog, ImportRequest, ImportSnapshotDialog
from axmem_gui.ui.dialogs import NewWorkspaceDialog
from axmem_gui.ui.main_window import MainWindow


def _page(window: MainWindow) -> ContextMapPage:
    page = window.pages["contextmaps"]
    assert isinstance(page, ContextMapPage)
    return page


def test_page_is_installed_with_file_menu_actions(window: MainWindow) -> None:
    page = _page(window)
    window.show_section("contextmaps")
    assert window.stack.currentWidget() is page
    texts = [a.text() for a in window.file_menu.actions()]
    assert "Import snapshot…" in texts and "Export snapshot…" in texts
    assert texts.index("Import snapshot…") < texts.index("&Quit")


def test_sample_session_shows_two_map_updates(window: MainWindow) -> None:
    page = _page(window)
    window.show_section("contextmaps")
    assert page.agent == "ops-assistant"
    entries = page.timeline_model.entries()
    updated = [e for e in entries if (e.update or {}).get("status") == "updated"]
    assert len(updated) >= 2
    assert all(e.session_id for e in entries)
    # The sample ships two sessions (scripted models A and B): steps rise within each.
    for session_id in {e.session_id for e in entries}:
        steps = [e.step for e in entries if e.session_id == session_id]
        assert steps == sorted(steps) and steps[-1] >= 2
    # The newest is shown with its diagnosis and operations.
    details = page.details.toPlainText()
    assert "Diagnosis:" in details and "Operations (" in details
    page.diff_button.setChecked(True)
    assert any(page.item_changes().values())


def test_window_reloads_and_resets_on_workspace_change(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    page = _page(window)
    window.show_section("contextmaps")
    before = page.timeline_model.rowCount()
    snapshot = tmp_path / "notes.md"
    snapshot.write_text("## ERROR PATTERNS\n[ep-00001] flaky deploy hook\n", encoding="utf-8")
    monkeypatch.setattr(
        ImportSnapshotDialog,
        "ask",
        classmethod(lambda cls, *a: ImportRequest(snapshot, page.agent or "x")),
    )
    for action in window.file_menu.actions():
        if action.text() == "Import snapshot…":
            action.trigger()
    assert page.timeline_model.rowCount() == before + 1
    source = page.current_source()
    assert isinstance(source, TimelineEntry) and source.label == svc.IMPORTED_LABEL
    assert "Context maps" in window.nav_model.index(5).data()

    page.edit_item_text("ep-00001", "flaky deploy hook on staging")
    assert page.editor.draft is not None
    target = tmp_path / "fresh.axmem"
    monkeypatch.setattr(NewWorkspaceDialog, "ask", classmethod(lambda cls, *a: target))
    window.new_workspace()
    assert page.editor.draft is None
    assert page.stack.currentWidget() is page.empty
    assert window.undo_stack.count() == 0


def test_keyboard_shortcuts_reach_the_page(
    window: MainWindow,
    qtbot: QtBot,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    page = _page(window)
    window.show_section("contextmaps")
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    asked: list[str | None] = []
    monkeypatch.setattr(
        AddItemDialog, "ask", classmethod(lambda cls, parent, section: asked.append(section))
    )
    first = page.map_model.item_rows()[0]
    assert page.select_item(first.item_id)
    page.tree.setFocus()
    qtbot.keyClick(page.tree, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert asked == [first.section]
    qtbot.keyClick(page.tree, Qt.Key.Key_Delete)
    assert page.editor.draft is not None
    assert first.item_id not in {r.item_id for r in page.map_model.item_rows()}
    qtbot.keyClick(page.tree, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert page.editor.draft is None
    qtbot.keyClick(page.tree, Qt.Key.Key_D, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(page.diff_button.isChecked)  # a button's shortcut clicks it animated
