"""The shared retrieval state as a feature: the preview, bench, scenarios and suites need it."""

from __future__ import annotations

from PySide6.QtCore import QTimer

from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.feature import Contributions, FeatureContext, FeatureSpec
from axmem_gui.ui.retrieval.state import RetrievalState


class RetrievalFeature:
    def __init__(self, context: FeatureContext) -> None:
        self.state = RetrievalState(context.controller, parent=context.shell, runner=context.runner)
        # Typing in a form patches the index of only the entries it touches.
        self.state.watch_edits(context.need(CATALOG).session)
        # The first index build (a catalog-sized job) starts once the window has painted.
        context.shell.after_first_paint(self.state.start)
        self._shell = context.shell
        self.state.failed.connect(self._on_failed)

    def _on_failed(self, message: str) -> None:
        from axmem_gui.ui.dialogs import ErrorDialog

        # until another message: the window stays without search (the dialog says why)
        reason = message.splitlines()[0] if message else "the catalog cannot be read"
        self._shell.show_message(f"Search unavailable: {reason}", 0)
        # after the other views took the failure in (a modal dialog would hold them back
        # until it is closed: the preview said "indexing…" behind it)
        QTimer.singleShot(
            0,
            lambda: ErrorDialog.show(
                self._shell.dialog_parent, "Cannot index the catalog", message
            ),
        )

    def contributions(self) -> Contributions:
        return Contributions()

    def shutdown(self) -> None:
        self.state.stop()


RETRIEVAL = FeatureSpec("retrieval", RetrievalFeature, needs=(CATALOG,))
