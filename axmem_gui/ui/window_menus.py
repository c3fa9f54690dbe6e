"""The main window's menu bar: File (the workspace commands, Open Recent, Quit), Edit
(undo and redo), View (each dock's toggle, Focus on the Editor, a shortcut per section),
Run and Help, with the features' actions placed group by group between the window's own
entries (`ActionRegistry`).

A mixin of `MainWindow` (main_window.py), built once at construction (`_build_menus`) and
filled once the features are installed (`_fill_menus`); what it uses of the window is
declared below for readers and type checkers."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path

from PySide6.QtGui import QAction, QKeySequence, QUndoStack
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu

from axmem_gui.ui.actions import make_action
from axmem_gui.ui.dialogs import ErrorDialog
from axmem_gui.ui.dock_toggle import dock_toggle
from axmem_gui.ui.feature import ActionRegistry, InstalledFeatures, MenuName
from axmem_gui.ui.navigator import NavigatorModel
from axmem_gui.ui.page_docks import PageDocks
from axmem_gui.ui.settings import AppSettings
from axmem_gui.ui.window_pages import WindowPages
from axmem_gui.ui.writes import WriteQueue, undo_actions


def redo_shortcuts() -> list[QKeySequence]:
    """Ctrl+Shift+Z everywhere and Ctrl+Y too except on macOS, each key once: Qt's
    StandardKey.Redo already holds Ctrl+Shift+Z on Linux, and a key bound twice on one
    action is an "ambiguous shortcut" that Qt then ignores."""
    keys = [QKeySequence("Ctrl+Shift+Z")]
    if sys.platform != "darwin":
        keys.append(QKeySequence("Ctrl+Y"))
    keys += QKeySequence.keyBindings(QKeySequence.StandardKey.Redo)
    unique: list[QKeySequence] = []
    for key in keys:
        if not key.isEmpty() and key not in unique:
            unique.append(key)
    return unique


class WindowMenus(QMainWindow):
    # the window's, set before the menus are built or filled
    settings: AppSettings
    undo_stack: QUndoStack
    writes: WriteQueue
    action_registry: ActionRegistry
    installed: InstalledFeatures
    pages: WindowPages
    nav_model: NavigatorModel
    docks: dict[str, QDockWidget]
    dock_toggles: dict[str, QAction]
    page_docks: PageDocks

    # the window's workspace commands and sections, which the menus call
    def new_workspace(self) -> None:
        raise NotImplementedError

    def open_workspace_dialog(self) -> None:
        raise NotImplementedError

    def open_path(self, path: Path) -> bool:
        raise NotImplementedError

    def show_section_row(self, row: int) -> None:
        raise NotImplementedError

    def show_about(self) -> None:
        raise NotImplementedError

    def _action(
        self,
        menu: QMenu,
        text: str,
        slot: Callable[[], object],
        shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None,
    ) -> QAction:
        act = make_action(self, text, slot, shortcut)
        menu.addAction(act)
        return act

    def _build_menus(self) -> None:
        bar = self.menuBar()
        self.file_menu = bar.addMenu("&File")
        self._action(self.file_menu, "&New Workspace…", self.new_workspace)
        self._action(
            self.file_menu,
            "&Open Workspace…",
            self.open_workspace_dialog,
            QKeySequence.StandardKey.Open,
        )
        self.recent_menu = self.file_menu.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self._quit_action = make_action(self, "&Quit", self.close, QKeySequence.StandardKey.Quit)

        self.edit_menu = bar.addMenu("&Edit")
        undo, redo = undo_actions(self, self.undo_stack, self.writes)
        redo.setShortcuts(redo_shortcuts())
        self.edit_menu.addAction(undo)
        self.edit_menu.addAction(redo)

        self.view_menu = bar.addMenu("&View")
        self.run_menu = bar.addMenu("&Run")
        self.help_menu = bar.addMenu("&Help")
        self._about_action = make_action(self, "&About Ax Memory && Skills Studio", self.show_about)
        self.menus: dict[MenuName, QMenu] = {
            "file": self.file_menu,
            "edit": self.edit_menu,
            "view": self.view_menu,
            "run": self.run_menu,
            "help": self.help_menu,
        }
        for name, menu in self.menus.items():
            menu.aboutToShow.connect(lambda n=name: self.action_registry.menu_opening.emit(n))

    def _fill_menus(self) -> None:
        """The features' actions, group by group, between the window's own entries."""
        self._add_dock_toggles()
        for name, menu in self.menus.items():
            for _group, actions in self.action_registry.groups(name):
                if not menu.isEmpty():
                    menu.addSeparator()
                menu.addActions(actions)
        if not self.view_menu.isEmpty():
            self.view_menu.addSeparator()
        for row, key in enumerate(self.pages):
            shortcut = f"Ctrl+{row + 1}" if row < 9 else None
            self._action(
                self.view_menu,
                self.nav_model.title(key),
                functools.partial(self.show_section_row, row),
                shortcut,
            )
        self.file_menu.addSeparator()
        self.file_menu.addAction(self._quit_action)
        self.help_menu.addAction(self._about_action)

    def _add_dock_toggles(self) -> None:
        for contributed in self.installed.contributions.values():
            for spec in contributed.docks:
                dock = self.docks[spec.name]
                if spec.toggle_text:
                    dock.toggleViewAction().setText(spec.toggle_text)
                if spec.toggle_shortcut:
                    dock.toggleViewAction().setShortcut(spec.toggle_shortcut)
                # Brings a dock tabbed behind another to the front rather than hiding it.
                toggle = dock_toggle(dock, self)
                self.dock_toggles[spec.name] = toggle
                self.view_menu.addAction(toggle)
        # Every dock of the page out of the way, for the editor (see `PageDocks`).
        self.focus_action = make_action(
            self,
            "&Focus on the Editor",
            lambda: self.page_docks.set_focused(not self.page_docks.focused()),
            "F11",
            "Hide this page's docks so the editor has the room (remembered per page)",
        )
        self.focus_action.setCheckable(True)
        self.page_docks.focus_changed.connect(lambda _p, on: self.focus_action.setChecked(on))
        self.view_menu.addAction(self.focus_action)

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = self.settings.recent_files()
        if not recent:
            act = self.recent_menu.addAction("No recent workspaces")
            act.setEnabled(False)
            return
        for i, path in enumerate(recent):
            act = self.recent_menu.addAction(f"&{i + 1} {path}" if i < 9 else path)
            act.triggered.connect(lambda _c=False, p=path: self._open_recent(p))
        self.recent_menu.addSeparator()
        clear = self.recent_menu.addAction("Clear list")
        clear.triggered.connect(self._clear_recent)

    def _clear_recent(self) -> None:
        for path in self.settings.recent_files():
            self.settings.remove_recent_file(path)

    def _open_recent(self, path: str) -> None:
        if not Path(path).exists():
            self.settings.remove_recent_file(path)
            ErrorDialog.show(self, "Cannot open workspace", f"{path}: no such workspace any more")
            return
        self.open_path(Path(path))
