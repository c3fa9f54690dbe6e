"""Start-up imports only what the first page needs (issue #16): the engine (axllm), the
sessions and evals services, the format readers (YAML), Pygments and package metadata wait
until a page or action that needs them is first used, and no background job runs before
the first paint. Checked in a fresh process, at the window's first paint, by what is in
`sys.modules` and whether the task runner is busy (never by timing)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pytestqt.qtbot import QtBot

from axmem_gui.services.workspace import init_workspace
from axmem_gui.ui.retrieval.feature import RETRIEVAL
from tests.ui.conftest import WindowFactory

#: Run in a fresh interpreter: the app's own `main`, stopped at the main window's first
#: paint; prints which of the watched modules were imported by then.
PROBE = """
import json, sys
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QMainWindow

app = QApplication(["axmem-gui"])
painted = []

class FirstPaint(QObject):
    def eventFilter(self, watched, event):
        if not painted and event.type() == QEvent.Type.Paint and isinstance(watched, QMainWindow):
            painted.append({"modules": sorted(sys.modules),
                            "runner_busy": watched.task_runner.busy,
                            "switch_interval": sys.getswitchinterval()})
        return False

probe = FirstPaint()
app.installEventFilter(probe)

def run_until_painted():
    while not painted:
        app.processEvents()
    return 0

app.exec = run_until_painted  # the app's event loop, ended at the first paint
from axmem_gui.app import main

main([sys.argv[1]])
print(json.dumps(painted[0]))
"""

DEFERRED = (
    "axllm",
    "axmem_gui.engine.clients",
    "axmem_gui.engine.providers",
    "axmem_gui.services.sessions",
    "axmem_gui.services.evals",
    "axmem_gui.ui.evals.page",
    "axmem_gui.ui.sessions.page",
    "axmem_gui.core.formats.reader",
    "yaml",
    "pygments",
    "importlib.metadata",  # sqlite-utils plugin discovery, the README from metadata
    "markdown",  # Python-Markdown: the first markdown render
    "axmem_gui.core.ax.explain",  # the bench's "Why not?"
)


def test_first_paint_imports_no_engine_and_no_later_page(tmp_path: Path) -> None:
    ws = tmp_path / "w.axmem"
    init_workspace(ws, sample=True).close()
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(ws)],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    loaded = set(seen["modules"])
    assert "axmem_gui.ui.main_window" in loaded  # the probe saw the app's window
    early = [name for name in DEFERRED if name in loaded]
    assert early == [], f"imported before the first paint: {early}"
    # Nor does a background job (the first index build) share the GIL with start-up:
    # it starts after the first paint (Shell.after_first_paint).
    assert seen["runner_busy"] is False
    # The GUI thread waits at most about 1 ms for the GIL while workers compute (CPython's
    # default, 5 ms, made frames of 50-100 ms with two busy workers).
    assert seen["switch_interval"] <= 0.001


def test_work_waiting_for_the_first_paint_runs_once(
    make_window: WindowFactory, qtbot: QtBot
) -> None:
    """Shell.after_first_paint: after the first paint of a shown window; when the event
    loop runs for a window never shown; at once once painted. Each callback runs once."""
    hidden = make_window(show=False)
    calls: list[str] = []
    hidden.shell.after_first_paint(lambda: calls.append("hidden"))
    assert calls == []  # not during the call: the event loop's first turn runs it
    qtbot.waitUntil(lambda: calls == ["hidden"])
    hidden.shell.after_first_paint(lambda: calls.append("hidden, later"))
    assert calls == ["hidden", "hidden, later"]

    shown = make_window()
    shown.shell.after_first_paint(lambda: calls.append("shown"))
    qtbot.waitUntil(lambda: "shown" in calls)
    shown.repaint()
    qtbot.waitUntil(lambda: not shown.task_runner.busy)
    assert calls.count("shown") == 1
    # The retrieval feature's first index build waited for the paint, and ran.
    qtbot.waitUntil(lambda: shown.feature(RETRIEVAL).state.ready)
