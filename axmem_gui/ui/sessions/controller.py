"""The sessions feature: fills the Sessions page from the workspace, runs every slow
action (live runs, reruns, replays, comparisons, what-if, analytics, imports) on the task
runner, and hands each job's outcome to its kind (job_kinds.py), which puts it where it
belongs. Starting the runs and replays of agent code is the mixin `SessionRuns` (runs.py).

The feature reads and writes sessions and agent configs through their services
(`SessionService`, `AgentService`), the same methods the CLI calls; a job gets plain data
or the sessions service for a job (`SessionJobs`, which opens its own connection).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

from axmem_gui.core.errors import AxmemError
from axmem_gui.ui.actions import make_action
from axmem_gui.ui.dialogs import ErrorDialog
from axmem_gui.ui.feature import Contributions, FeatureContext, FeatureSpec, MenuPlace, PageSpec
from axmem_gui.ui.lazy import lazy_module
from axmem_gui.ui.sessions import job_kinds, quarantine
from axmem_gui.ui.sessions.job_kinds import STATUS_MS, SessionJob
from axmem_gui.ui.sessions.runs import SessionRuns

if TYPE_CHECKING:
    # The page, its views and the engine behind the services (axllm) are imported when the
    # page is first built or an action first runs, not when the window is wired.
    from axmem_gui.core.session.model import Session
    from axmem_gui.services import sessions
    from axmem_gui.services.agents import AgentService
    from axmem_gui.services.sessions import SessionService
    from axmem_gui.ui.sessions import jobs
    from axmem_gui.ui.sessions.page import SessionsPage
    from axmem_gui.ui.sessions.viewer import SessionViewer
    from axmem_gui.ui.tasks import Job
else:
    sessions = lazy_module("axmem_gui.services.sessions")
    jobs = lazy_module("axmem_gui.ui.sessions.jobs")


def compare_prompt(session_id: str, session: Session | None, names: dict[str, str]) -> str:
    """The picker's question, naming session A as the list shows it (its name, the id
    only when it has none)."""
    name = session.name if session is not None else None
    if not name:
        name = names.get(session_id)
    label = f"“{name}”" if name else session_id
    return f"Compare {label} (A) with which session (B)?"


class SessionsFeature(SessionRuns, QObject):
    #: An import job ended: the ids of the sessions it stored (none when it stored
    #: nothing, failed or was cancelled).
    import_finished = Signal(list)

    def __init__(self, context: FeatureContext) -> None:
        super().__init__(context.shell)
        self.shell = context.shell
        self.settings = context.settings
        self.undo_stack = context.undo_stack
        self.actions = context.actions
        self.controller = context.controller
        self.runner = runner = context.runner
        self.agent_runs = context.agents
        #: Built when the page is first shown or read (`page`), not before the first paint.
        self._page: SessionsPage | None = None
        self.viewers: dict[str, SessionViewer] = {}
        #: The running jobs by the runner's id, each with what becomes of its outcome.
        self.jobs: dict[int, SessionJob] = {}
        self.usage_stale = True
        # what the runs remember (declared and used in runs.py)
        self._last_settings = None
        self._agent_revisions = {}

        self._build_actions()
        runner.progressed.connect(self._on_progress)
        runner.finished.connect(self._on_finished)
        runner.failed.connect(self._on_failed)
        runner.cancelled.connect(self._on_cancelled)
        self.controller.opened.connect(self._on_workspace_opened)
        self.controller.changed.connect(self._on_changed)

    @property
    def page(self) -> SessionsPage:
        if self._page is None:
            from axmem_gui.ui.sessions.page import SessionsPage

            self._page = page = SessionsPage()
            for action in self._toolbar_actions:
                page.toolbar.addAction(action)
            page.open_requested.connect(self.open_session)
            page.files_dropped.connect(self.import_files)
            page.tab_closed.connect(self._on_tab_closed)
            page.usage_shown.connect(self._on_usage_shown)
            page.usage.refresh_requested.connect(self.refresh_usage)
            page.table.selectionModel().selectionChanged.connect(lambda *_: self.update_actions())
            page.tabs.currentChanged.connect(lambda *_: self.update_actions())
            self.reload()
        return self._page

    # feature contract ---------------------------------------------------------------
    def contributions(self) -> Contributions:
        return Contributions(
            pages=[
                PageSpec("sessions", "Sessions", build=lambda: self.page, prepare=prepare_page)
            ]
        )

    def shutdown(self) -> None:
        self.cancel_all()

    def _on_changed(self, what: str) -> None:
        if what in ("*", "sessions", "contextmaps"):
            self.reload()

    # the services of the open workspace (the only place the feature reaches it) ------
    # (each announces its writes through the workspace's notices, as every service does)
    def sessions(self) -> SessionService:
        return self.controller.workspace.sessions

    def agents(self) -> AgentService:
        return self.controller.workspace.agents

    def sessions_changed(self) -> None:
        """Sessions written on a job's own connection (a run, an import) are stored."""
        self.controller.notify_changed("sessions")

    # helpers ------------------------------------------------------------------------
    def _action(
        self, text: str, slot: Callable[[], object], tip: str, shortcut: str | None = None
    ) -> QAction:
        return make_action(self, text, slot, shortcut, tip)

    def _build_actions(self) -> None:
        self.run_action = self._action(
            "Run Agent…", self.run_agent, "Run an agent live and record the session", "Ctrl+R"
        )
        self.import_action = self._action(
            "Import…", self.import_dialog, "Import .axsession.json files (or drop them here)"
        )
        self.export_action = self._action(
            "Export…", self.export_selected, "Save the session as a .axsession.json file"
        )
        self.open_action = self._action("Open", self.open_selected, "Open the session (Enter)")
        self.compare_action = self._action(
            "Compare", self.compare_selected, "Two sessions side by side (select two, or one)"
        )
        self.delete_action = self._action(
            "Delete", self.delete_selected, "Delete the selected sessions (Ctrl+Z undoes)"
        )
        self.replay_action = self._action(
            "Replay Session", self.replay_current, "Replay the open session offline"
        )
        self.rerun_action = self._action(
            "Rerun Session…", self.rerun_current, "Run the open session's inputs again"
        )
        self.whatif_action = self._action(
            "What-if on Current Catalog",
            self.whatif_current,
            "Recompute the open session's discover/recall on today's catalog",
        )
        self.usage_action = self._action(
            "Usage Analytics", self.show_usage, "Loaded/used counts per skill and memory"
        )
        self.agents_action = self._action(
            "Agent Configs…", self.edit_agents, "The agents Run Agent… runs: list, create, edit"
        )
        self._toolbar_actions = (
            self.run_action,
            self.import_action,
            self.export_action,
            self.open_action,
            self.compare_action,
            self.delete_action,
            self.usage_action,
        )
        for name, action, group in (
            ("run", self.run_action, "sessions-run"),
            ("agents", self.agents_action, "sessions-run"),
            ("replay", self.replay_action, "session"),
            ("rerun", self.rerun_action, "session"),
            ("whatif", self.whatif_action, "session"),
            ("compare", self.compare_action, "session"),
            ("usage", self.usage_action, "sessions-analytics"),
        ):
            self.actions.add(f"sessions.{name}", action, MenuPlace("run", group))
        for name, action in (
            ("import", self.import_action),
            ("export", self.export_action),
            ("open", self.open_action),
            ("delete", self.delete_action),
        ):
            self.actions.add(f"sessions.{name}", action)
        self.update_actions()

    def update_actions(self) -> None:
        page = self._page  # not built yet: nothing selected, the list in front
        selected = len(page.selected_ids()) if page is not None else 0
        on_list = page is None or page.tabs.currentWidget() is page.list_stack
        viewer = self.current_viewer()
        writable = not self.controller.read_only
        self.open_action.setEnabled(selected >= 1)
        self.delete_action.setEnabled(on_list and selected >= 1 and writable)
        self.export_action.setEnabled((on_list and selected == 1) or viewer is not None)
        self.compare_action.setEnabled(selected in (1, 2) or viewer is not None)
        self.import_action.setEnabled(writable)
        runs = viewer is not None and not viewer.quarantine
        self.whatif_action.setEnabled(viewer is not None)
        for action in (self.replay_action, self.rerun_action):
            action.setEnabled(runs)

    def current_viewer(self) -> SessionViewer | None:
        if self._page is None:
            return None
        widget = self._page.tabs.currentWidget()
        from axmem_gui.ui.sessions.viewer import SessionViewer

        return widget if isinstance(widget, SessionViewer) else None

    def error(self, title: str, message: str) -> None:
        ErrorDialog.show(self.shell.dialog_parent, title, message)

    def cancel_all(self) -> None:
        for job in self.jobs.values():
            job.cancel()
        self.runner.cancel_all()

    def _cancel_imports(self) -> None:
        for job in self.jobs.values():
            if isinstance(job, job_kinds.ImportJob):
                job.cancel()

    # list ---------------------------------------------------------------------------
    def reload(self) -> None:
        if self._page is None:  # the page reads the workspace when it is built
            self.update_actions()
            return
        selected = self.page.selected_ids()
        self.page.model.set_sessions(self.sessions().rows())
        self.page.update_empty()
        self.page.select_ids(selected)
        missing = self.page.model.missing_totals()
        if missing:
            workspace = self.sessions().jobs()
            self._submit(jobs.totals_job(workspace, missing), job_kinds.TotalsJob(self))
        self.usage_stale = True
        if self.page.tabs.currentWidget() is self.page.usage:
            self.refresh_usage()
        self.update_actions()

    def _on_workspace_opened(self) -> None:
        self._last_settings = None
        self._agent_revisions.clear()
        # An import into the workspace closed: rolled back, unless it committed already.
        self._cancel_imports()
        if self._page is not None:  # (one not built yet shows the new workspace when it is)
            for widget in self._page.closable_tabs():
                self._page.close_tab(widget)
            self._page.model.forget_totals(self._page.model.ids())
            self._page.clear_notice()
        self.viewers.clear()

    # opening ------------------------------------------------------------------------
    def open_selected(self) -> None:
        for session_id in self.page.selected_ids():
            self.open_session(session_id)

    def open_session(self, session_id: str) -> SessionViewer | None:
        viewer = self.viewers.get(session_id)
        if viewer is not None:
            self.page.tabs.setCurrentWidget(viewer)
            return viewer
        try:
            session = self.sessions().get(session_id)
        except AxmemError as exc:
            self.error("Cannot open session", str(exc))
            self.reload()
            return None
        return self.open_document(session, saved=True)

    def open_document(self, session: Session, saved: bool) -> SessionViewer:
        old = self.viewers.pop(session.id, None)
        if old is not None:
            self.page.close_tab(old)
        from axmem_gui.ui.sessions.viewer import SessionViewer

        viewer = SessionViewer(session, saved)
        viewer.set_show_whitespace(self.settings.show_whitespace())
        viewer.set_replay_allowed(sessions.can_replay(session))
        viewer.replay_requested.connect(lambda v=viewer: self.replay(v))
        viewer.rerun_requested.connect(lambda v=viewer: self.rerun(v))
        viewer.compare_requested.connect(lambda v=viewer: self.compare_with(v))
        viewer.whatif_requested.connect(lambda v=viewer: self.whatif(v))
        viewer.export_requested.connect(lambda v=viewer: self.export_document(v.session))
        viewer.trust_requested.connect(lambda v=viewer: quarantine.trust(self, v))
        viewer.whitespace_changed.connect(self.set_whitespace)
        quarantine.show_quarantine(self, viewer)
        self.viewers[session.id] = viewer
        self.page.add_tab(viewer, session.label, session.id)
        self.update_actions()
        return viewer

    def _on_tab_closed(self, widget: QWidget) -> None:
        for session_id, viewer in list(self.viewers.items()):
            if viewer is widget:
                del self.viewers[session_id]
        for job in self.jobs.values():
            job.forget(widget)
        self.update_actions()

    def set_whitespace(self, show: bool) -> None:
        self.settings.set_show_whitespace(show)
        from axmem_gui.ui.sessions.compare_view import CompareView
        from axmem_gui.ui.sessions.viewer import SessionViewer

        for widget in self.page.closable_tabs():
            if isinstance(widget, (SessionViewer, CompareView)):
                widget.set_show_whitespace(show)

    # import / export / delete -------------------------------------------------------
    def import_dialog(self) -> None:
        from axmem_gui.ui.sessions.dialogs import ImportSessionDialog

        paths = ImportSessionDialog.ask(self.shell.dialog_parent, str(self.sessions().folder))
        if paths:
            self.import_files(paths)

    def import_files(self, paths: list[Path]) -> int | None:
        """Import session files on the task runner, all in one job (reading, parsing,
        checking and storing a 30 MB file take seconds): a strip on the page shows its
        progress and can cancel it (nothing is then imported); the status bar and dialogs
        say what came of it, and `import_finished` carries the ids stored. Returns the
        job id (None when nothing was started)."""
        if self.controller.read_only:
            self.error("Cannot import", "this workspace is open read-only")
            return None
        if not paths:
            return None
        cancel = threading.Event()
        if len(paths) == 1:
            title = f"Importing {paths[0].name}"
        else:
            title = f"Importing {len(paths)} session files"
        workspace = self.sessions().jobs()
        kind = job_kinds.ImportJob(self, title, workspace, cancel)
        kind.show_strip()
        return self._submit(jobs.import_job(workspace, paths, cancel), kind)

    def imports_done(self, ids: list[str]) -> None:
        self.import_finished.emit(ids)

    def export_selected(self) -> None:
        viewer = self.current_viewer()
        if viewer is not None:
            self.export_document(viewer.session)
            return
        ids = self.page.selected_ids()
        if len(ids) == 1:
            session = self.sessions().find(ids[0])
            if session is not None:
                self.export_document(session)

    def export_document(self, session: Session) -> Path | None:
        suggested = self.sessions().folder / sessions.default_file_name(session)
        from axmem_gui.ui.sessions.dialogs import ExportSessionDialog

        path = ExportSessionDialog.ask(self.shell.dialog_parent, suggested)
        if path is None:
            return None
        try:
            sessions.write_session_file(session, path)
        except AxmemError as exc:
            self.error("Cannot export the session", str(exc))
            return None
        self.shell.show_message(f"Exported to {path}", STATUS_MS)
        return path

    def delete_selected(self) -> None:
        if self.controller.read_only:
            return
        stored = self.sessions()
        chosen = [s for i in self.page.selected_ids() if (s := stored.find(i)) is not None]
        if not chosen:
            return
        for session in chosen:
            viewer = self.viewers.get(session.id)
            if viewer is not None:
                self.page.close_tab(viewer)
        from axmem_gui.ui.sessions.commands import DeleteSessionsCommand

        def report(message: str) -> None:
            self.error("Cannot restore the sessions", message)

        try:
            self.undo_stack.push(DeleteSessionsCommand(self.sessions, chosen, report))
        except AxmemError as exc:
            self.error("Cannot delete", str(exc))

    # compare / what-if (runs and replays: runs.py) -----------------------------------
    def compare_selected(self) -> None:
        ids = self.page.selected_ids()
        viewer = self.current_viewer()
        if self.page.tabs.currentWidget() is self.page.list_stack and len(ids) == 2:
            self.compare_ids(ids[0], ids[1])
        elif viewer is not None:
            self.compare_with(viewer)
        elif len(ids) == 1:
            self.compare_with_id(ids[0])

    def compare_with(self, viewer: SessionViewer) -> int | None:
        return self.compare_with_id(viewer.session_id, viewer.session)

    def compare_with_id(self, session_id: str, session: Session | None = None) -> int | None:
        rows = self.sessions().rows()
        others = [s for s in rows if s.id != session_id]
        if not others:
            self.page.show_notice("There is no other session to compare with yet.", "info")
            return None
        from axmem_gui.ui.sessions.dialogs import ChooseSessionDialog

        names = {s.id: s.name for s in rows}
        prompt = compare_prompt(session_id, session, names)
        other = ChooseSessionDialog.ask(self.shell.dialog_parent, others, prompt)
        if other is None:
            return None
        return self.compare_ids(session_id, other, session)

    def compare_ids(self, a_id: str, b_id: str, a_session: Session | None = None) -> int | None:
        stored = self.sessions()
        a = a_session if a_session is not None else stored.find(a_id)
        b = stored.find(b_id)
        if a is None or b is None:
            self.error("Cannot compare", f"session '{a_id if a is None else b_id}' is gone")
            return None
        return self._submit(jobs.compare_job(a, b), job_kinds.CompareJob(self, a, b))

    def whatif_current(self) -> None:
        viewer = self.current_viewer()
        if viewer is not None:
            self.whatif(viewer)

    def whatif(self, viewer: SessionViewer) -> int:
        viewer.show_message("Recomputing discover/recall against the current catalog…")
        job = jobs.whatif_job(viewer.session, self.sessions().jobs())
        return self._submit(job, job_kinds.WhatIfJob(self, viewer))

    # analytics ----------------------------------------------------------------------
    def show_usage(self) -> None:
        self.page.tabs.setCurrentWidget(self.page.usage)

    def _on_usage_shown(self) -> None:
        if self.usage_stale:
            self.refresh_usage()

    def refresh_usage(self) -> int:
        self.usage_stale = False
        self.page.usage.summary.setText("Counting…")
        return self._submit(jobs.usage_job(self.sessions().jobs()), job_kinds.UsageJob(self))

    # runner signals: each job's kind takes its outcome --------------------------------
    def _submit(self, job: Job, kind: SessionJob, waits: bool = False) -> int:
        """Run `job` on the task runner; `waits`: it waits on an agent run's child process
        (its own threads: stuck runs never hold up the rest)."""
        job_id = self.runner.submit(job, waits=waits)
        self.jobs[job_id] = kind
        return job_id

    def _on_progress(self, job_id: int, fraction: float, message: str) -> None:
        kind = self.jobs.get(job_id)
        if kind is not None and kind.strip is not None:
            kind.strip.set_progress(fraction, message)

    def _finish(self, job_id: int) -> SessionJob | None:
        kind = self.jobs.pop(job_id, None)
        if kind is not None and kind.strip is not None:
            self.page.remove_strip(kind.strip)
            kind.strip = None
        return kind

    def _on_finished(self, job_id: int, result: object) -> None:
        kind = self._finish(job_id)
        if kind is not None:
            kind.finished(result)

    def _on_failed(self, job_id: int, message: str) -> None:
        kind = self._finish(job_id)
        if kind is not None:
            kind.failed(message)

    def _on_cancelled(self, job_id: int) -> None:
        kind = self._finish(job_id)
        if kind is not None:
            kind.cancelled()


def prepare_page() -> None:
    """The page's modules (the sessions service, the engine and axllm behind it: ~0.5 s
    to import) and what its run dialog's provider form reads, on a job before the first
    build (PageSpec.prepare)."""
    from axmem_gui.ui.sessions import page  # noqa: F401  (imported for its side: loaded)
    from axmem_gui.ui.sessions.provider_form import prepare_provider_form

    prepare_provider_form()


SESSIONS = FeatureSpec("sessions", SessionsFeature)
