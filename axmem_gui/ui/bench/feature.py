"""The retrieval bench feature: the dock and Run > Run Bench."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt

from axmem_gui.services.bench import BenchKind
from axmem_gui.ui.actions import make_action
from axmem_gui.ui.bench.panel import BenchPanel
from axmem_gui.ui.feature import Contributions, DockSpec, FeatureContext, FeatureSpec, MenuPlace
from axmem_gui.ui.retrieval.feature import RETRIEVAL

BENCH_HEIGHT = 280
DOCK = "benchDock"
RUN_PLACE = MenuPlace("run", "retrieval")
#: The bench's call on the catalog pages (discover searches skills, recall memories).
PAGE_KINDS: dict[str, BenchKind] = {"skills": "discover", "memories": "recall"}


class BenchFeature:
    def __init__(self, context: FeatureContext) -> None:
        self.shell = context.shell
        self.panel = BenchPanel(context.need(RETRIEVAL).state)
        self.run_action = make_action(
            context.shell,
            "Run Bench",
            self.run,
            tip="Run the retrieval bench (Ctrl+Enter while in the bench)",
        )
        context.actions.add("bench.run", self.run_action, RUN_PLACE)
        context.shell.section_changed.connect(self._on_section)

    def contributions(self) -> Contributions:
        dock = DockSpec(
            DOCK,
            "Retrieval bench",
            self.panel,
            Qt.DockWidgetArea.BottomDockWidgetArea,
            first_size=BENCH_HEIGHT,
            pages=("skills", "memories", "scenarios", "suites"),
        )
        return Contributions(docks=[dock])

    def _on_section(self, key: str) -> None:
        # The call that searches what the page lists: on Memories the bench stayed on
        # discover (a skills search) until switched by hand.
        if key in PAGE_KINDS:
            self.panel.set_kind(PAGE_KINDS[key])

    def run(self) -> None:
        self.shell.show_dock(DOCK)
        self.panel.run()

    def open(self, kind: str, searches: Sequence[str], loaded: Sequence[str]) -> None:
        """Put a case into the bench and run it."""
        self.panel.set_kind("recall" if kind == "recall" else "discover")
        self.panel.set_searches(list(searches))
        self.panel.set_loaded(list(loaded))
        self.run()

    def shutdown(self) -> None:
        """The bench computes on the GUI thread when asked; nothing is pending."""


BENCH = FeatureSpec("bench", BenchFeature, needs=(RETRIEVAL,))
