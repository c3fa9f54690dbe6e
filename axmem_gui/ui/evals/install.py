"""Put the Evals feature into the main window: a page and its navigator entry."""

from __future__ import annotations

from typing import TYPE_CHECKING

from axmem_gui.ui.evals.page import EvalsFeature

if TYPE_CHECKING:
    from axmem_gui.ui.main_window import MainWindow


def install_evals_view(window: MainWindow) -> EvalsFeature:
    feature = EvalsFeature(window.controller, window.task_runner)
    window.pages["evals"] = feature.page
    window.stack.addWidget(feature.page)
    window.evals_feature = feature  # type: ignore[attr-defined]
    return feature
