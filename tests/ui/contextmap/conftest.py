from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from PySide6.QtGui import QUndoStack
from pytestqt.qtbot import QtBot

from axmem_gui.services.workspace import OpenWorkspace, init_workspace
from axmem_gui.ui.contextmap import ContextMapPage
from axmem_gui.ui.controller import WorkspaceController
from tests.ui.contextmap.maps import Stored, store_history


@dataclass
class PageEnv:
    page: ContextMapPage
    controller: WorkspaceController
    stack: QUndoStack
    history: list[Stored]

    @property
    def ws(self) -> OpenWorkspace:
        return self.controller.workspace


@pytest.fixture
def env(qtbot: QtBot, tmp_path: Path) -> Iterator[PageEnv]:
    ws = init_workspace(tmp_path / "maps.axmem")
    stored = store_history(ws)
    controller = WorkspaceController(ws)
    stack = QUndoStack()
    page = ContextMapPage(controller, stack)
    qtbot.addWidget(page)
    page.resize(1100, 700)
    page.show()
    yield PageEnv(page, controller, stack, stored)
    controller.close()
