"""The prompt preview feature: the dock with the exact text Ax shows the model."""

from __future__ import annotations

from PySide6.QtCore import Qt

from axmem_gui.ui.feature import Contributions, DockSpec, FeatureContext, FeatureSpec
from axmem_gui.ui.preview.panel import PreviewPanel
from axmem_gui.ui.retrieval.feature import RETRIEVAL

PREVIEW_WIDTH = 470
DOCK = "previewDock"


class PreviewFeature:
    def __init__(self, context: FeatureContext) -> None:
        self.shell = context.shell
        self.panel = PreviewPanel(context.need(RETRIEVAL).state)

    def contributions(self) -> Contributions:
        dock = DockSpec(
            DOCK,
            "Prompt preview",
            self.panel,
            Qt.DockWidgetArea.RightDockWidgetArea,
            first_size=PREVIEW_WIDTH,
            pages=("skills", "memories", "scenarios"),
        )
        return Contributions(docks=[dock])

    def show_scenario(self, name: str | None, turn: int) -> None:
        """Preview a scenario's turn and bring the dock to the front."""
        self.panel.show_scenario(name, turn)
        self.shell.show_dock(DOCK)

    def shutdown(self) -> None:
        self.panel.stop()


PREVIEW = FeatureSpec("preview", PreviewFeature, needs=(RETRIEVAL,))
