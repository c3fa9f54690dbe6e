"""A main window with only what the retrieval views need (catalog editing + these views),
over a fresh copy of the sample workspace."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from axmem_gui.ui.bench.feature import BENCH
from axmem_gui.ui.bench.panel import BenchPanel
from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.preview.install import PREVIEW
from axmem_gui.ui.preview.panel import PreviewPanel
from axmem_gui.ui.retrieval.feature import RETRIEVAL
from axmem_gui.ui.retrieval.state import RetrievalState
from axmem_gui.ui.scenarios.feature import SCENARIOS
from axmem_gui.ui.scenarios.page import ScenariosPage
from axmem_gui.ui.suites.feature import SUITES
from axmem_gui.ui.suites.page import SuitesPage
from tests.ui.conftest import WindowFactory

#: Only what the retrieval views need; the window refuses a set with a need left out.
RETRIEVAL_FEATURES = (CATALOG, RETRIEVAL, PREVIEW, BENCH, SCENARIOS, SUITES)


@pytest.fixture
def sample_ws_path(sample_path: Path) -> Path:
    """The sample workspace of tests/ui/conftest.py (the retrieval tests' name for it)."""
    return sample_path


@pytest.fixture
def rwindow(qtbot: QtBot, make_window: WindowFactory, sample_ws_path: Path) -> Iterator[MainWindow]:
    win = make_window(sample_ws_path, features=RETRIEVAL_FEATURES)
    qtbot.waitUntil(lambda: views(win).state.ready, timeout=10000)
    # The BM25 indexes are built when the bench first needs them; these tests want them
    # there from the start, as after the bench's first runs.
    state = views(win).state
    for domain in ("skills", "memories"):
        state.ensure_bm25(domain)
    live = state.live
    qtbot.waitUntil(lambda: live.has_bm25("skills") and live.has_bm25("memories"), timeout=10000)
    yield win
    views(win).suites.runner.cancel()


@dataclass(frozen=True)
class Views:
    state: RetrievalState
    preview: PreviewPanel
    bench: BenchPanel
    scenarios: ScenariosPage
    suites: SuitesPage
    suite_status: QLabel


def views(window: MainWindow) -> Views:
    suites = window.feature(SUITES)
    return Views(
        window.feature(RETRIEVAL).state,
        window.feature(PREVIEW).panel,
        window.feature(BENCH).panel,
        window.feature(SCENARIOS).page,
        suites.page,
        suites.status,
    )
