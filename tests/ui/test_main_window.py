from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from axmem_gui.core.catalog import Skill
from axmem_gui.store import Workspace
from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.dialogs import ErrorDialog, NewWorkspaceDialog, OpenWorkspaceDialog
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.navigator import NavRole
from axmem_gui.ui.settings import AppSettings
from tests.helpers.store import raw
from tests.ui.conftest import WindowFactory


def test_navigator_shows_sections_with_counts(window: MainWindow) -> None:
    model = window.nav_model
    keys = [model.index(r).data(NavRole.Key) for r in range(model.rowCount())]
    assert keys == ["skills", "memories", "scenarios", "suites", "sessions", "contextmaps", "evals"]
    counts = window.controller.counts()
    assert model.index(0).data(NavRole.Count) == counts.skills >= 12
    assert model.index(1).data(NavRole.Count) == counts.memories >= 12
    assert f"{counts.skills} skills" in window.counts_label.text()
    assert str(window.controller.path) in window.path_label.text()


def test_navigating_switches_pages(window: MainWindow, qtbot: QtBot) -> None:
    window.show_section("memories")
    assert window.stack.currentWidget() is window.feature(CATALOG).pages["memories"]
    window.show_section("sessions")
    assert window.stack.currentWidget() is window.pages["sessions"]
    assert window.current_section() == "sessions"


def test_skills_table_lists_and_filters(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    page = window.feature(CATALOG).pages["skills"]
    assert page.model.rowCount() == window.controller.counts().skills
    # A filter's rows are read on a job: the list shows them when they come.
    with qtbot.waitSignal(page.model.filter_applied, timeout=5000):
        page.filter_edit.setText("release-checklist")
    assert page.model.rowCount() >= 1
    assert page.select_id("release-checklist")
    assert "Release checklist" in page.form.content.edit.toPlainText()
    with qtbot.waitSignal(page.model.filter_applied, timeout=5000):
        page.filter_edit.setText("no-such-thing-anywhere")
    assert page.model.rowCount() == 0


def test_external_change_is_detected(window: MainWindow, qtbot: QtBot) -> None:
    before = window.controller.counts().skills
    with Workspace.open(window.controller.path) as other:
        other.skills.upsert(Skill("added-elsewhere", "Added elsewhere", "", "x"))
    with qtbot.waitSignal(window.controller.externally_changed, timeout=5000):
        pass
    assert window.feature(CATALOG).pages["skills"].model.total() == before + 1
    assert f"{before + 1} skills" in window.counts_label.text()


def test_an_entry_deleted_elsewhere_while_open_says_so(window: MainWindow, qtbot: QtBot) -> None:
    """The CLI deleted the skill open in the form: the form closed without a word."""
    page = window.feature(CATALOG).pages["skills"]
    assert page.select_id("release-checklist")
    assert page.form.entry is not None and page.form.entry.id == "release-checklist"
    with Workspace.open(window.controller.path) as other:
        other.skills.delete("release-checklist")
    with qtbot.waitSignal(window.controller.externally_changed, timeout=5000):
        pass
    qtbot.waitUntil(lambda: page.form.entry is None, timeout=5000)
    message = window.statusBar().currentMessage()
    assert "'release-checklist'" in message and "deleted elsewhere" in message
    # gone after a change made here (Delete, an undo): no such message
    window.statusBar().clearMessage()
    page.entry_gone.emit("incident-response")
    assert "elsewhere" not in window.statusBar().currentMessage()


def test_open_recent_and_new(
    window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "fresh.axmem"
    monkeypatch.setattr(NewWorkspaceDialog, "ask", classmethod(lambda cls, *a: target))
    window.new_workspace()
    assert window.controller.path == target
    assert window.controller.counts().skills == 0
    skills = window.feature(CATALOG).pages["skills"]
    assert skills.stack.currentWidget() is skills.empty
    recent = window.settings.recent_files()
    assert recent[0] == str(target.resolve())
    assert len(recent) >= 2


def test_bad_file_shows_clear_error_and_keeps_workspace(
    window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = tmp_path / "bad.axmem"
    bad.write_text("not sqlite")
    shown: list[str] = []
    monkeypatch.setattr(OpenWorkspaceDialog, "ask", classmethod(lambda cls, *a: bad))
    monkeypatch.setattr(
        ErrorDialog, "show", classmethod(lambda cls, parent, title, msg: shown.append(msg))
    )
    current = window.controller.path
    window.open_workspace_dialog()
    assert shown and "not an SQLite database" in shown[0] and str(bad) in shown[0]
    assert window.controller.path == current
    assert bad.read_text() == "not sqlite"


def test_read_only_banner(make_window: WindowFactory) -> None:
    win = make_window(read_only=True, features=())
    assert win.readonly_banner.isVisible()
    assert "read-only" in win.counts_label.text()


def test_layout_persists(window: MainWindow, settings: AppSettings) -> None:
    window.docks["benchDock"].hide()
    window.save_layout()
    assert settings.window_state() is not None
    assert settings.window_geometry() is not None
    window.restore_layout()
    assert window.docks["benchDock"].isHidden()
    # Hidden on this page by the user: the saved layout and the page agree.
    assert settings.page_dock_choice(window.current_section(), "benchDock") is False


def test_self_test_screenshot(tmp_path: Path, sample_path: Path) -> None:
    out = tmp_path / "shot.png"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "axmem_gui",
            "--self-test",
            "--screenshot",
            str(out),
            "--workspace",
            str(sample_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    image = QImage(str(out))
    # (the window fits the offscreen platform's 800×800 screen)
    assert not image.isNull() and image.width() >= 700 and image.height() >= 500


def test_self_test_refuses_foreign_file(tmp_path: Path) -> None:
    bad = tmp_path / "x.axmem"
    bad.write_bytes(b"\x00" * 10)
    proc = subprocess.run(
        [sys.executable, "-m", "axmem_gui", "--self-test", str(bad)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "not an SQLite database" in proc.stderr and "Traceback" not in proc.stderr


def test_opening_a_session_file_imports_it_into_the_default_workspace(
    tmp_path: Path, private_data_dir: Path
) -> None:
    from axmem_gui.services.workspace import default_workspace_path

    sample = Path(__file__).resolve().parents[2] / "axmem_gui" / "sample"
    session_file = next(sample.glob("*.axsession.json"))
    copy = tmp_path / "mine.axsession.json"
    copy.write_bytes(session_file.read_bytes())
    proc = subprocess.run(
        [sys.executable, "-m", "axmem_gui", "--self-test", str(copy)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    with Workspace.open(default_workspace_path()) as ws:
        assert raw(ws).sessions.count() >= 1

    broken = tmp_path / "broken.axsession.json"
    broken.write_text("{not json")
    proc = subprocess.run(
        [sys.executable, "-m", "axmem_gui", "--self-test", str(broken)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert str(broken) in proc.stderr and "Traceback" not in proc.stderr
