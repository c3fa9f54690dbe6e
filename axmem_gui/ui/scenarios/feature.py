"""The scenarios feature: the page; a turn's preview opens in the prompt preview."""

from __future__ import annotations

from typing import TYPE_CHECKING

from axmem_gui.ui.feature import Contributions, FeatureContext, FeatureSpec, PageSpec
from axmem_gui.ui.preview.install import PREVIEW
from axmem_gui.ui.retrieval.feature import RETRIEVAL

if TYPE_CHECKING:
    from axmem_gui.ui.scenarios.page import ScenariosPage


class ScenariosFeature:
    def __init__(self, context: FeatureContext) -> None:
        self._context = context
        #: Built (and its module imported) when the page is first shown or read.
        self._page: ScenariosPage | None = None
        context.controller.changed.connect(self._on_changed)

    @property
    def page(self) -> ScenariosPage:
        if self._page is None:
            from axmem_gui.ui.scenarios.page import ScenariosPage

            context = self._context
            page = ScenariosPage(context.need(RETRIEVAL).state, context.undo_stack)
            page.message.connect(context.shell.show_message)
            preview = context.need(PREVIEW)

            def preview_scenario(name: object, turn: int) -> None:
                preview.show_scenario(None if name is None else str(name), turn)

            page.preview_requested.connect(preview_scenario)
            self._page = page
        return self._page

    def _on_changed(self, what: str) -> None:
        # A page not built yet reads the workspace when it is.
        if what in ("*", "scenarios") and self._page is not None:
            self._page.reload()

    def contributions(self) -> Contributions:
        return Contributions(
            pages=[
                PageSpec("scenarios", "Scenarios", build=lambda: self.page, prepare=prepare_page)
            ]
        )

    def shutdown(self) -> None:
        """Scenario previews are computed by the preview feature."""


def prepare_page() -> None:
    """The page's modules, on a job before the first build (PageSpec.prepare)."""
    from axmem_gui.ui.scenarios import page  # noqa: F401  (imported for its side: loaded)


SCENARIOS = FeatureSpec("scenarios", ScenariosFeature, needs=(RETRIEVAL, PREVIEW))
