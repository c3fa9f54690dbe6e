"""View > Theme, the first-start welcome, Help > Keyboard Shortcuts and Documentation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QDialog, QMenu, QScrollArea

from axmem_gui.ui.help import (
    HELP,
    WELCOME_DOCK,
    DocumentationDialog,
    HelpFeature,
    ShortcutsDialog,
    shortcut_rows,
)
from axmem_gui.ui.main_window import MainWindow, first_start_size
from axmem_gui.ui.settings import AppSettings
from axmem_gui.ui.theme import apply_theme
from tests.ui.conftest import WindowFactory


def help_feature(window: MainWindow) -> HelpFeature:
    return window.feature(HELP)


def menu_texts(window: MainWindow, menu: Any) -> list[str]:
    return [
        a.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
        for a in menu.actions()
        if a.text()
    ]


def test_theme_menu_switches_and_is_remembered(window: MainWindow, qapp: QApplication) -> None:
    feature = help_feature(window)
    texts = menu_texts(window, window.view_menu)
    assert [t for t in texts if "Theme" in t] == ["System Theme", "Light Theme", "Dark Theme"]
    try:
        feature.theme_actions["dark"].trigger()
        assert qapp.palette().color(QPalette.ColorRole.Window).lightness() < 100
        assert AppSettings(window.settings.path).theme() == "dark"
        assert feature.theme_actions["dark"].isChecked()
        feature.theme_actions["light"].trigger()
        assert qapp.palette().color(QPalette.ColorRole.Window).lightness() > 150
        assert AppSettings(window.settings.path).theme() == "light"
        feature.theme_actions["system"].trigger()
        assert AppSettings(window.settings.path).theme() == "system"
    finally:
        apply_theme(qapp, "light")


def test_the_welcome_shows_whole_on_a_1366x768_laptop(
    make_window: WindowFactory, tmp_path: Path, qtbot: Any
) -> None:
    """At 1366×768 the welcome was a strip that scrolled: the three things to try were
    below its fold."""
    window = make_window(settings=AppSettings(tmp_path / "s" / "settings.ini"), show=False)
    window.resize(first_start_size(QSize(1366, 768 - 32)))
    window.show()
    qtbot.waitExposed(window)
    scroll = window.docks[WELCOME_DOCK].findChild(QScrollArea, "welcomeScroll")
    assert scroll is not None
    panel = help_feature(window).welcome
    qtbot.waitUntil(lambda: panel.tips[0].isVisible() and scroll.viewport().height() > 0)
    assert scroll.verticalScrollBar().maximum() == 0


def test_welcome_on_first_start_dismissed_for_good(
    make_window: WindowFactory, tmp_path: Path
) -> None:
    settings = AppSettings(tmp_path / "first" / "settings.ini")
    first = make_window(settings=settings)
    try:
        feature = help_feature(first)
        assert first.docks[WELCOME_DOCK].isVisible()
        text = feature.welcome.label.text()
        assert "sample workspace" in text and "Three things to try" in text
        tips = [tip.text() for tip in feature.welcome.tips]
        assert [tip.split("</b>")[0] for tip in tips] == ["<b>1.", "<b>2.", "<b>3."]
        assert "Prompt preview" in tips[0] and "Retrieval bench" in tips[1]
        feature.welcome.dismiss_button.click()
        assert not first.docks[WELCOME_DOCK].isVisible()
    finally:
        first.close()
        first.controller.close()
    second = make_window(settings=AppSettings(settings.path))
    try:
        feature = help_feature(second)
        second.restore_layout()
        assert not second.docks[WELCOME_DOCK].isVisible()
        [welcome] = [a for a in second.help_menu.actions() if a.text() == "&Welcome"]
        welcome.trigger()
        assert second.docks[WELCOME_DOCK].isVisible()
    finally:
        second.close()
        second.controller.close()


def test_help_menu_has_shortcuts_documentation_and_about(
    window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = menu_texts(window, window.help_menu)
    assert texts[:3] == ["Welcome", "Keyboard Shortcuts", "Documentation"]
    assert "About Ax Memory & Skills Studio" in texts
    menus = [a.menu() for a in window.menuBar().actions()]
    rows = shortcut_rows([m for m in menus if isinstance(m, QMenu)])
    keys = {(k, w) for k, w, _where in rows}
    assert any(k.startswith("Ctrl+Shift+Z, Ctrl+Y") and w == "Redo" for k, w in keys), rows
    assert any(w == "Filter the skills or memories list" for _k, w in keys)
    shown: list[Any] = []

    def exec_shown(dialog: QDialog) -> int:
        shown.append(dialog)
        return 0

    monkeypatch.setattr(ShortcutsDialog, "exec", exec_shown)
    monkeypatch.setattr(DocumentationDialog, "exec", exec_shown)
    for text in ("&Keyboard Shortcuts", "&Documentation"):
        [action] = [a for a in window.help_menu.actions() if a.text() == text]
        action.trigger()
    shortcuts, docs = shown
    assert shortcuts.model.rowCount() == len(rows)
    readme = docs.browser.toPlainText()
    assert "Quick start" in readme and "1 GiB" in readme


def test_opening_another_workspace_updates_the_welcome_and_suite_status(
    window: MainWindow, tmp_path: Path, qtbot: Any
) -> None:
    """The welcome kept saying "The sample workspace: 16 skills…" and the status bar kept
    the sample's "suite 31/31 ✓" in an empty workspace opened afterwards."""
    from axmem_gui.services.workspace import init_workspace
    from axmem_gui.ui.suites.feature import SUITES

    status = window.feature(SUITES).status
    qtbot.waitUntil(lambda: status.text().startswith("suite "), timeout=15000)
    assert "sample workspace" in help_feature(window).welcome.label.text()
    empty = tmp_path / "empty.axmem"
    init_workspace(empty).close()
    assert window.open_path(empty)
    qtbot.waitUntil(lambda: status.text() == "", timeout=15000)
    text = help_feature(window).welcome.label.text()
    assert "This workspace: 0 skills, 0 memories." in text and "sample" not in text
