from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QUndoStack

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
    qtbot.addWidget(win)
    win.show()
    yield win
    controller.close()
