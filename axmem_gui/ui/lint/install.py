"""Lint in the main window: the panel under each catalog form, the Lint dock, and the
navigator's error badges, all fed by one live linter."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt

from axmem_gui.ui.lint.dock import LintDock
from axmem_gui.ui.lint.linter import LintOutcome, LiveLinter
from axmem_gui.ui.lint.panel import LintPanel
from axmem_gui.ui.transfer.runner import window_runner

if TYPE_CHECKING:
    from axmem_gui.ui.main_window import MainWindow

SECTIONS = {"skill": "skills", "memory": "memories"}


def badge_text(errors: int) -> str:
    return "" if errors == 0 else f"✖ {errors:,}"


class LintFeature(QObject):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.linter = LiveLinter(window.controller, window_runner(window), parent=self)
        editing = getattr(window, "catalog_editing", None)
        if editing is not None:
            self.linter.watch_edits(editing.session)
        self.panels = {
            "skills": LintPanel(window.skills_page.form, self.linter),
            "memories": LintPanel(window.memories_page.form, self.linter),
        }
        for key, panel in self.panels.items():
            page = window.skills_page if key == "skills" else window.memories_page
            page.form.set_lint_panel(panel)
            page.current_changed.connect(panel.refresh)
        # The form may show another entry after any change (rename, undo, import).
        window.controller.changed.connect(self._refresh_panels)
        self.view = LintDock(self.linter)
        self.view.entry_activated.connect(self.jump_to)
        self.dock = window._dock(
            "Lint", "lintDock", self.view, Qt.DockWidgetArea.BottomDockWidgetArea
        )
        window.tabifyDockWidget(window.bench_dock, self.dock)
        window.bench_dock.raise_()
        self._add_view_action()
        self.linter.outcome_changed.connect(self._update_badges)
        self.linter.failed.connect(lambda m: window.statusBar().showMessage(m, 8000))
        window.installEventFilter(self)
        self._first_run_waits = False
        self._state = getattr(getattr(window, "retrieval_views", None), "state", None)
        if self._state is not None and not self._state.ready:
            # The first lint waits for the search index the views show first (both are
            # CPU-bound Python: side by side each would take twice as long), then starts
            # from the index's catalog (the same entry objects, not a second copy).
            self._first_run_waits = True
            self._state.changed.connect(self._first_run)
        else:
            self.linter.run_now()

    def _first_run(self) -> None:
        if self._first_run_waits and self._state is not None:
            self._first_run_waits = False
            if self._state.usable():  # not when the workspace closed meanwhile
                self.linter.run_now(self._state.live.catalog())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.window and event.type() == QEvent.Type.Close:
            self.linter.stop()
        return super().eventFilter(watched, event)

    def _add_view_action(self) -> None:
        menu = self.window.view_menu
        toggle = self.dock.toggleViewAction()
        toggle.setText("&Lint")
        toggle.setShortcut("Ctrl+Shift+L")
        separators = [a for a in menu.actions() if a.isSeparator()]
        if separators:
            menu.insertAction(separators[0], toggle)
        else:
            menu.addAction(toggle)

    def _refresh_panels(self, _what: str) -> None:
        for panel in self.panels.values():
            panel.refresh()

    def _update_badges(self, outcome: LintOutcome | None) -> None:
        errors = outcome.errors_by_kind() if outcome is not None else {}
        for kind, section in SECTIONS.items():
            self.window.nav_model.set_badge(section, badge_text(errors.get(kind, 0)))

    def show_dock(self) -> None:
        self.dock.show()
        self.dock.raise_()

    def jump_to(self, kind: str, entry_id: str) -> None:
        """Show the entry a finding is about (catalog findings open the skills)."""
        section = SECTIONS.get(kind, "skills")
        self.window.show_section(section)
        if not entry_id:
            return
        page = self.window.skills_page if section == "skills" else self.window.memories_page
        page.focus_entry(entry_id)
        self.panels[section].refresh()


def install_lint(window: MainWindow) -> LintFeature:
    feature = LintFeature(window)
    window.lint = feature  # type: ignore[attr-defined]
    return feature
