"""A page's first visit does its heavy work off the GUI thread (issue #30: Sessions froze
850 ms and Evals 1,367 ms on their first visit, importing the engine and axllm, asking
the OS for its keyring backend and copying axllm's model table on the GUI thread). The
page shows "Loading…" while that runs on a job, then is built from widgets alone.
Which thread did the work is asserted, never how long it took."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from axmem_gui.services import secrets
from axmem_gui.services.workspace import init_workspace
from axmem_gui.ui.evals import EVALS
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.sessions import provider_form
from tests.ui.conftest import calls_on_gui_thread


def _click_section(qtbot, window: MainWindow, key: str) -> None:  # type: ignore[no-untyped-def]
    """Open a section as a user does: a click on its line in the navigator."""
    nav = window.navigator
    rect = nav.visualRect(window.nav_model.index(window.nav_model.row_of(key)))
    qtbot.mouseClick(nav.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_the_evals_page_reads_the_keyring_and_model_lists_off_the_gui_thread(  # type: ignore[no-untyped-def]
    qtbot, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    keyring = calls_on_gui_thread(monkeypatch, secrets, "keyring_available")
    models = calls_on_gui_thread(monkeypatch, provider_form, "model_choices")
    assert not window.pages.built("evals")
    _click_section(qtbot, window, "evals")
    assert window.current_section() == "evals"
    qtbot.waitUntil(lambda: window.pages.built("evals"), timeout=30000)
    qtbot.waitUntil(lambda: window.stack.currentWidget() is window.pages["evals"])
    # Each was first asked on a job (keyring detects its backend then, once; the model
    # lists are kept), before the page's form asked again on the GUI thread.
    assert keyring and keyring[0] is False, keyring
    assert models and models[0] is False, models
    assert window.feature(EVALS).page.sets_model.rowCount() > 0


def test_a_page_shows_loading_until_it_is_prepared(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    _click_section(qtbot, window, "scenarios")
    current = window.stack.currentWidget()
    if not window.pages.built("scenarios"):  # (the idle warm-up may have prepared it)
        assert isinstance(current, QLabel)
        assert current.objectName() == "scenariosPagePending"
        assert "Loading Scenarios" in current.text()
    qtbot.waitUntil(lambda: window.pages.built("scenarios"), timeout=30000)
    qtbot.waitUntil(lambda: window.stack.currentWidget() is window.pages["scenarios"])
    # Opened elsewhere meanwhile: the page is built but the user stays where they went.
    _click_section(qtbot, window, "contextmaps")
    _click_section(qtbot, window, "skills")
    qtbot.waitUntil(lambda: window.pages.prepared("contextmaps"), timeout=30000)
    assert window.current_section() == "skills"
    qtbot.waitUntil(lambda: window.stack.currentWidget() is window.pages["skills"])


#: A fresh interpreter: the app's own `main`; once the window has painted, the Sessions
#: section is opened as a user does and the loop runs until its page is built; prints
#: the thread that imported each watched module.
PROBE = """
import importlib.abc, json, sys, threading
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow

WATCHED = {"axllm", "axmem_gui.ui.sessions.page", "axmem_gui.services.sessions"}
imported = {}

class Watch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name in WATCHED and name not in imported:
            imported[name] = threading.current_thread() is threading.main_thread()
        return None

sys.meta_path.insert(0, Watch())
app = QApplication(["axmem-gui"])
state = {}

class FirstPaint(QObject):
    def eventFilter(self, watched, event):
        if "window" not in state and event.type() == QEvent.Type.Paint \\
                and isinstance(watched, QMainWindow):
            state["window"] = watched
            QTimer.singleShot(0, lambda: watched.show_section_row(
                watched.nav_model.row_of("sessions")))
        return False

probe = FirstPaint()
app.installEventFilter(probe)

def run_until_built():
    while "window" not in state or not state["window"].pages.built("sessions"):
        app.processEvents()
    return 0

app.exec = run_until_built
from axmem_gui.app import main

main([sys.argv[1]])
print(json.dumps(imported))
"""


def test_opening_sessions_imports_the_engine_off_the_gui_thread(tmp_path: Path) -> None:
    ws = tmp_path / "w.axmem"
    init_workspace(ws, sample=True).close()
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(ws)],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    on_gui = json.loads(proc.stdout.strip().splitlines()[-1])
    assert set(on_gui) == {"axllm", "axmem_gui.ui.sessions.page", "axmem_gui.services.sessions"}
    assert [name for name, gui in on_gui.items() if gui] == []
