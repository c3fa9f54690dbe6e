"""The bugs a new user met on the sample workspace (issue: the desktop app as a new user
meets it), each through the real window."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSize, Qt

from axmem_gui.core.catalog import Skill
from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.editor.dialogs import RenameDialog
from axmem_gui.ui.history import HistoryDialog
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.sessions.controller import SESSIONS
from axmem_gui.ui.sessions.page import JobStrip
from axmem_gui.ui.suites.feature import SUITES
from tests.helpers.session_docs import reparse, stored_json
from tests.helpers.store import raw

SAMPLE_SESSION = "sample-ops-assistant"


def activate(window: MainWindow, qtbot: Any) -> None:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)


def redo_action(window: MainWindow) -> Any:
    [redo] = [a for a in window.edit_menu.actions() if a.text().startswith("&Redo")]
    return redo


# 1 ------------------------------------------------------------------------------------
def test_redo_shortcuts_are_unambiguous_and_include_ctrl_y(qapp: Any) -> None:
    from axmem_gui.ui.window_menus import redo_shortcuts

    keys = [k.toString() for k in redo_shortcuts()]
    assert len(keys) == len(set(keys))
    assert "Ctrl+Shift+Z" in keys
    if sys.platform != "darwin":
        assert "Ctrl+Y" in keys


@pytest.mark.parametrize("modifiers,key", [("shift", Qt.Key.Key_Z), ("", Qt.Key.Key_Y)])
def test_redo_by_keyboard_redoes(window: MainWindow, qtbot: Any, modifiers: str, key: Any) -> None:
    activate(window, qtbot)
    table = window.feature(CATALOG).pages["skills"].table
    before = window.controller.counts().skills
    qtbot.keyClick(table, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.controller.counts().skills == before
    mods = Qt.KeyboardModifier.ControlModifier
    if modifiers == "shift":
        mods |= Qt.KeyboardModifier.ShiftModifier
    window.feature(CATALOG).pages["skills"].table.setFocus()
    qtbot.keyClick(window.feature(CATALOG).pages["skills"].table, key, mods)
    assert window.controller.counts().skills == before + 1
    shortcuts = [k.toString() for k in redo_action(window).shortcuts()]
    assert shortcuts.count("Ctrl+Shift+Z") == 1


# 2 ------------------------------------------------------------------------------------
def _new_skill_renamed_and_edited(window: MainWindow, qtbot: Any, monkeypatch: Any) -> str:
    activate(window, qtbot)
    page = window.feature(CATALOG).pages["skills"]
    qtbot.keyClick(page.table, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    page.form.name_edit.selectAll()
    qtbot.keyClicks(page.form.name_edit, "Alpha")
    page.form.commit_pending()
    monkeypatch.setattr(RenameDialog, "ask", classmethod(lambda cls, p, k, old: "alpha-skill"))
    window.feature(CATALOG).rename_action.trigger()
    assert page.current_id() == "alpha-skill"
    page.form.description_edit.setFocus()
    qtbot.keyClicks(page.form.description_edit, "Edited after the rename")
    page.form.commit_pending()
    return "alpha-skill"


def test_restoring_a_revision_from_before_a_rename_restores_the_renamed_entry(
    window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry_id = _new_skill_renamed_and_edited(window, qtbot, monkeypatch)
    ws = window.controller.workspace
    count = raw(ws).skills.count()
    history = ws.catalog.lineage("skills", entry_id)
    named = [
        r
        for r in history
        if r.op == "update" and r.after is not None and r.after.id == "new-skill"
    ][-1]
    assert isinstance(named.after, Skill) and named.after.name == "Alpha"
    monkeypatch.setattr(HistoryDialog, "ask", classmethod(lambda cls, *a: named))
    window.feature(CATALOG).history_action.trigger()
    assert raw(ws).skills.count() == count
    assert raw(ws).skills.get("new-skill") is None
    restored = raw(ws).skills.get(entry_id)
    assert restored is not None and restored.name == "Alpha" and restored.description == ""
    window.undo_stack.undo()
    again = raw(ws).skills.get(entry_id)
    assert again is not None and again.description == "Edited after the rename"


# 8 ------------------------------------------------------------------------------------
def test_history_numbers_stay_unique_after_undo_all_and_redo_all(
    window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry_id = _new_skill_renamed_and_edited(window, qtbot, monkeypatch)
    stack = window.undo_stack
    steps = stack.index()
    while stack.canUndo():
        stack.undo()
    assert raw(window.controller.workspace).skills.get("new-skill") is None
    while stack.index() < steps:
        stack.redo()
    history = window.controller.workspace.catalog.lineage("skills", entry_id)
    numbers = [r.revision for r in history]
    assert numbers == sorted(numbers) and len(numbers) == len(set(numbers)), numbers
    ops = [r.op for r in history]
    # The first creation, the undo that deleted it, and the redone creation.
    assert ops.count("create") == 2 and "delete" in ops, ops
    after = history[-1].after
    assert isinstance(after, Skill) and after.description == "Edited after the rename"


# 3 ------------------------------------------------------------------------------------
def test_first_start_size_fits_a_laptop_screen(qapp: Any) -> None:
    from axmem_gui.ui.main_window import first_start_size

    size = first_start_size(QSize(1366, 768 - 32))
    assert size.width() <= 1366 and size.height() <= 768 - 32
    assert first_start_size(QSize(2560, 1400)) == QSize(1400, 860)


def test_window_fits_1366_wide_on_every_page(window: MainWindow, qtbot: Any) -> None:
    for key in window.pages:
        window.show_section(key)
        qtbot.waitUntil(lambda k=key: window.current_section() == k)
        assert window.minimumSizeHint().width() <= 1366, key


def test_replay_and_job_strips_never_widen_the_window(window: MainWindow, qtbot: Any) -> None:
    window.resize(1300, 700)
    qtbot.waitUntil(lambda: window.width() == 1300)
    feature = window.feature(SESSIONS)
    window.show_section("sessions")
    viewer = feature.open_session(SAMPLE_SESSION)
    assert viewer is not None
    strip = feature.page.add_strip("Rerunning " + "a long session name " * 10, lambda: None)
    strip.set_progress(0.5, "call 3 of 16 · actor.executor · " + "a long status " * 30)
    viewer.replay_action.trigger()
    qtbot.waitUntil(lambda: not feature.jobs, timeout=30_000)
    assert viewer.banner.text().startswith("Replay identical")
    viewer.meta.setText("x" * 2000)
    qtbot.waitUntil(lambda: viewer.isVisible())
    assert window.width() == 1300
    assert window.minimumSizeHint().width() <= 1300
    assert strip.status.toolTip().startswith("call 3 of 16")
    assert isinstance(strip, JobStrip)


# 5 ------------------------------------------------------------------------------------
def test_about_menu_item_shows_the_ampersand(window: MainWindow) -> None:
    texts = [
        a.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
        for a in window.help_menu.actions()
    ]
    assert "About Ax Memory & Skills Studio" in texts


# 9 ------------------------------------------------------------------------------------
def test_opening_a_session_file_shows_it_in_the_viewer(
    qapp: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sample_path: Path
) -> None:
    from axmem_gui import app as app_module
    from axmem_gui.services import sessions
    from axmem_gui.store import Workspace

    with Workspace.open(sample_path) as ws:
        doc = stored_json(ws, SAMPLE_SESSION)
    doc["id"] = "from-a-file"
    doc["name"] = "Opened from a file"
    path = tmp_path / "shared.axsession.json"
    sessions.write_session_file(reparse(doc), path)
    seen: dict[str, Any] = {}

    def inspect(app: object, window: Any, screenshot: object) -> int:
        feature = window.feature(SESSIONS)
        viewer = feature.current_viewer()
        seen["section"] = window.current_section()
        seen["viewer"] = None if viewer is None else viewer.session_id
        window.close()
        return 0

    monkeypatch.setattr(app_module, "_self_test", inspect)
    assert app_module.main([str(path), "--self-test"]) == 0
    assert seen == {"section": "sessions", "viewer": "from-a-file"}


# 11 -----------------------------------------------------------------------------------
def test_navigator_counts_the_context_map_snapshots_the_timeline_lists(window: MainWindow) -> None:
    from axmem_gui.services import contextmaps, sessions
    from axmem_gui.ui.navigator import NavRole

    ws = window.controller.workspace
    # A live run's session: its context maps are recorded inside the session document.
    doc = stored_json(ws, SAMPLE_SESSION)
    doc["id"] = "a-live-run"
    sessions.save_session(raw(ws), reparse(doc))
    window.controller.notify_changed("sessions")
    listed = sum(len(contextmaps.timeline(ws, a)) for a in contextmaps.map_agents(ws))
    assert listed > raw(ws).contextmaps.count()
    model = window.nav_model
    index = model.index(model.row_of("contextmaps"))
    assert index.data(NavRole.Count) == listed
    assert index.data().split()[-1] == str(listed)


# 6 ------------------------------------------------------------------------------------
def test_suites_empty_state_names_only_commands_that_exist(
    window: MainWindow, capsys: pytest.CaptureFixture[str]
) -> None:
    import re

    from axmem_gui.cli.main import main as cli_main
    from axmem_gui.ui.suites.page import EMPTY_TEXT

    named = re.findall(r"`axmem ([a-z-]+) ([a-z-]+)", EMPTY_TEXT)
    assert named
    for group, command in named:
        with pytest.raises(SystemExit) as exit_info:
            cli_main([group, command, "--help"])
        assert exit_info.value.code == 0, f"axmem {group} {command}"
    capsys.readouterr()
    # And the buttons it names are there on the empty page.
    page = window.feature(SUITES).page
    assert "New suite" in EMPTY_TEXT and page.empty_new_button.text().startswith("New suite")


# new memories -------------------------------------------------------------------------
def test_new_memories_get_unique_ids(window: MainWindow, qtbot: Any) -> None:
    window.show_section("memories")
    editing = window.feature(CATALOG)
    for _ in range(3):
        editing.new_entry("memories")
    ids = [i for i in raw(window.controller.workspace).memories.ids() if i.startswith("new-memory")]
    assert sorted(ids) == ["new-memory", "new-memory-2", "new-memory-3"]


def test_a_session_file_given_with_a_workspace_is_imported_into_it(
    qapp: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sample_path: Path
) -> None:
    """`axmem-gui -w WORKSPACE FILE.axsession.json` opened the workspace and said nothing
    of the session (neither imported nor shown)."""
    import shutil

    from axmem_gui import app as app_module
    from axmem_gui.services import sessions
    from axmem_gui.store import Workspace

    with Workspace.open(sample_path) as ws:
        doc = stored_json(ws, SAMPLE_SESSION)
    doc["id"] = "given-with-w"
    path = tmp_path / "shared.axsession.json"
    sessions.write_session_file(reparse(doc), path)
    workspace = tmp_path / "mine.axmem"
    shutil.copyfile(sample_path, workspace)
    seen: dict[str, Any] = {}

    def inspect(app: object, window: Any, screenshot: object) -> int:
        viewer = window.feature(SESSIONS).current_viewer()
        seen["workspace"] = window.controller.path
        seen["viewer"] = None if viewer is None else viewer.session_id
        window.close()
        return 0

    monkeypatch.setattr(app_module, "_self_test", inspect)
    assert app_module.main(["-w", str(workspace), str(path), "--self-test"]) == 0
    assert seen == {"workspace": workspace, "viewer": "given-with-w"}
    with Workspace.open(workspace) as ws:
        assert stored_json(ws, "given-with-w")["id"] == "given-with-w"


def test_the_imported_session_message_is_not_drawn_over_the_workspace_path(
    qapp: Any, qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sample_path: Path
) -> None:
    """`axmem-gui FILE.axsession.json`: the status bar's message was shown before the
    window's first paint, which showed the workspace path again under it."""
    from axmem_gui import app as app_module
    from axmem_gui.services import sessions
    from axmem_gui.store import Workspace

    with Workspace.open(sample_path) as ws:
        doc = stored_json(ws, SAMPLE_SESSION)
    doc["id"] = "status-bar-check"
    path = tmp_path / "shared.axsession.json"
    sessions.write_session_file(reparse(doc), path)
    seen: dict[str, Any] = {}

    def inspect(app: object, window: Any, screenshot: object) -> int:
        status = window.statusBar()
        qtbot.waitUntil(lambda: window._after_paint is None and bool(status.currentMessage()))
        seen["message"] = status.currentMessage()
        seen["path shown"] = window.path_label.isVisible()
        window.close()
        return 0

    monkeypatch.setattr(app_module, "_self_test", inspect)
    assert app_module.main([str(path), "--self-test"]) == 0
    assert seen == {
        "message": f"Imported session status-bar-check from {path}",
        "path shown": False,
    }
