from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import QApplication

from axmem_gui.services.workspace import init_workspace
from axmem_gui.store import Workspace
from axmem_gui.ui.controller import WorkspaceController
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


@pytest.fixture
def window(qtbot, sample_path: Path, settings: AppSettings) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    controller = WorkspaceController(Workspace.open(sample_path))
    win = MainWindow(
        controller,
        settings,
        QUndoStack(),
        Workspace.open,
        lambda p: init_workspace(p),
    )
    install_features(win)
    win.show()
    qtbot.waitExposed(win)
    yield win
    # Destroy the window (and every timer of its features) before the workspace closes,
    # so no debounced refresh can run against a closed connection.
    win.close()
    win.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    controller.close()
