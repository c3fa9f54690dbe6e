"""Docks belong to the pages that use them: the prompt preview and the bench stand beside
the catalog and scenario pages and step aside on Sessions and Context maps, where they do
not help. What the user shows or hides on a page is remembered for that page.

A dock whose spec names no pages is left alone (the welcome: shown until dismissed)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QDockWidget

from axmem_gui.ui.settings import AppSettings


class PageDocks(QObject):
    def __init__(self, settings: AppSettings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self._docks: dict[str, QDockWidget] = {}
        self._homes: dict[str, tuple[str, ...]] = {}
        self._page = ""
        self._applying = 0

    def add(self, name: str, dock: QDockWidget, pages: tuple[str, ...]) -> None:
        if not pages:
            return
        self._docks[name] = dock
        self._homes[name] = pages
        dock.toggleViewAction().toggled.connect(
            lambda checked, n=name: self._on_toggled(n, checked)
        )

    @property
    def page(self) -> str:
        return self._page

    def wanted(self, page: str, name: str) -> bool:
        """Shown on `page`: the user's choice there, else whether the page is its home."""
        chosen = self.settings.page_dock_choice(page, name)
        return chosen if chosen is not None else page in self._homes[name]

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
        with self.applying():
            for name, dock in self._docks.items():
                visible = self.wanted(self._page, name)
                if dock.isHidden() == visible:
                    dock.setVisible(visible)

    def _on_toggled(self, name: str, checked: bool) -> None:
        # A closing (or not yet shown) window hides its docks: not the user's choice.
        if self._applying or not self._page or not self._docks[name].window().isVisible():
            return
        self.settings.set_page_dock_choice(self._page, name, checked)
