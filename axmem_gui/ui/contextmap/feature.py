"""The context maps feature: the page, and File > Import/Export snapshot."""

from __future__ import annotations

from typing import TYPE_CHECKING

from axmem_gui.ui.actions import make_action
from axmem_gui.ui.feature import Contributions, FeatureContext, FeatureSpec, MenuPlace, PageSpec

if TYPE_CHECKING:
    from axmem_gui.ui.contextmap.page import ContextMapPage

FILE_PLACE = MenuPlace("file", "contextmap-snapshot")
KEY = "contextmaps"


class ContextMapFeature:
    def __init__(self, context: FeatureContext) -> None:
        self.shell = context.shell
        self._context = context
        #: Built (and its module imported) when the page is first shown or read.
        self._page: ContextMapPage | None = None
        self.import_action = make_action(
            context.shell,
            "Import snapshot…",
            self.import_snapshot,
            tip="Import a context map snapshot (TS snapshot, axllm dict or text)",
        )
        self.export_action = make_action(
            context.shell,
            "Export snapshot…",
            self.export_snapshot,
            tip="Export the selected context map snapshot",
        )
        context.actions.add("contextmap.import", self.import_action, FILE_PLACE)
        context.actions.add("contextmap.export", self.export_action, FILE_PLACE)
        context.controller.changed.connect(self._on_changed)

    @property
    def page(self) -> ContextMapPage:
        if self._page is None:
            from axmem_gui.ui.contextmap.page import ContextMapPage

            context = self._context
            self._page = ContextMapPage(context.controller, context.undo_stack)
            self._page.message.connect(context.shell.show_message)
        return self._page

    def _on_changed(self, what: str) -> None:
        # A page not built yet reads the workspace when it is.
        if what in ("*", "sessions", "contextmaps") and self._page is not None:
            self._page.reload()

    def import_snapshot(self) -> None:
        self.shell.show_section(KEY)
        self.page.import_snapshot()

    def export_snapshot(self) -> None:
        self.shell.show_section(KEY)
        self.page.export_snapshot()

    def contributions(self) -> Contributions:
        return Contributions(
            pages=[PageSpec(KEY, "Context maps", build=lambda: self.page, prepare=prepare_page)]
        )

    def shutdown(self) -> None:
        """The page reads on the GUI thread only; nothing is pending."""


def prepare_page() -> None:
    """The page's modules, on a job before the first build (PageSpec.prepare)."""
    from axmem_gui.ui.contextmap import page  # noqa: F401  (imported for its side: loaded)


CONTEXTMAPS = FeatureSpec("contextmaps", ContextMapFeature)
