"""Layout that serves each task: docks belong to the pages that use them (remembered per
page), the editor gets the room (preview beside or below, splitters remembered), and the
window fits a 1366×768 laptop on every page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.settings import AppSettings
from tests.ui.conftest import WindowFactory

CATALOG_DOCKS = ("previewDock", "benchDock")


def shown(window: MainWindow) -> set[str]:
    return {name for name, dock in window.docks.items() if not dock.isHidden()}


def test_docks_belong_to_the_pages_that_use_them(window: MainWindow, qtbot: Any) -> None:
    for key in ("skills", "memories", "scenarios"):
        window.show_section(key)
        assert set(CATALOG_DOCKS) <= shown(window), key
    window.show_section("suites")
    assert "benchDock" in shown(window) and "previewDock" not in shown(window)
    for key in ("sessions", "contextmaps"):
        window.show_section(key)
        assert not shown(window) & {"previewDock", "benchDock", "lintDock"}, key
    # The session's prompt pane gets the width the docks used to take.
    window.show_section("sessions")
    central = window.centralWidget()
    assert central is not None
    qtbot.waitUntil(lambda: central.width() > window.width() * 0.9)


def test_a_dock_asked_for_on_a_page_is_remembered_there(
    make_window: WindowFactory, tmp_path: Path
) -> None:
    settings = AppSettings(tmp_path / "layout" / "settings.ini")
    win = make_window(settings=settings, restore_layout=True)
    try:
        win.show_section("sessions")
        win.docks["benchDock"].toggleViewAction().trigger()  # View > Retrieval bench
        assert "benchDock" in shown(win)
        win.show_section("skills")
        win.docks["previewDock"].toggleViewAction().trigger()  # hidden on skills
        assert "previewDock" not in shown(win)
        win.show_section("contextmaps")
        assert "benchDock" not in shown(win)
        win.show_section("sessions")
        assert "benchDock" in shown(win)
        win.show_section("memories")
        assert "previewDock" in shown(win)  # the choice was made for skills only
    finally:
        win.close()
        win.controller.close()
    again = make_window(settings=AppSettings(settings.path), restore_layout=True)
    try:
        again.show_section("sessions")
        assert "benchDock" in shown(again)
        again.show_section("skills")
        assert "previewDock" not in shown(again)
    finally:
        again.close()
        again.controller.close()


def test_the_editor_layout_is_remembered(make_window: WindowFactory, tmp_path: Path) -> None:
    settings = AppSettings(tmp_path / "editor" / "settings.ini")
    win = make_window(settings=settings, restore_layout=True)
    try:
        page = win.feature(CATALOG).pages["skills"]
        assert page.select_id("release-checklist")
        content = page.form.content
        assert not content.is_beside()
        content.beside_toggle.click()
        assert content.is_beside()
        assert content.split.orientation() == Qt.Orientation.Horizontal
        # Drag the list/editor splitter: the list narrow, the editor wide.
        total = sum(page.split.sizes())
        page.split.moveSplitter(total // 4, 1)
        list_width = page.split.sizes()[0]
        # A long entry does not squeeze the list (its counts line is elided).
        assert page.select_id("incident-response")
        assert page.split.sizes()[0] == list_width
    finally:
        win.close()
        win.controller.close()
    again = make_window(settings=AppSettings(settings.path), restore_layout=True)
    try:
        page = again.feature(CATALOG).pages["skills"]
        assert page.form.content.is_beside()
        assert page.form.content.beside_toggle.isChecked()
        assert abs(page.split.sizes()[0] - list_width) <= 2
        assert again.feature(CATALOG).pages["memories"].form.content.is_beside() is False
    finally:
        again.close()
        again.controller.close()


def test_every_page_fits_a_laptop_screen(window: MainWindow) -> None:
    for key in window.pages:
        window.show_section(key)
        hint = window.minimumSizeHint()
        assert hint.width() <= 1366 and hint.height() <= 768 - 48, (key, hint)


def test_catalog_columns_fit_their_content_once(window: MainWindow) -> None:
    page = window.feature(CATALOG).pages["skills"]
    metrics = page.table.fontMetrics()
    widest = max(
        metrics.horizontalAdvance(str(page.model.index(r, 0).data()))
        for r in range(page.model.rowCount())
    )
    assert page.table.columnWidth(0) >= widest
    page.table.setColumnWidth(0, 120)  # the user's width stays through reloads
    page.reload()
    assert page.table.columnWidth(0) == 120
