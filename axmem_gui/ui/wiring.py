"""The features of the desktop app: adding one is one package and one line here.

The window lays out pages in this order; features install in the order of their needs."""

from __future__ import annotations

from typing import Any

from axmem_gui.ui.bench.feature import BENCH
from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.contextmap.feature import CONTEXTMAPS
from axmem_gui.ui.evals import EVALS
from axmem_gui.ui.feature import FeatureSpec, InstalledFeatures
from axmem_gui.ui.help import HELP
from axmem_gui.ui.lint.install import LINT
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.preview.install import PREVIEW
from axmem_gui.ui.retrieval.feature import RETRIEVAL
from axmem_gui.ui.scenarios.feature import SCENARIOS
from axmem_gui.ui.sessions.controller import SESSIONS
from axmem_gui.ui.suites.feature import SUITES
from axmem_gui.ui.transfer.actions import TRANSFER

FEATURES: tuple[FeatureSpec[Any], ...] = (
    CATALOG,
    RETRIEVAL,
    PREVIEW,
    BENCH,
    SCENARIOS,
    SUITES,
    SESSIONS,
    CONTEXTMAPS,
    TRANSFER,
    LINT,
    EVALS,
    HELP,
)


def install_features(window: MainWindow) -> InstalledFeatures:
    return window.install(FEATURES)
