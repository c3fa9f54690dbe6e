"""The context map viewer and editor: timeline, sections with scored items, diff, budget."""

from __future__ import annotations

from PySide6.QtGui import QAction

from axmem_gui.ui.contextmap.page import ContextMapPage
from axmem_gui.ui.main_window import MainWindow

__all__ = ["ContextMapPage", "install_contextmap_view"]


def install_contextmap_view(window: MainWindow) -> ContextMapPage:
    """Replace the placeholder context-map page and add File > Import/Export snapshot."""
    page = ContextMapPage(window.controller, window.undo_stack)
    old = window.pages["contextmaps"]
    index = window.stack.indexOf(old)
    was_current = window.stack.currentWidget() is old
    window.stack.insertWidget(index, page)
    window.stack.removeWidget(old)
    old.deleteLater()
    window.pages["contextmaps"] = page
    # The window reloads this page on workspace changes through this attribute.
    window.contextmaps_page = page  # type: ignore[assignment]
    if was_current:
        window.stack.setCurrentWidget(page)
    page.message.connect(lambda text: window.statusBar().showMessage(text, 6000))

    import_action = QAction("Import snapshot…", window)
    import_action.setToolTip("Import a context map snapshot (TS snapshot, axllm dict or text)")
    import_action.triggered.connect(lambda _c=False: _import(window, page))
    export_action = QAction("Export snapshot…", window)
    export_action.setToolTip("Export the selected context map snapshot")
    export_action.triggered.connect(lambda _c=False: _export(window, page))
    separators = [a for a in window.file_menu.actions() if a.isSeparator()]
    before = separators[-1] if separators else None
    for action in (import_action, export_action):
        if before is None:
            window.file_menu.addAction(action)
        else:
            window.file_menu.insertAction(before, action)
    page.import_menu_action = import_action
    page.export_menu_action = export_action
    return page


def _import(window: MainWindow, page: ContextMapPage) -> None:
    window.show_section("contextmaps")
    page.import_snapshot()


def _export(window: MainWindow, page: ContextMapPage) -> None:
    window.show_section("contextmaps")
    page.export_snapshot()
