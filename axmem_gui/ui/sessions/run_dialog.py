"""Run > Run agent… and Rerun…: choose what to run and on which model.

The dialogs only collect choices into a plain order (`RunOrder`, `RerunOrder`); the run
itself goes through the task runner (see controller.py).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.errors import AxmemError, InputError
from axmem_gui.core.providers import SCRIPTED_PROVIDER, ProviderSettings, is_scripted
from axmem_gui.core.session.agent_config import AgentConfig, check_inputs
from axmem_gui.core.session.model import Session
from axmem_gui.services.agents import AgentService, StoredAgent
from axmem_gui.services.sessions import SessionJobs
from axmem_gui.ui.form_dialog import problem_label
from axmem_gui.ui.inert_text import plain_label
from axmem_gui.ui.pages import monospace_font
from axmem_gui.ui.sessions.agent_editor import AgentConfigDialog
from axmem_gui.ui.sessions.jobs import (
    CatalogSource,
    RerunOrder,
    RunOrder,
    shared_counts_job,
)
from axmem_gui.ui.sessions.provider_form import LocalModelChoice, ProviderForm
from axmem_gui.ui.tasks import TaskRunner

#: Saves an agent config as an undoable command: the stored agent it replaces (None for
#: a new one) and the config (None deletes it).
SaveAgent = Callable[[StoredAgent | None, AgentConfig | None], None]

INPUT_HEIGHT = 54


class RunAgentDialog(QDialog):
    """Agent config, inputs, provider; Run returns a RunOrder."""

    agents_changed = Signal()

    def __init__(
        self,
        agents: AgentService,
        workspace: SessionJobs,
        runner: TaskRunner,
        save_agent: SaveAgent,
        settings: ProviderSettings | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Run agent")
        self.agents = agents
        self.workspace = workspace
        self.order: RunOrder | None = None
        #: Writes a new/edited agent config (an undoable command on the main stack).
        self.save_agent = save_agent
        self.input_edits: dict[str, QPlainTextEdit] = {}

        self.agent = QComboBox()
        self.edit_agent = QPushButton("Edit…")
        self.new_agent = QPushButton("New…")
        self.edit_agent.clicked.connect(lambda: self._edit_agent(new=False))
        self.new_agent.clicked.connect(lambda: self._edit_agent(new=True))
        agent_row = QHBoxLayout()
        agent_row.addWidget(self.agent, 1)
        agent_row.addWidget(self.edit_agent)
        agent_row.addWidget(self.new_agent)
        self.agent_summary = plain_label()
        self.agent_summary.setObjectName("agentSummary")
        self.agent_summary.setWordWrap(True)
        self.name = QLineEdit()
        self.name.setPlaceholderText("optional; default: agent · model")
        self.map_failure_error = QCheckBox("Treat a failed context-map update as an error")
        self.map_failure_error.setObjectName("mapFailureError")
        self.map_failure_error.setToolTip(
            "axllm swallows a failed map update and the run still completes; by default the "
            "session shows a warning, checked an error dialog says so when the run ends"
        )

        self.inputs_box = QGroupBox("Inputs")
        self.inputs_form = QFormLayout(self.inputs_box)
        self.provider = ProviderForm(runner)
        self.local = LocalModelChoice(self.provider)
        self.local.check.setObjectName("runLocalModel")
        if settings is not None:
            self.local.set_settings(settings)
        provider_box = QGroupBox("Model")
        model_layout = QVBoxLayout(provider_box)
        model_layout.addWidget(self.local)
        model_layout.addWidget(self.provider)

        self.error = problem_label()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.run_button = buttons.addButton("Run", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)

        top = QFormLayout()
        top.addRow("Agent", agent_row)
        top.addRow("", self.agent_summary)
        top.addRow("Session name", self.name)
        top.addRow("", self.map_failure_error)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.inputs_box)
        layout.addWidget(provider_box)
        layout.addStretch(1)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.resize(720, 680)

        self.runner = runner
        self._count_job: int | None = None
        self._summary = ""
        runner.finished.connect(self._on_counted)
        self.agent.currentIndexChanged.connect(lambda *_: self._on_agent())
        self._fill_agents()

    def _on_counted(self, job_id: int, result: object) -> None:
        if job_id != self._count_job or not isinstance(result, tuple):
            return
        self._count_job = None
        skills, memories = result
        self.agent_summary.setText(self._summary.format(f"{skills} skills, {memories} memories"))

    @classmethod
    def ask(
        cls,
        parent: QWidget | None,
        agents: AgentService,
        workspace: SessionJobs,
        runner: TaskRunner,
        save_agent: SaveAgent,
        settings: ProviderSettings | None = None,
        on_agents_changed: Callable[[], None] | None = None,
    ) -> RunOrder | None:
        dialog = cls(agents, workspace, runner, save_agent, settings, parent)
        if on_agents_changed is not None:
            dialog.agents_changed.connect(on_agents_changed)
        return dialog.order if dialog.exec() == QDialog.DialogCode.Accepted else None

    # agents -------------------------------------------------------------------------
    def _fill_agents(self, select: str | None = None) -> None:
        names = sorted(self.agents.names())
        self.agent.blockSignals(True)
        self.agent.clear()
        self.agent.addItems(names)
        if select is not None and select in names:
            self.agent.setCurrentText(select)
        self.agent.blockSignals(False)
        self.edit_agent.setEnabled(bool(names))
        self._on_agent()

    def current_config(self) -> AgentConfig | None:
        """The chosen agent's config (None: no agent); InputError when it cannot run."""
        name = self.agent.currentText()
        found = self.agents.find(name) if name else None
        return None if found is None else found.runnable()

    def _on_agent(self) -> None:
        while self.inputs_form.rowCount():
            self.inputs_form.removeRow(0)
        self.input_edits = {}
        try:
            config = self.current_config()
        except AxmemError as exc:
            self.agent_summary.setText(f"This agent config cannot run: {exc}")
            self.run_button.setEnabled(False)
            return
        if config is None:
            self.agent_summary.setText(
                "No agent configs yet — create one with New… (a signature and an instruction)."
            )
            self.run_button.setEnabled(False)
            return
        self.run_button.setEnabled(True)
        cmap = config.context_map
        map_text = f"context map {cmap.max_chars:,} chars" if cmap else "no context map"
        self._summary = (
            f"{config.signature}  ·  {{}}  ·  {map_text}  ·  up to {config.max_actor_steps} "
            "actor steps"
        )
        self.agent_summary.setText(self._summary.format("counting skills and memories…"))
        # Read and filtered on the task runner (100,000 memories: most of a second).
        self._count_job = self.runner.submit(shared_counts_job(self.workspace, config))
        for field in config.input_fields:
            edit = QPlainTextEdit()
            edit.setFont(monospace_font())
            edit.setTabChangesFocus(True)
            edit.setFixedHeight(INPUT_HEIGHT * (2 if field in config.context_fields else 1))
            edit.setPlaceholderText(f"value of {field}")
            self.inputs_form.addRow(field, edit)
            self.input_edits[field] = edit

    def _edit_agent(self, new: bool) -> None:
        name = None if new else self.agent.currentText()
        before = self.agents.find(name) if name else None
        value = AgentConfigDialog.ask(
            self,
            before.config if before is not None else None,
            self.agents.names(),
            name=name or "",
            problem=before.problem if before is not None else "",
        )
        if value is None:
            return
        try:
            self.save_agent(before, value)  # undoable: a command on the main stack
        except AxmemError as exc:
            self.error.setText(f"Cannot save the agent config: {exc}")
            return
        self.agents_changed.emit()
        self._fill_agents(select=value.name)

    # result -------------------------------------------------------------------------
    def set_input(self, field: str, text: str) -> None:
        self.input_edits[field].setPlainText(text)

    def build_order(self) -> RunOrder:
        config = self.current_config()
        if config is None:
            raise InputError("choose an agent config (or create one with New…)")
        inputs = {k: e.toPlainText() for k, e in self.input_edits.items() if e.toPlainText()}
        check_inputs(config, inputs, "Inputs")
        self.provider.store_key()
        return RunOrder(
            agent=config,
            catalog=self.workspace,  # read by the run's job
            inputs=(inputs,),
            settings=self.local.settings(),
            name=self.name.text().strip(),
            map_failure="error" if self.map_failure_error.isChecked() else "warn",
        )

    def accept(self) -> None:
        try:
            self.order = self.build_order()
        except AxmemError as exc:
            self.error.setText(str(exc))
            return
        super().accept()


class RerunDialog(QDialog):
    """A recorded session's inputs again: pick the model, and the catalog as recorded or
    the workspace's current one (after catalog edits)."""

    def __init__(
        self,
        session: Session,
        runner: TaskRunner,
        current_catalog: CatalogSource,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Rerun session")
        self.session = session
        self.order: RerunOrder | None = None
        self._current_catalog = current_catalog
        self.provider = ProviderForm(runner)
        self.scripted = False
        with contextlib.suppress(AxmemError):  # an odd recorded provider: use defaults
            settings = ProviderSettings.of_session(session.provider)
            if is_scripted(settings):
                # Recorded with the scripted model (the sample): offer it again, so a
                # first rerun works with no server and no key.
                self.scripted = True
                settings = ProviderSettings(SCRIPTED_PROVIDER, settings.model)
            self.provider.set_settings(settings)
        self.recorded_catalog = QRadioButton("the catalog as recorded")
        self.current = QRadioButton("the workspace's current catalog (after edits)")
        self.catalog_choice = QButtonGroup(self)
        self.catalog_choice.addButton(self.recorded_catalog)
        self.catalog_choice.addButton(self.current)
        self.recorded_catalog.setChecked(True)
        self.name = QLineEdit()
        self.name.setPlaceholderText(f"rerun of {session.label}")
        self.error = problem_label()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        buttons.addButton("Rerun", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        catalog_box = QGroupBox("Catalog")
        cat_layout = QVBoxLayout(catalog_box)
        cat_layout.addWidget(self.recorded_catalog)
        cat_layout.addWidget(self.current)
        self.local = LocalModelChoice(self.provider)
        self.local.check.setObjectName("rerunLocalModel")
        model_box = QGroupBox("Model")
        model_layout = QVBoxLayout(model_box)
        model_layout.addWidget(self.local)
        model_layout.addWidget(self.provider)
        intro = plain_label(
            f"Runs the {len(session.forwards)} recorded input(s) of “{session.label}” again, "
            "live, as a new session."
        )
        if self.scripted:
            intro.setText(
                intro.text() + " It was recorded with the scripted model, which answers in "
                "process: rerun it as is (try model scripted-b for different answers), or "
                "pick a real provider."
            )
        intro.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Session name", self.name)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(model_box)
        layout.addWidget(catalog_box)
        layout.addLayout(form)
        layout.addStretch(1)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.resize(680, 560)

    @classmethod
    def ask(
        cls,
        parent: QWidget | None,
        session: Session,
        runner: TaskRunner,
        current_catalog: CatalogSource,
    ) -> RerunOrder | None:
        dialog = cls(session, runner, current_catalog, parent)
        return dialog.order if dialog.exec() == QDialog.DialogCode.Accepted else None

    def build_order(self) -> RerunOrder:
        self.provider.store_key()
        return RerunOrder(
            session=self.session,
            settings=self.local.settings(),
            catalog=self._current_catalog if self.current.isChecked() else None,
            name=self.name.text().strip(),
        )

    def accept(self) -> None:
        try:
            self.order = self.build_order()
        except AxmemError as exc:
            self.error.setText(str(exc))
            return
        super().accept()
