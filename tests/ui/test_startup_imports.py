"""Start-up imports only what the first page needs (issue #16): the engine (axllm), the
sessions and evals services, the format readers (YAML) and Pygments wait until a page or
action that needs them is first used. Checked in a fresh process, after the window's
first paint, by what is in `sys.modules` (never by timing)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from axmem_gui.services.workspace import init_workspace

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
            painted.append(sorted(sys.modules))
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
    loaded = set(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert "axmem_gui.ui.main_window" in loaded  # the probe saw the app's window
    early = [name for name in DEFERRED if name in loaded]
    assert early == [], f"imported before the first paint: {early}"
