"""Issue #30: a shortcut that toggles a dock brings it to the front when it is tabbed
behind another. Ctrl+Shift+L with Lint behind the bench hid Lint (Qt counts a dock
behind a tab as shown), and the second press put it back behind the bench."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from axmem_gui.ui.dock_toggle import in_front
from axmem_gui.ui.main_window import MainWindow

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support")

CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


def _press_ctrl_shift_l(qtbot: Any, window: MainWindow) -> None:
    qtbot.keyClick(window, Qt.Key.Key_L, CTRL_SHIFT)
    QApplication.processEvents()


def test_ctrl_shift_l_brings_lint_to_the_front_then_hides_it(
    qtbot: Any, window: MainWindow
) -> None:
    window.show_section("skills")
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    lint, bench = window.docks["lintDock"], window.docks["benchDock"]
    assert bench in window.tabifiedDockWidgets(lint)
    assert in_front(bench) and lint.isVisible() and not in_front(lint)

    _press_ctrl_shift_l(qtbot, window)
    qtbot.waitUntil(lambda: in_front(lint))
    assert not in_front(bench) and window.dock_toggles["lintDock"].isChecked()

    _press_ctrl_shift_l(qtbot, window)
    qtbot.waitUntil(lint.isHidden)
    assert in_front(bench) and not window.dock_toggles["lintDock"].isChecked()

    _press_ctrl_shift_l(qtbot, window)
    qtbot.waitUntil(lambda: in_front(lint))
    assert window.dock_toggles["lintDock"].isChecked()


def test_the_view_menu_toggle_brings_the_bench_back_in_front(
    qtbot: Any, window: MainWindow
) -> None:
    window.show_section("skills")
    lint, bench = window.docks["lintDock"], window.docks["benchDock"]
    lint.raise_()
    qtbot.waitUntil(lambda: in_front(lint) and not in_front(bench))
    window.dock_toggles["benchDock"].trigger()
    qtbot.waitUntil(lambda: in_front(bench))
    assert not bench.isHidden() and window.dock_toggles["benchDock"].isChecked()
