"""The prompt preview dock: exactly what Ax shows the model, section by section.

The system prompt's `### Available Skills` section (executor or distiller, for the chosen
runtime) and, for one executor turn of a scenario, the `Loaded Skills:`, `Memories:` and
`Relevance Hints:` fields. Every text comes straight from the engine (`core/ax`); this view
adds nothing to it. It recomputes after catalog edits (through the shared live index) and
after scenario edits, debounced.

Two profiles: a TypeScript app's (@ax-llm/ax) and the studio's own runs' (axllm). The dock
says which one the studio's runs send, and names the entries the two show differently.

What a big catalog costs (its skills section, the runtimes' orders) is made off the GUI
thread by the mixin `PreviewRendering` (rendering.py).
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QHBoxLayout,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.ax.profile import AxProfile, load_profile
from axmem_gui.core.ax.runtime_diff import RuntimeDifferences
from axmem_gui.core.ax.scenario import Scenario
from axmem_gui.core.ax.simulate import SectionInputs, section_inputs
from axmem_gui.core.catalog import Catalog
from axmem_gui.services.scenarios import (
    PREVIEW_PROFILES,
    RUNTIMES,
    SECTION_KEYS,
    SECTION_TITLES,
    PromptPreview,
    preview_from_simulation,
    preview_scenario,
    runs_profile,
    simulate_scenario,
)
from axmem_gui.ui.inert_text import plain_label
from axmem_gui.ui.preview.rendering import PreviewRendering
from axmem_gui.ui.preview.section_view import SectionView
from axmem_gui.ui.resources import style_leaves
from axmem_gui.ui.retrieval.state import RetrievalState
from axmem_gui.ui.tasks import TaskRunner

#: Scenario edits (typing a task, a search string) are previewed after this pause.
PREVIEW_DEBOUNCE_MS = 150
NO_SCENARIO = "(no scenario: catalog only)"
STAGES = (("executor", "Executor"), ("distiller", "Distiller"))


def total_text(chars: int, tokens: int) -> str:
    """The prompt's total; a narrow dock wraps it between its two halves only."""
    nbsp = "\u00a0"
    return f"Total{nbsp}{chars:,}{nbsp}chars · ~{tokens:,}{nbsp}tokens"


def profile_label(name: str, runs: str) -> str:
    """A profile as the picker shows it."""
    profile = load_profile(name)
    who = "the studio's runs" if name == runs else "a TypeScript app"
    return f"{profile.runtime_label.split(' (')[0]} · {who}"


class PreviewPanel(PreviewRendering, QWidget):
    """Stage / runtime / scenario / turn pickers over one tab per prompt section."""

    updated = Signal()

    def __init__(self, state: RetrievalState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("previewPanel")
        self.state = state
        self.controller = state.controller
        self.preview: PromptPreview | None = None
        self.last_update_ms = 0.0
        self._scenario_error = ""
        self._wanted_turn = 0
        self._picked_once = False
        self._updating_pickers = False
        # what is made off the GUI thread (declared and used in rendering.py)
        self._rendered = None
        self._render_job = None
        self._order_job = None
        self._differences_shown = None
        self._renderer = None
        if state.runner is not None:
            self._renderer = TaskRunner(max_threads=1, parent=self)
            self._renderer.finished.connect(self._on_rendered)
            self._renderer.failed.connect(self._on_render_failed)

        self.stage_combo = QComboBox()
        for key, title in STAGES:
            self.stage_combo.addItem(title, key)
        self.stage_combo.setToolTip("Whose system prompt: the executor's or the distiller's")
        self.runtime_combo = QComboBox()
        for runtime in RUNTIMES:
            self.runtime_combo.addItem(runtime, runtime)
        self.runtime_combo.setToolTip("The agent's runtime language (changes the prompt text)")
        self.runs_profile = runs_profile()
        self.profile_combo = QComboBox()
        self.profile_combo.setObjectName("previewProfile")
        for name in PREVIEW_PROFILES:
            self.profile_combo.addItem(profile_label(name, self.runs_profile), name)
        self.profile_combo.setToolTip(
            "Whose prompts: @ax-llm/ax (what a TypeScript app sends) or axllm (what the "
            f"studio's own runs send: {self.runs_profile}). They order ids differently "
            "(localeCompare or code point), clean the catalog up differently and rank the "
            "hints with their own search."
        )
        self.runtimes_label = plain_label()
        self.runtimes_label.setObjectName("previewRuntimes")
        self.runtimes_label.setWordWrap(True)
        self._runtimes = RuntimeDifferences(
            load_profile(PREVIEW_PROFILES[0]), load_profile(PREVIEW_PROFILES[1])
        )
        self.scenario_combo = QComboBox()
        self.scenario_combo.setToolTip("The scenario whose executor turn is previewed")
        self.scenario_combo.setMinimumContentsLength(14)
        self.turn_combo = QComboBox()
        # As wide as its longest turn, never squeezed (see `_fill_turns`): sized on its
        # first show (one turn) and then squeezed, it cut the last one to "Turn 2 · e".
        self.turn_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.turn_combo.setToolTip(
            "Executor turn: the fields the model sees at its start (the last one: after "
            "every call of the scenario)"
        )

        self.raw_button = QToolButton()
        self.raw_button.setText("Raw")
        self.raw_button.setToolTip("Exact text, monospace")
        self.rendered_button = QToolButton()
        self.rendered_button.setText("Rendered")
        self.rendered_button.setToolTip("The text rendered as markdown")
        for button in (self.raw_button, self.rendered_button):
            button.setCheckable(True)
        self.raw_button.setChecked(True)
        self.mode_group = QButtonGroup(self)
        self.mode_group.setExclusive(True)
        self.mode_group.addButton(self.raw_button)
        self.mode_group.addButton(self.rendered_button)
        self.whitespace_button = QToolButton()
        self.whitespace_button.setText("·¶")
        self.whitespace_button.setCheckable(True)
        self.whitespace_button.setToolTip("Show spaces, tabs and line ends")
        self.wrap_button = QToolButton()
        self.wrap_button.setObjectName("previewWrap")
        self.wrap_button.setText("Wrap")
        self.wrap_button.setCheckable(True)
        self.wrap_button.setChecked(True)
        self.wrap_button.setToolTip("Wrap long lines at the panel's width (the text is unchanged)")
        self.copy_button = QToolButton()
        self.copy_button.setText("Copy")
        self.copy_button.setToolTip("Copy this section's exact text (Ctrl+C)")
        # The whole total, on two lines in a narrow dock (elided, the token count was cut
        # off at 1366×768): see `total_text`.
        self.total_label = plain_label()
        self.total_label.setObjectName("previewTotal")
        self.total_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.total_label.setWordWrap(True)
        self.error_label = plain_label()
        self.error_label.setObjectName("previewErrors")
        self.error_label.setWordWrap(True)
        self.error_label.setVisible(False)

        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.views: dict[str, SectionView] = {}
        for key in SECTION_KEYS:
            view = SectionView(key)
            self.views[key] = view
            self.tabs.addTab(view, SECTION_TITLES[key])

        pickers = QHBoxLayout()
        pickers.setSpacing(4)
        pickers.addWidget(self.stage_combo)
        pickers.addWidget(self.runtime_combo)
        pickers.addWidget(self.scenario_combo, 1)
        pickers.addWidget(self.turn_combo)
        profiles = QHBoxLayout()
        profiles.setSpacing(4)
        profiles.addWidget(self.profile_combo)
        profiles.addStretch(1)
        bar = QHBoxLayout()
        bar.setSpacing(4)
        bar.addWidget(self.raw_button)
        bar.addWidget(self.rendered_button)
        bar.addWidget(self.whitespace_button)
        bar.addWidget(self.wrap_button)
        bar.addWidget(self.copy_button)
        bar.addWidget(self.total_label, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addLayout(pickers)
        layout.addLayout(profiles)
        layout.addWidget(self.runtimes_label)
        layout.addLayout(bar)
        layout.addWidget(self.error_label)
        layout.addWidget(self.tabs, 1)

        self.copy_action = QAction("Copy section", self)
        self.copy_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Copy))
        self.copy_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.copy_action.triggered.connect(self._on_copy)
        self.addAction(self.copy_action)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(PREVIEW_DEBOUNCE_MS)
        self._timer.timeout.connect(self.recompute_now)

        self.copy_button.clicked.connect(self._on_copy)
        self.whitespace_button.toggled.connect(self._on_whitespace)
        self.wrap_button.toggled.connect(self._on_wrap)
        self._on_wrap(True)
        self.rendered_button.toggled.connect(self._on_mode)
        self.stage_combo.currentIndexChanged.connect(self._on_option)
        self.runtime_combo.currentIndexChanged.connect(self._on_option)
        self.profile_combo.currentIndexChanged.connect(self._on_option)
        self.turn_combo.currentIndexChanged.connect(self._on_option)
        self.scenario_combo.currentIndexChanged.connect(self._on_scenario_picked)
        state.changed.connect(self.recompute_now)
        state.failed.connect(lambda _message: self.recompute_now())
        state.catalog_read.connect(self._prerender)
        self.controller.changed.connect(self._on_workspace_changed)

        self._reload_scenarios()
        self._sync_runtime_to_scenario()
        self.recompute_now()
        # Styled per widget, not as a container (see `style_leaves`).
        style_leaves(self, "retrieval")

    # choices ------------------------------------------------------------------------
    def stage(self) -> str:
        return str(self.stage_combo.currentData())

    def set_stage(self, stage: str) -> None:
        self.stage_combo.setCurrentIndex(self.stage_combo.findData(stage))

    def runtime(self) -> str:
        return str(self.runtime_combo.currentData())

    def profile(self) -> AxProfile:
        """The profile whose prompts are shown."""
        return load_profile(str(self.profile_combo.currentData()))

    def set_profile(self, name: str) -> None:
        self.profile_combo.setCurrentIndex(self.profile_combo.findData(name))

    def set_runtime(self, runtime: str) -> None:
        index = self.runtime_combo.findData(runtime)
        if index < 0:
            self.runtime_combo.addItem(runtime, runtime)
            index = self.runtime_combo.count() - 1
        self.runtime_combo.setCurrentIndex(index)

    def scenario_name(self) -> str | None:
        data = self.scenario_combo.currentData()
        return None if data is None else str(data)

    def turn(self) -> int:
        data = self.turn_combo.currentData()
        return 0 if data is None else int(data)

    def show_scenario(self, name: str | None, turn: int = 0) -> None:
        """Preview `name` (None: catalog only) at executor turn `turn` (0-based), now."""
        self._updating_pickers = True
        try:
            index = 0 if name is None else self.scenario_combo.findData(name)
            if index < 0:
                self._reload_scenarios()
                index = max(0, self.scenario_combo.findData(name))
            self.scenario_combo.setCurrentIndex(index)
            self._sync_runtime_to_scenario()
        finally:
            self._updating_pickers = False
        self._wanted_turn = turn
        self.recompute_now()

    def _reload_scenarios(self) -> None:
        current = self.scenario_name()
        names = self.controller.workspace.scenarios.names()
        self._updating_pickers = True
        try:
            self.scenario_combo.clear()
            self.scenario_combo.addItem(NO_SCENARIO, None)
            for name in names:
                self.scenario_combo.addItem(name, name)
            if current is None and not self._picked_once and names:
                current = names[0]  # first open: show a scenario rather than nothing
            self._picked_once = True
            index = self.scenario_combo.findData(current) if current is not None else 0
            self.scenario_combo.setCurrentIndex(max(index, 0))
        finally:
            self._updating_pickers = False

    def _on_scenario_picked(self) -> None:
        if self._updating_pickers:
            return
        self._sync_runtime_to_scenario()
        self._wanted_turn = 0
        self.recompute_now()

    def _sync_runtime_to_scenario(self) -> None:
        scenario = self._load_scenario()
        if scenario is not None:
            blocked = self.runtime_combo.blockSignals(True)
            self.set_runtime(scenario.runtime)
            self.runtime_combo.blockSignals(blocked)

    def _on_option(self) -> None:
        if not self._updating_pickers:
            self._wanted_turn = self.turn()
            self.schedule()

    def _on_workspace_changed(self, what: str) -> None:
        if what in ("*", "scenarios"):
            self._reload_scenarios()
            self._wanted_turn = self.turn()
            self.schedule()

    # computing ----------------------------------------------------------------------
    def schedule(self) -> None:
        self._timer.start()

    @property
    def pending(self) -> bool:
        """A recompute is due, or waits for the skills section being rendered or the
        runtimes' orders being compared."""
        return (
            self._timer.isActive() or self._render_job is not None or self._order_job is not None
        )

    def stop(self) -> None:
        self._timer.stop()
        if self._renderer is not None:
            self._renderer.shutdown()
        self._render_job = None
        self._order_job = None

    def _load_scenario(self) -> Scenario | None:
        name = self.scenario_name()
        self._scenario_error = ""
        if name is None:
            return None
        found = self.controller.workspace.scenarios.get(name)
        if found is None:
            return None
        self._scenario_error = found.document.problem
        return found.document.scenario

    def recompute_now(self) -> None:
        self._timer.stop()
        if not self.state.usable():
            if self.preview is None and not self.controller.is_closed:
                # (the skills section may be rendered meanwhile: `_prerender`)
                failure = self.state.failure
                self.views["skills"].stats.setText(
                    "indexing the catalog for search…"
                    if failure is None
                    else "search unavailable: " + failure.splitlines()[0]
                )
            return
        started = time.perf_counter()
        live = self.state.live
        catalog = live.catalog()
        stage = self.stage()
        scenario, inputs = self._inputs(catalog)
        rendered = self._skills_section(catalog.skills, inputs)
        if rendered is None:
            return  # rendering on the worker: `_on_rendered` recomputes
        sim = simulate_scenario(
            catalog,
            scenario,
            self.profile(),
            skill_search=live.skill_search(),
            memory_search=live.memory_search(),
            stages=(),  # only the shown stage's section, rendered once (above)
            rendered={stage: rendered.section},
        )
        preview = preview_from_simulation(sim, stage, self._wanted_turn)
        self.preview = preview
        self._fill_turns(preview)
        for section in preview.sections:
            self.views[section.key].set_section(section)
        self.total_label.setText(total_text(preview.chars, preview.tokens))
        errors = [self._scenario_error] if self._scenario_error else []
        if preview.turn_count:
            errors += [f"turn {preview.turn + 1}: {e}" for e in preview.errors]
        else:  # Ax refused the forward before any turn (an empty task)
            errors += [f"Ax refuses this run: {e}" for e in preview.errors]
        self.error_label.setText("\n".join(errors))
        self.error_label.setVisible(bool(errors))
        self._show_runtime_differences(catalog)
        self.last_update_ms = (time.perf_counter() - started) * 1000
        self.updated.emit()

    def _inputs(self, catalog: Catalog) -> tuple[Scenario, SectionInputs]:
        """The scenario previewed, and what the shown stage's skills section of `catalog`
        is rendered from."""
        scenario = preview_scenario(self._load_scenario(), self.runtime())
        return scenario, section_inputs(catalog, scenario, self.profile(), self.stage())

    def _fill_turns(self, preview: PromptPreview) -> None:
        self._updating_pickers = True
        try:
            if self.turn_combo.count() != preview.turn_count:
                self.turn_combo.clear()
                for i in range(preview.turn_count):
                    last = i == preview.turn_count - 1 and preview.turn_count > 1
                    label = f"Turn {i + 1}" + (" · end" if last else "")
                    self.turn_combo.addItem(label, i)
                self.turn_combo.setMinimumWidth(self.turn_combo.sizeHint().width())
            self.turn_combo.setCurrentIndex(preview.turn)
            self.turn_combo.setEnabled(preview.turn_count > 1)
        finally:
            self._updating_pickers = False
        self._wanted_turn = preview.turn

    # view ---------------------------------------------------------------------------
    def current_view(self) -> SectionView:
        widget = self.tabs.currentWidget()
        assert isinstance(widget, SectionView)
        return widget

    def show_section(self, key: str) -> None:
        self.tabs.setCurrentWidget(self.views[key])

    def section_text(self, key: str) -> str:
        return self.views[key].text()

    def _on_copy(self) -> None:
        QGuiApplication.clipboard().setText(self.current_view().text())

    def _on_wrap(self, wrap: bool) -> None:
        for view in self.views.values():
            view.raw.set_wrap(wrap)

    def _on_whitespace(self, show: bool) -> None:
        for view in self.views.values():
            view.set_show_whitespace(show)

    def _on_mode(self, rendered: bool) -> None:
        for view in self.views.values():
            view.set_rendered(rendered)
