"""Writes wait for another program, briefly and visibly, off the GUI thread (issue 25).

The app editing beside a writer: 262 edits saved, 2,428 refused, one GUI-thread gap of
2.6 s. Now an edit that meets a busy workspace waits on a worker (the window says so,
the GUI thread runs on), is pushed on the undo stack only once saved, and one refused
after the wait is kept in the form, never dropped."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from pytestqt.qtbot import QtBot

from axmem_gui.store import Workspace
from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.dialogs import ErrorDialog
from axmem_gui.ui.main_window import MainWindow
from tests.helpers.shared_workspace import WriteLockHeld


def _stored_name(path: Path, entry_id: str) -> str | None:  # (a file whose schema is ours)
    with Workspace.open(path, read_only=True) as other:
        skill = other.skills.get(entry_id)
        return None if skill is None else skill.name


@pytest.fixture
def errors(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    shown: list[str] = []
    monkeypatch.setattr(ErrorDialog, "show", lambda _parent, _title, text: shown.append(text))
    return shown


def _type_name(window: MainWindow, qtbot: QtBot, text: str) -> None:
    page = window.feature(CATALOG).pages["skills"]
    assert page.select_id("release-checklist")
    form = page.form
    form.name_edit.setFocus()
    form.name_edit.end(False)
    qtbot.keyClicks(form.name_edit, text)
    form.commit_pending()


def test_an_edit_waits_for_another_programs_write_and_then_is_saved(
    window: MainWindow, qtbot: QtBot, errors: list[str]
) -> None:
    path = window.controller.path
    form = window.feature(CATALOG).pages["skills"].form
    ticks: list[int] = []
    heartbeat = QTimer()
    heartbeat.timeout.connect(lambda: ticks.append(1))
    heartbeat.start(10)
    with WriteLockHeld(path) as other:
        _type_name(window, qtbot, " v2")
        # Moved off the GUI thread: the window says it waits, nothing is pushed yet.
        # (The old app refused the edit at once: "another program is writing".)
        qtbot.waitUntil(lambda: bool(errors) or form.state_label.text().startswith("waiting"))
        assert errors == []
        assert window.writes.busy
        assert "waiting for another program" in window.counts_label.text()
        assert window.undo_stack.count() == 0
        # More typing meanwhile waits behind it (and is not a conflict with it).
        qtbot.keyClicks(form.name_edit, " final")
        form.commit_pending()
        seen = len(ticks)
        qtbot.waitUntil(lambda: len(ticks) > seen + 3)  # the GUI thread runs on
        other.release()
    qtbot.waitUntil(lambda: _stored_name(path, "release-checklist") == "Release checklist v2 final")
    heartbeat.stop()
    assert errors == []
    assert not window.writes.busy and window.writes.waited >= 1
    assert window.counts_label.text().endswith("saved")
    assert window.undo_stack.count() == 1  # one field, typed in two bursts: one step
    window.writes.undo(window.undo_stack)
    assert _stored_name(path, "release-checklist") == "Release checklist"


def test_an_edit_refused_after_the_wait_is_kept_in_the_form(
    window: MainWindow, qtbot: QtBot, errors: list[str]
) -> None:
    path = window.controller.path
    window.writes.wait_s = 0.3  # the bound, shortened for the test
    form = window.feature(CATALOG).pages["skills"].form
    with WriteLockHeld(path):
        _type_name(window, qtbot, " v2")
        qtbot.waitUntil(lambda: bool(errors))
        assert "another program is writing" in errors[0] and "kept" in errors[0]
        assert form.name_edit.text() == "Release checklist v2"  # still there
        assert form.state_label.text().startswith("not saved")
        assert form.has_pending()
        assert window.undo_stack.count() == 0
        assert _stored_name(path, "release-checklist") == "Release checklist"
    # The other program is done: the kept edit is saved with the next commit.
    form.commit_pending()
    qtbot.waitUntil(lambda: _stored_name(path, "release-checklist") == "Release checklist v2")
    assert window.undo_stack.count() == 1


def test_undo_waits_too(window: MainWindow, qtbot: QtBot, errors: list[str]) -> None:
    path = window.controller.path
    _type_name(window, qtbot, " v2")
    qtbot.waitUntil(lambda: _stored_name(path, "release-checklist") == "Release checklist v2")
    with WriteLockHeld(path) as other:
        window.writes.undo(window.undo_stack)
        qtbot.waitUntil(lambda: window.writes.busy)
        assert window.undo_stack.index() == 1  # the stack moves once the undo is written
        other.release()
    qtbot.waitUntil(lambda: window.undo_stack.index() == 0)
    assert _stored_name(path, "release-checklist") == "Release checklist"
    assert errors == []


def test_sql_planted_while_the_app_is_open_is_reported_and_never_runs(
    window: MainWindow, qtbot: QtBot, errors: list[str]
) -> None:
    """Another program adds a trigger to the open workspace (issue 25): the app says so
    when it notices the change, and refuses to write rather than run it."""
    import sqlite3

    path = window.controller.path
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TRIGGER sneaky AFTER UPDATE ON skills BEGIN DELETE FROM revisions; END"
    )
    conn.close()
    assert window.controller.check_external_changes()
    assert len(errors) == 1 and "'sneaky'" in errors[0] and "did not create" in errors[0]
    _type_name(window, qtbot, " v2")
    qtbot.waitUntil(lambda: len(errors) == 2)
    assert "'sneaky'" in errors[1]
    # (read as another program would: the app itself no longer opens the file)
    raw = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    assert raw.execute("SELECT name FROM skills WHERE id = 'release-checklist'").fetchone() == (
        "Release checklist",
    )
    assert raw.execute("SELECT count(*) FROM revisions").fetchone()[0] > 0
    raw.close()


def test_undo_asked_while_an_edit_waits_undoes_that_edit_once_saved(
    window: MainWindow, qtbot: QtBot, errors: list[str]
) -> None:
    path = window.controller.path
    with WriteLockHeld(path) as other:
        _type_name(window, qtbot, " v2")
        qtbot.waitUntil(lambda: window.writes.busy)
        window.writes.undo(window.undo_stack)  # Ctrl+Z at once: nothing is on the stack yet
        assert window.undo_stack.count() == 0
        other.release()
    qtbot.waitUntil(lambda: window.undo_stack.count() == 1 and window.undo_stack.index() == 0)
    assert _stored_name(path, "release-checklist") == "Release checklist"
    assert errors == []


def test_a_refused_commit_of_several_word_steps_leaves_no_step_on_the_stack(
    window: MainWindow, qtbot: QtBot, errors: list[str]
) -> None:
    """Typing is undone word by word (one command per word, only the last writes): when
    that write is refused after the wait, none of its steps is on the stack (they would
    undo to values the store never had). Kept in the form, it is saved as one step."""
    path = window.controller.path
    window.writes.wait_s = 0.3  # the bound, shortened for the test
    form = window.feature(CATALOG).pages["skills"].form
    with WriteLockHeld(path):
        _type_name(window, qtbot, " v2 final")
        qtbot.waitUntil(lambda: bool(errors))
        assert window.undo_stack.count() == 0
        assert form.name_edit.text() == "Release checklist v2 final"
    form.commit_pending()
    qtbot.waitUntil(
        lambda: _stored_name(path, "release-checklist") == "Release checklist v2 final"
    )
    assert window.undo_stack.count() == 1
    window.writes.undo(window.undo_stack)
    qtbot.waitUntil(lambda: _stored_name(path, "release-checklist") == "Release checklist")
