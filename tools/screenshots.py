"""Regenerate the screenshots in docs/screenshots/ (offscreen, on a fresh sample workspace).

    QT_QPA_PLATFORM=offscreen .venv/bin/python -m tools.screenshots [OUT_DIR]
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from axmem_gui.ui.bench.panel import BenchPanel
from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.sessions.controller import SESSIONS

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else Path("docs/screenshots")
    out.mkdir(parents=True, exist_ok=True)
    data = Path(tempfile.mkdtemp(prefix="axmem-shots-"))
    os.environ["AXMEM_DATA_DIR"] = str(data)
    os.environ["AXMEM_SETTINGS_DIR"] = str(data / "settings")

    from PySide6.QtGui import QUndoStack
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from axmem_gui.services.workspace import open_workspace
    from axmem_gui.ui.controller import WorkspaceController
    from axmem_gui.ui.main_window import MainWindow
    from axmem_gui.ui.settings import AppSettings
    from axmem_gui.ui.theme import apply_theme
    from axmem_gui.ui.wiring import install_features

    app = QApplication.instance() or QApplication(["axmem-gui"])
    assert isinstance(app, QApplication)
    apply_theme(app, "light")
    controller = WorkspaceController(open_workspace(None))
    settings = AppSettings()
    settings.set_welcome_dismissed(True)
    window = MainWindow(controller, settings, QUndoStack(), open_workspace, open_workspace)
    install_features(window)
    window.resize(1500, 900)
    window.show()
    QTest.qWait(300)

    window.show_section("skills")
    window.feature(CATALOG).pages["skills"].select_id("release-checklist")
    bench = window.docks["benchDock"].widget()
    assert isinstance(bench, BenchPanel)
    bench.set_searches(["how do I ship a release", "rollback a bad deploy"])
    bench.run()
    QTest.qWait(600)
    window.grab().save(str(out / "main-window.png"))

    # The sessions and context map pages show no docks (they belong to the catalog pages).
    window.show_section("sessions")
    feature = window.feature(SESSIONS)
    feature.open_session("sample-ops-assistant")
    QTest.qWait(500)
    window.grab().save(str(out / "session-viewer.png"))
    window.show_section("contextmaps")
    QTest.qWait(300)
    window.grab().save(str(out / "context-map.png"))
    window.close()
    controller.close()
    print(f"screenshots written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
