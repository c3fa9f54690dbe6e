"""The lint feature: the panel under each catalog form, the Lint dock, and the navigator's
error badges, all fed by one live linter."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt

from axmem_gui.core.catalog import CATALOG_KINDS, plural, singular
from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.feature import Contributions, DockSpec, FeatureContext, FeatureSpec
from axmem_gui.ui.lint.dock import LintDock
from axmem_gui.ui.lint.linter import LintOutcome, LiveLinter
from axmem_gui.ui.lint.panel import LintPanel
from axmem_gui.ui.retrieval.feature import RETRIEVAL

DOCK = "lintDock"


def badge_text(errors: int) -> str:
    return "" if errors == 0 else f"✖ {errors:,}"


class LintFeature(QObject):
    def __init__(self, context: FeatureContext) -> None:
        super().__init__(context.shell)
        self.shell = context.shell
        # Lint borrows the search index the views share (no second index of its own), and
        # runs once that index took an edit in.
        self._state = context.need(RETRIEVAL).state
        self.linter = LiveLinter(
            context.controller, context.runner, parent=self, source=self._state
        )
        # An edit re-lints only what it can change (the edit session names the entries).
        self.linter.watch_edits(context.need(CATALOG).session)
        self.pages = context.need(CATALOG).pages
        self.panels = {key: LintPanel(page.form, self.linter) for key, page in self.pages.items()}
        for key, panel in self.panels.items():
            page = self.pages[key]
            page.form.set_lint_panel(panel)
            page.current_changed.connect(panel.refresh)
        # The form may show another entry after any change (rename, undo, import).
        context.controller.changed.connect(self._refresh_panels)
        self.view = LintDock(self.linter)
        self.view.entry_activated.connect(self.jump_to)
        self.linter.outcome_changed.connect(self._update_badges)
        self.linter.failed.connect(lambda m: self.shell.show_message(m, 8000))
        # The first lint runs when the index lands (now, if it is there already).
        self.linter.run_now()

    def contributions(self) -> Contributions:
        dock = DockSpec(
            DOCK,
            "Lint",
            self.view,
            Qt.DockWidgetArea.BottomDockWidgetArea,
            toggle_text="&Lint",
            toggle_shortcut="Ctrl+Shift+L",
            tabify_with="benchDock",
            pages=("skills", "memories"),
        )
        return Contributions(docks=[dock])

    def shutdown(self) -> None:
        self.linter.stop()

    def _refresh_panels(self, _what: str) -> None:
        for panel in self.panels.values():
            panel.refresh()

    def _update_badges(self, outcome: LintOutcome | None) -> None:
        errors = outcome.errors_by_kind() if outcome is not None else {}
        for section in CATALOG_KINDS:
            self.shell.set_badge(section, badge_text(errors.get(singular(section), 0)))

    def show_dock(self) -> None:
        self.shell.show_dock(DOCK)

    def jump_to(self, kind: str, entry_id: str) -> None:
        """Show the entry a finding is about (catalog findings open the skills)."""
        section = plural(kind) if kind in ("skill", "memory") else "skills"
        self.shell.show_section(section)
        if not entry_id:
            return
        self.pages[section].focus_entry(entry_id)
        self.panels[section].refresh()


LINT = FeatureSpec("lint", LintFeature, needs=(CATALOG, RETRIEVAL))
