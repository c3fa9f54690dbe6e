"""A main window with only what the retrieval views need (catalog editing + these views),
over a fresh copy of the sample workspace."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QUndoStack

from axmem_gui.services.workspace import init_workspace
from axmem_gui.store import Workspace
from axmem_gui.ui.controller import WorkspaceController
from axmem_gui.ui.editor.actions import install_catalog_editing
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.preview import RetrievalViews, install_retrieval_views
from axmem_gui.ui.settings import AppSettings


@pytest.fixture
def sample_ws_path(tmp_path: Path) -> Path:
    path = tmp_path / "sample.axmem"
    init_workspace(path, sample=True).close()
    return path


@pytest.fixture
def rwindow(qtbot, sample_ws_path: Path, tmp_path: Path) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    controller = WorkspaceController(Workspace.open(sample_ws_path))
    win = MainWindow(
        controller,
        AppSettings(tmp_path / "settings" / "test.ini"),
        QUndoStack(),
        Workspace.open,
        lambda p: init_workspace(p),
    )
    install_catalog_editing(win)
    install_retrieval_views(win)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: views(win).state.ready, timeout=10000)
    live = views(win).state.live
    qtbot.waitUntil(lambda: live.has_bm25("skills") and live.has_bm25("memories"), timeout=10000)
    yield win
    views(win).suites.runner.cancel()
    controller.close()


def views(window: MainWindow) -> RetrievalViews:
    found = getattr(window, "retrieval_views", None)
    assert isinstance(found, RetrievalViews)
    return found
