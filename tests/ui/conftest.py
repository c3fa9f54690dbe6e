from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from axmem_gui.services.workspace import init_workspace, open_workspace
from axmem_gui.ui.controller import WorkspaceController
from axmem_gui.ui.feature import FeatureSpec
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.settings import AppSettings
from axmem_gui.ui.wiring import install_features


@pytest.fixture
def sample_path(tmp_path: Path) -> Path:
    path = tmp_path / "sample.axmem"
    init_workspace(path, sample=True).close()
    return path


@pytest.fixture
def settings(tmp_path: Path) -> AppSettings:
    return AppSettings(tmp_path / "settings" / "test.ini")


#: Makes a main window as the app does; see `make_window`.
WindowFactory = Callable[..., MainWindow]


def close_window(win: MainWindow) -> None:
    """Destroy the window (and every timer of its features) before its workspace closes,
    so no debounced refresh can run against a closed connection."""
    win.close()
    win.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    win.controller.close()


@pytest.fixture
def make_window(qtbot: QtBot, sample_path: Path, settings: AppSettings) -> Iterator[WindowFactory]:
    """`make_window(path=sample, *, read_only, features, settings, restore_layout, show)`:
    a main window on a workspace, with every feature (`features=None`), the given ones, or
    none (`()`); every window made is closed, then its workspace, when the test ends."""
    made: list[MainWindow] = []

    def make(
        path: Path | None = None,
        *,
        read_only: bool = False,
        features: Sequence[FeatureSpec[Any]] | None = None,
        settings: AppSettings = settings,
        restore_layout: bool = False,
        show: bool = True,
    ) -> MainWindow:
        controller = WorkspaceController(open_workspace(path or sample_path, read_only=read_only))
        win = MainWindow(
            controller,
            settings,
            QUndoStack(),
            lambda p: open_workspace(p),
            lambda p: init_workspace(p),
        )
        made.append(win)
        if features is None:
            install_features(win)
        elif features:
            win.install(features)
        if restore_layout:
            win.restore_layout()
        if show:
            win.show()
            qtbot.waitExposed(win)
        return win

    yield make
    for win in reversed(made):
        close_window(win)


@pytest.fixture
def window(make_window: WindowFactory) -> MainWindow:
    """The main window on the sample workspace with every feature, shown."""
    return make_window()


def calls_on_gui_thread(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[bool]:
    """Patch `owner.name` (a function, or a method of a class) to record, for each call,
    whether it ran on the GUI thread (True) or on a worker (False); returns that list."""
    seen: list[bool] = []
    original = getattr(owner, name)

    def recording(*args: Any, **kwargs: Any) -> Any:
        seen.append(threading.current_thread() is threading.main_thread())
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, recording)
    return seen
