"""Docks belong to the pages that use them: the prompt preview and the bench stand beside
the catalog and scenario pages and step aside on Sessions and Context maps, where they do
not help. What the user shows or hides on a page is remembered for that page.

Focus mode (View > Focus on the Editor, F11) hides every dock while a page is shown, the
welcome banner included, so the page has the whole window: on a 1366×768 laptop the skill
editor goes from about 8 lines to more than 20. It is remembered per page; showing a dock
by hand leaves it.

A dock whose spec names no pages is left alone (the welcome: shown until dismissed),
except that focus mode hides it while it lasts."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QDockWidget

from axmem_gui.ui.settings import AppSettings


class PageDocks(QObject):
    #: The shown page's focus mode, after every page switch and every change: key, on.
    focus_changed = Signal(str, bool)

    def __init__(self, settings: AppSettings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self._docks: dict[str, QDockWidget] = {}
        self._homes: dict[str, tuple[str, ...]] = {}
        #: Docks of no page (the welcome), and those focus mode hid.
        self._others: dict[str, QDockWidget] = {}
        self._hidden_for_focus: set[str] = set()
        self._page = ""
        self._applying = 0

    def add(self, name: str, dock: QDockWidget, pages: tuple[str, ...]) -> None:
        dock.toggleViewAction().toggled.connect(
            lambda checked, n=name: self._on_toggled(n, checked)
        )
        if not pages:
            self._others[name] = dock
            return
        self._docks[name] = dock
        self._homes[name] = pages

    @property
    def page(self) -> str:
        return self._page

    def wanted(self, page: str, name: str) -> bool:
        """Shown on `page`: never in focus mode; else the user's choice there, else
        whether the page is its home."""
        if self.settings.page_focused(page):
            return False
        chosen = self.settings.page_dock_choice(page, name)
        return chosen if chosen is not None else page in self._homes[name]

    def focused(self) -> bool:
        return bool(self._page) and self.settings.page_focused(self._page)

    def set_focused(self, focused: bool) -> None:
        """Focus mode on or off for the shown page (remembered for it)."""
        if not self._page or focused == self.focused():
            return
        self.settings.set_page_focused(self._page, focused)
        self.apply()

    @contextmanager
    def applying(self) -> Iterator[None]:
        """Changes made inside (switching pages, restoring a saved layout) are not the
        user's choice and are not remembered."""
        self._applying += 1
        try:
            yield
        finally:
            self._applying -= 1

    def show_page(self, page: str) -> None:
        self._page = page
        self.apply()

    def apply(self) -> None:
        if not self._page:
            return
        focused = self.focused()
        with self.applying():
            for name, dock in self._docks.items():
                visible = self.wanted(self._page, name)
                if dock.isHidden() == visible:
                    dock.setVisible(visible)
            for name, dock in self._others.items():
                if focused and not dock.isHidden():
                    self._hidden_for_focus.add(name)
                    dock.hide()
                elif not focused and name in self._hidden_for_focus:
                    self._hidden_for_focus.discard(name)
                    dock.show()
        self.focus_changed.emit(self._page, focused)

    def _on_toggled(self, name: str, checked: bool) -> None:
        # A closing (or not yet shown) window hides its docks: not the user's choice.
        dock = self._docks.get(name) or self._others[name]
        if self._applying or not self._page or not dock.window().isVisible():
            return
        if checked and self.focused():
            # A dock shown by hand ends focus mode on this page (the others come back).
            self._hidden_for_focus.discard(name)
            self.set_focused(False)
        if name in self._docks:
            self.settings.set_page_dock_choice(self._page, name, checked)
