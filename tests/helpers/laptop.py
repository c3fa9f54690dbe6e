"""The app on a 1366×768 laptop screen, in a process of its own (the test process's
offscreen screen is 800×800 and cannot change): `python -m tests.helpers.laptop
SETTINGS_DIR WORKSPACE` prints what it measured as JSON.

`laptop_env(tmp)` gives the environment: the offscreen platform with one 1366×768 screen.
The window is the size the issue measured on a real X server (1350×693: the screen less
the panel and the title bar) unless the screen leaves less."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

SCREEN = {"name": "laptop", "x": 0, "y": 0, "width": 1366, "height": 768, "logicalDpi": 96}
WINDOW = (1350, 693)
#: The editor shows at least this many lines of a skill's body (by default or with F11).
WANTED_LINES = 20
#: The suite and eval tables, measured for a horizontal scroll bar.
TABLES = ("casesTable", "evalRuns", "evalCases")


def laptop_env(tmp: Path) -> dict[str, str]:
    config = tmp / "laptop-screen.json"
    config.write_text(json.dumps({"screens": [SCREEN]}), "utf-8")
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = f"offscreen:configfile={config}"
    env["AXMEM_DATA_DIR"] = str(tmp / "data")
    env["AXMEM_SETTINGS_DIR"] = str(tmp / "settings")
    env.setdefault("QT_LOGGING_RULES", "qt.qpa.*=false")
    return env


def _lines(edit: Any) -> float:
    return float(edit.viewport().height() / edit.fontMetrics().lineSpacing())


def _checked(window: Any) -> bool:
    action = getattr(window, "focus_action", None)  # (absent before focus mode existed)
    return bool(action is not None and action.isChecked())


def main(settings_dir: str, workspace: str) -> int:
    from PySide6.QtCore import QRect, Qt
    from PySide6.QtGui import QUndoStack
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QTableView

    from axmem_gui.services.workspace import init_workspace, open_workspace
    from axmem_gui.ui.catalog.feature import CATALOG
    from axmem_gui.ui.controller import WorkspaceController
    from axmem_gui.ui.main_window import MainWindow
    from axmem_gui.ui.settings import AppSettings
    from axmem_gui.ui.theme import apply_theme
    from axmem_gui.ui.wiring import install_features

    app = QApplication(["axmem-gui"])
    apply_theme(app, "light")
    out: dict[str, Any] = {}

    def settle() -> None:
        for _ in range(5):
            QTest.qWait(0)
            app.processEvents()

    def open_window() -> MainWindow:
        controller = WorkspaceController(open_workspace(Path(workspace)))
        settings = AppSettings(Path(settings_dir) / "axmem-gui.ini")
        window = MainWindow(controller, settings, QUndoStack(), open_workspace, init_workspace)
        install_features(window)
        window.restore_layout()
        window.show()
        QTest.qWaitForWindowExposed(window)
        window.resize(*WINDOW)
        window.activateWindow()
        settle()
        return window

    def wait_for_lint_box(window: MainWindow) -> bool:
        """Until the new skill's lint box shows its finding (a background job)."""
        from axmem_gui.ui.lint.panel import LintPanel

        panel = window.feature(CATALOG).pages["skills"].form.lint_area.findChild(LintPanel)
        for _ in range(2000):
            if panel is not None and panel.findings() and panel.view.isVisible():
                settle()
                return True
            QTest.qWait(5)
        return False

    def fits(window: MainWindow) -> bool:
        available = window.screen().availableGeometry()
        return bool(available.contains(window.frameGeometry()))

    def rect(r: QRect) -> list[int]:
        return [r.x(), r.y(), r.width(), r.height()]

    window = open_window()
    out["screen"] = rect(window.screen().availableGeometry())
    page = window.feature(CATALOG).pages["skills"]
    page.select_id("release-checklist")
    settle()
    edit = page.form.content.edit
    out["lines_default"] = _lines(edit)
    # F11: focus mode on this page.
    QTest.keyClick(window, Qt.Key.Key_F11)
    settle()
    out["lines_focus"] = _lines(edit)
    out["docks_in_focus"] = sorted(n for n, d in window.docks.items() if not d.isHidden())
    # Ctrl+N: a skill with an empty description, and its lint box.
    QTest.keyClick(page.table, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    settle()
    out["new_skill"] = page.form.entry.id if page.form.entry else None
    out["lint_box"] = wait_for_lint_box(window)
    out["fits_after_new"] = fits(window)
    out["frame_after_new"] = rect(window.frameGeometry())
    out["lines_focus_with_lint"] = _lines(edit)
    # Every page, focus mode off on skills again.
    QTest.keyClick(window, Qt.Key.Key_F11)
    settle()
    out["docks_after_focus"] = sorted(n for n, d in window.docks.items() if not d.isHidden())
    QTest.keyClick(page.table, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    out["lint_box_docked"] = wait_for_lint_box(window)
    out["fits_with_lint_box"] = fits(window)
    out["frame_with_lint_box"] = rect(window.frameGeometry())
    out["fits_pages"] = {}
    out["table_overflow"] = {}
    for key in list(window.pages):
        window.show_section(key)
        settle()
        out["fits_pages"][key] = [fits(window), rect(window.frameGeometry())]
        for table in window.pages[key].findChildren(QTableView):
            if table.isVisible() and table.objectName() in TABLES:
                header = table.horizontalHeader()
                overflow = header.length() - table.viewport().width()
                out["table_overflow"][table.objectName()] = [
                    overflow,
                    table.horizontalScrollBar().isVisible(),
                ]
    # Focus mode is remembered per page, across a restart.
    window.show_section("skills")
    QTest.keyClick(window, Qt.Key.Key_F11)
    settle()
    window.close()
    window.controller.close()
    again = open_window()
    again.show_section("skills")
    settle()
    page = again.feature(CATALOG).pages["skills"]
    page.select_id("release-checklist")
    settle()
    out["lines_after_restart"] = _lines(page.form.content.edit)
    out["focus_after_restart"] = _checked(again)
    again.show_section("memories")
    settle()
    out["focus_on_memories"] = _checked(again)
    out["docks_on_memories"] = sorted(n for n, d in again.docks.items() if not d.isHidden())
    again.close()
    again.controller.close()
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:3]))
