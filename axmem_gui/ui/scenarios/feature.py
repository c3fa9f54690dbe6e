"""The scenarios feature: the page; a turn's preview opens in the prompt preview."""

from __future__ import annotations

from axmem_gui.ui.feature import Contributions, FeatureContext, FeatureSpec, PageSpec
from axmem_gui.ui.preview.install import PREVIEW
from axmem_gui.ui.retrieval.feature import RETRIEVAL
from axmem_gui.ui.scenarios.page import ScenariosPage


class ScenariosFeature:
    def __init__(self, context: FeatureContext) -> None:
        self.page = ScenariosPage(context.need(RETRIEVAL).state, context.undo_stack)
        self.page.message.connect(context.shell.show_message)
        preview = context.need(PREVIEW)

        def preview_scenario(name: object, turn: int) -> None:
            preview.show_scenario(None if name is None else str(name), turn)

        self.page.preview_requested.connect(preview_scenario)
        context.controller.changed.connect(self._on_changed)

    def _on_changed(self, what: str) -> None:
        if what in ("*", "scenarios"):
            self.page.reload()

    def contributions(self) -> Contributions:
        return Contributions(pages=[PageSpec("scenarios", "Scenarios", self.page)])

    def shutdown(self) -> None:
        """Scenario previews are computed by the preview feature."""


SCENARIOS = FeatureSpec("scenarios", ScenariosFeature, needs=(RETRIEVAL, PREVIEW))
