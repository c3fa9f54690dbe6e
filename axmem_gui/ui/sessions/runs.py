"""Running agent code from the Sessions page: a live run of an agent config, a rerun of a
session's inputs, an offline replay of its recorded code (each a job in a child process,
`waits` on the task runner, with a strip on the page that cancels it); the provider
settings remembered for the next run, and agent configs edited as commands on the main
undo stack.

A mixin of `SessionsFeature` (controller.py), which keeps the page, the list, the tabs and
the jobs; what these methods use of it is `RunsHost`. Quarantined sessions run no code
(quarantine.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from axmem_gui.core.errors import InputError
from axmem_gui.ui.lazy import lazy_module
from axmem_gui.ui.sessions import job_kinds, quarantine
from axmem_gui.ui.sessions.job_kinds import JobHost

if TYPE_CHECKING:
    # (the sessions service imports the engine and axllm: not before the first paint)
    from PySide6.QtGui import QUndoStack

    from axmem_gui.core.providers import ProviderSettings
    from axmem_gui.core.session.agent_config import AgentConfig
    from axmem_gui.services import sessions
    from axmem_gui.services.agent_runner import AgentRunner
    from axmem_gui.services.agents import AgentService, StoredAgent
    from axmem_gui.ui.controller import WorkspaceController
    from axmem_gui.ui.sessions import jobs
    from axmem_gui.ui.sessions.job_kinds import SessionJob
    from axmem_gui.ui.sessions.viewer import SessionViewer
    from axmem_gui.ui.tasks import Job, TaskRunner
else:
    sessions = lazy_module("axmem_gui.services.sessions")
    jobs = lazy_module("axmem_gui.ui.sessions.jobs")


class RunsHost(JobHost, Protocol):
    """What the runs use of the feature (and of themselves: the mixin's methods, typed on
    this protocol, call one another through it)."""

    controller: WorkspaceController
    runner: TaskRunner
    undo_stack: QUndoStack
    agent_runs: AgentRunner
    _last_settings: ProviderSettings | None
    _agent_revisions: dict[str, int]

    def agents(self) -> AgentService: ...

    def current_viewer(self) -> SessionViewer | None: ...

    def _submit(self, job: Job, kind: SessionJob, waits: bool = False) -> int: ...

    def default_settings(self) -> ProviderSettings | None: ...

    def _remember(self, settings: ProviderSettings) -> None: ...

    def save_agent(self, before: StoredAgent | None, config: AgentConfig | None) -> None: ...

    def start_run(self, order: jobs.RunOrder) -> int: ...

    def rerun(self, viewer: SessionViewer) -> int | None: ...

    def start_rerun(self, order: jobs.RerunOrder) -> int: ...

    def replay(self, viewer: SessionViewer) -> int | None: ...


class SessionRuns:
    """The Sessions feature's live runs, reruns and replays (mixed into `SessionsFeature`,
    whose `__init__` and workspace change set these)."""

    #: The settings of the last run started in this workspace (None: the stored ones).
    _last_settings: ProviderSettings | None
    #: Agent config revisions this window's undoable edits last wrote, by name (the undo
    #: stack's commands hold this dict: cleared, never replaced).
    _agent_revisions: dict[str, int]

    def default_settings(self: RunsHost) -> ProviderSettings | None:
        if self._last_settings is not None:
            return self._last_settings
        return self.sessions().last_provider()

    def _remember(self: RunsHost, settings: ProviderSettings) -> None:
        self._last_settings = settings
        self.sessions().remember_provider(settings)

    def run_agent(self: RunsHost) -> int | None:
        from axmem_gui.ui.sessions.run_dialog import RunAgentDialog

        order = RunAgentDialog.ask(
            self.shell.dialog_parent,
            self.agents(),
            self.sessions().jobs(),
            self.runner,
            self.save_agent,
            self.default_settings(),
            on_agents_changed=lambda: self.controller.notify_changed("agents"),
        )
        return self.start_run(order) if order is not None else None

    def save_agent(self: RunsHost, before: StoredAgent | None, config: AgentConfig | None) -> None:
        """Create, edit or delete (`config` None) an agent config as a command on the main
        undo stack (Ctrl+Z undoes it like a catalog edit). Raises InputError when it cannot
        be applied."""
        errors: list[str] = []
        from axmem_gui.ui.sessions.commands import AgentCommand

        command = AgentCommand(self.agents, before, config, self._agent_revisions, errors.append)
        self.undo_stack.push(command)
        command.set_report(lambda message: self.error("Agent config", message))
        if errors:
            raise InputError(errors[0])

    def start_run(self: RunsHost, order: jobs.RunOrder) -> int:
        self._remember(order.settings)
        token = sessions.cancel_token()
        title = f"Running {order.agent.name} on {order.settings.model or order.settings.provider}"
        workspace = self.sessions().jobs()
        kind = job_kinds.RunJob(self, title, token, workspace, order.map_failure)
        kind.show_strip()
        return self._submit(jobs.run_job(order, token, self.agent_runs), kind, waits=True)

    def rerun_current(self: RunsHost) -> None:
        viewer = self.current_viewer()
        if viewer is not None:
            self.rerun(viewer)

    def rerun(self: RunsHost, viewer: SessionViewer) -> int | None:
        from axmem_gui.ui.sessions.run_dialog import RerunDialog

        if quarantine.refused(viewer, "Rerun"):
            return None
        order = RerunDialog.ask(
            self.shell.dialog_parent, viewer.session, self.runner, self.sessions().jobs()
        )
        return self.start_rerun(order) if order is not None else None

    def start_rerun(self: RunsHost, order: jobs.RerunOrder) -> int:
        self._remember(order.settings)
        token = sessions.cancel_token()
        title = f"Rerunning {order.session.label}"
        kind = job_kinds.RunJob(self, title, token, self.sessions().jobs())
        kind.show_strip()
        return self._submit(jobs.rerun_job(order, token, self.agent_runs), kind, waits=True)


    def replay_current(self: RunsHost) -> None:
        viewer = self.current_viewer()
        if viewer is not None:
            self.replay(viewer)

    def replay(self: RunsHost, viewer: SessionViewer) -> int | None:
        reason = sessions.can_replay(viewer.session)
        if reason is not None:
            viewer.show_replay_error(reason)
            return None
        if quarantine.refused(viewer, "Replay"):
            return None
        token = sessions.cancel_token()
        kind = job_kinds.ReplayJob(self, f"Replaying {viewer.session.label}", token, viewer)
        kind.show_strip()
        viewer.set_busy(True)
        viewer.show_message("Replaying offline…", "info")
        job = jobs.replay_job(viewer.session, token, self.agent_runs)
        return self._submit(job, kind, waits=True)


    def edit_agents(self: RunsHost) -> None:
        from axmem_gui.ui.sessions.agents_dialog import AgentConfigsDialog

        if AgentConfigsDialog.show_for(self.shell.dialog_parent, self.agents(), self.save_agent):
            self.controller.notify_changed("agents")
