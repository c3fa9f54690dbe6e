"""The retrieval suites feature: the page, Run > Run Suites, the navigator's regression
badge and the suite summary in the status bar; a case opens in the bench."""

from __future__ import annotations

from PySide6.QtGui import QKeySequence

from axmem_gui.ui.actions import make_action
from axmem_gui.ui.bench.feature import BENCH, RUN_PLACE
from axmem_gui.ui.feature import Contributions, FeatureContext, FeatureSpec, PageSpec
from axmem_gui.ui.inert_text import plain_label
from axmem_gui.ui.retrieval.feature import RETRIEVAL
from axmem_gui.ui.suites.page import SuitesPage

RUN_SHORTCUTS = (QKeySequence("Ctrl+Return"), QKeySequence("Ctrl+Enter"))


class SuitesFeature:
    def __init__(self, context: FeatureContext) -> None:
        self.shell = context.shell
        self.page = SuitesPage(context.need(RETRIEVAL).state, context.undo_stack)
        self.page.message.connect(context.shell.show_message)
        bench = context.need(BENCH)
        self.page.bench_requested.connect(bench.open)
        # "Add as case…" in the bench keeps its call as a case of a suite.
        bench.panel.add_case_requested.connect(self._add_case)
        self.page.regressions_changed.connect(self._on_regressions)
        self.status = plain_label()
        self.status.setObjectName("suiteStatus")
        self.page.summary_changed.connect(self.status.setText)
        self.run_action = make_action(
            context.shell,
            "Run Suites",
            lambda: self.page.run(record=True),
            tip="Run every retrieval suite and record the run (Ctrl+Enter)",
        )
        self.run_action.setShortcuts(list(RUN_SHORTCUTS))
        context.actions.add("suites.run", self.run_action, RUN_PLACE)
        context.controller.changed.connect(self._on_changed)

    def _add_case(
        self, kind: str, searches: list[str], loaded: list[str], returned: list[str]
    ) -> None:
        self.page.add_case_from_bench(kind, searches, loaded, returned)

    def _on_regressions(self, count: int) -> None:
        self.shell.set_badge("suites", "!" if count else "")

    def _on_changed(self, what: str) -> None:
        if what in ("*", "suites"):
            self.page.reload()

    def contributions(self) -> Contributions:
        return Contributions(
            pages=[PageSpec("suites", "Suites", self.page)], status_widgets=[self.status]
        )

    def shutdown(self) -> None:
        self.page.stop()


SUITES = FeatureSpec("suites", SuitesFeature, needs=(RETRIEVAL, BENCH))
