"""The sessions feature: fills the Sessions page from the workspace, runs every slow
action (live runs, reruns, replays, comparisons, what-if, analytics) on the task runner,
and puts the results where they belong.

The GUI thread owns the workspace connection: jobs get plain data (or open their own
read-only connection), return plain data, and the results are saved here.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

from axmem_gui.core.errors import AxmemError, InputError
from axmem_gui.ui.actions import make_action
from axmem_gui.ui.dialogs import ErrorDialog
from axmem_gui.ui.feature import Contributions, FeatureContext, FeatureSpec, MenuPlace, PageSpec
from axmem_gui.ui.lazy import lazy_module

if TYPE_CHECKING:
    # The page, its views and the engine behind them (axllm) are imported when the page is
    # first built or an action first runs, not when the window is wired (first paint).
    from axmem_gui.core.providers import ProviderSettings
    from axmem_gui.engine.clients import CancelToken
    from axmem_gui.services import sessions
    from axmem_gui.store import Workspace
    from axmem_gui.ui.sessions import jobs
    from axmem_gui.ui.sessions.page import JobStrip, SessionsPage
    from axmem_gui.ui.sessions.viewer import SessionViewer
    from axmem_gui.ui.tasks import Job
else:
    sessions = lazy_module("axmem_gui.services.sessions")
    jobs = lazy_module("axmem_gui.ui.sessions.jobs")

STATUS_MS = 6000


@dataclass
class _Job:
    kind: str  # run | replay | compare | whatif | usage | totals | import
    title: str = ""
    strip: JobStrip | None = None
    token: CancelToken | None = None
    workspace_path: Path | None = None
    viewer: SessionViewer | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def compare_prompt(
    session_id: str, doc: Mapping[str, Any] | None, names: Mapping[str, str | None]
) -> str:
    """The picker's question, naming session A as the list shows it (its name, the id
    only when it has none)."""
    name = doc.get("name") if doc is not None else None
    if not name:
        name = names.get(session_id)
    label = f"“{name}”" if name else session_id
    return f"Compare {label} (A) with which session (B)?"


class SessionsFeature(QObject):
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
        #: Built when the page is first shown or read (`page`), not before the first paint.
        self._page: SessionsPage | None = None
        self.viewers: dict[str, SessionViewer] = {}
        self.jobs: dict[int, _Job] = {}
        self.usage_stale = True
        self._last_settings: ProviderSettings | None = None
        #: Agent config revisions this window's undoable edits last wrote, by name.
        self._agent_revisions: dict[str, int] = {}

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
        return Contributions(pages=[PageSpec("sessions", "Sessions", build=lambda: self.page)])

    def shutdown(self) -> None:
        self.cancel_all()

    def _on_changed(self, what: str) -> None:
        if what in ("*", "sessions", "contextmaps"):
            self.reload()

    # helpers ------------------------------------------------------------------------
    @property
    def ws(self) -> Workspace:
        # The store itself until sessions and agents have services of their own (#27).
        from axmem_gui.services.store_access import store_of

        return store_of(self.controller.workspace)

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
        for action in (self.replay_action, self.rerun_action, self.whatif_action):
            action.setEnabled(viewer is not None)

    def current_viewer(self) -> SessionViewer | None:
        if self._page is None:
            return None
        widget = self._page.tabs.currentWidget()
        from axmem_gui.ui.sessions.viewer import SessionViewer

        return widget if isinstance(widget, SessionViewer) else None

    def _error(self, title: str, message: str) -> None:
        ErrorDialog.show(self.shell.dialog_parent, title, message)

    def cancel_all(self) -> None:
        for job in self.jobs.values():
            if job.token is not None:
                job.token.cancel()
        self._cancel_imports()
        self.runner.cancel_all()

    def _cancel_imports(self) -> None:
        for job in self.jobs.values():
            if job.kind == "import":
                job.extra["cancel"].set()

    # list ---------------------------------------------------------------------------
    def reload(self) -> None:
        if self._page is None:  # the page reads the workspace when it is built
            self.update_actions()
            return
        selected = self.page.selected_ids()
        summaries = self.ws.sessions.list()
        self.page.model.set_sessions(summaries)
        self.page.update_empty()
        self.page.select_ids(selected)
        missing = self.page.model.missing_totals()
        if missing:
            self._submit(jobs.totals_job(self.ws.path, missing), _Job("totals"))
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

    def _changed(self) -> None:
        self.controller.notify_changed("sessions")

    # opening ------------------------------------------------------------------------
    def open_selected(self) -> None:
        for session_id in self.page.selected_ids():
            self.open_session(session_id)

    def open_session(self, session_id: str) -> SessionViewer | None:
        viewer = self.viewers.get(session_id)
        if viewer is not None:
            self.page.tabs.setCurrentWidget(viewer)
            return viewer
        doc = self.ws.sessions.get(session_id)
        if doc is None:
            self._error("Cannot open session", f"no session '{session_id}' in {self.ws.path}")
            self.reload()
            return None
        return self.open_document(doc, saved=True)

    def open_document(self, doc: Mapping[str, Any], saved: bool) -> SessionViewer:
        session_id = str(doc.get("id"))
        old = self.viewers.pop(session_id, None)
        if old is not None:
            self.page.close_tab(old)
        from axmem_gui.ui.sessions.viewer import SessionViewer

        viewer = SessionViewer(doc, saved)
        viewer.set_show_whitespace(self.settings.show_whitespace())
        viewer.set_replay_allowed(sessions.can_replay(doc))
        viewer.replay_requested.connect(lambda v=viewer: self.replay(v))
        viewer.rerun_requested.connect(lambda v=viewer: self.rerun(v))
        viewer.compare_requested.connect(lambda v=viewer: self.compare_with(v))
        viewer.whatif_requested.connect(lambda v=viewer: self.whatif(v))
        viewer.export_requested.connect(lambda v=viewer: self.export_document(v.doc))
        viewer.whitespace_changed.connect(self._set_whitespace)
        self.viewers[session_id] = viewer
        self.page.add_tab(viewer, str(doc.get("name") or session_id), session_id)
        self.update_actions()
        return viewer

    def _on_tab_closed(self, widget: QWidget) -> None:
        for session_id, viewer in list(self.viewers.items()):
            if viewer is widget:
                del self.viewers[session_id]
        for job in self.jobs.values():
            if job.viewer is widget:
                job.viewer = None  # its result has nowhere to go any more
        self.update_actions()

    def _set_whitespace(self, show: bool) -> None:
        self.settings.set_show_whitespace(show)
        from axmem_gui.ui.sessions.compare_view import CompareView
        from axmem_gui.ui.sessions.viewer import SessionViewer

        for widget in self.page.closable_tabs():
            if isinstance(widget, (SessionViewer, CompareView)):
                widget.set_show_whitespace(show)

    # import / export / delete -------------------------------------------------------
    def import_dialog(self) -> None:
        from axmem_gui.ui.sessions.dialogs import ImportSessionDialog

        paths = ImportSessionDialog.ask(self.shell.dialog_parent, str(self.ws.path.parent))
        if paths:
            self.import_files(paths)

    def import_files(self, paths: list[Path]) -> int | None:
        """Import session files on the task runner, all in one job (reading, parsing,
        checking and storing a 30 MB file take seconds): a strip on the page shows its
        progress and can cancel it (nothing is then imported); the status bar and dialogs
        say what came of it, and `import_finished` carries the ids stored. Returns the
        job id (None when nothing was started)."""
        if self.controller.read_only:
            self._error("Cannot import", "this workspace is open read-only")
            return None
        if not paths:
            return None
        cancel = threading.Event()
        if len(paths) == 1:
            title = f"Importing {paths[0].name}"
        else:
            title = f"Importing {len(paths)} session files"
        path = self.ws.path
        info = _Job("import", title, workspace_path=path, extra={"cancel": cancel})
        info.strip = self.page.add_strip(title, cancel.set)
        return self._submit(jobs.import_job(path, paths, cancel), info)

    def _imported(self, info: _Job, outcomes: list[sessions.FileImport]) -> list[str]:
        imported: list[str] = []
        already: list[str] = []
        renamed: list[str] = []  # "<its id> (taken): kept as <id>"
        warnings: list[str] = []
        errors: list[str] = []
        for outcome in outcomes:
            if outcome.result is None:
                errors.append(outcome.error)
                continue
            session_id, stored, taken = outcome.result
            (imported if stored else already).append(session_id)
            if taken and stored:
                renamed.append(f"id {taken} is taken by another session: kept as {session_id}")
            if outcome.warning:
                warnings.append(
                    f"Session {session_id} from {outcome.path}: {outcome.warning}; "
                    "Replay Session (or `axmem verify FILE`) shows them."
                )
        here = info.workspace_path == self.ws.path
        if imported and here:
            self._changed()
        if imported or already:
            message = _import_message(len(imported), len(already))
            if renamed:
                message = f"{message[:-1]}; {'; '.join(renamed)}."
            if here:
                self.page.show_list()
                self.page.select_ids([*imported, *already])
            else:  # another workspace was opened after the import had committed
                message = f"{message[:-1]} (into {info.workspace_path})."
            self.shell.show_message(message, STATUS_MS)
        elif errors:
            self.shell.show_message("Nothing imported.", STATUS_MS)
        if warnings:
            self.page.show_notice("\n".join(warnings), "warn")
        if errors:
            self._error("Cannot import", "\n\n".join(errors))
        return imported

    def export_selected(self) -> None:
        viewer = self.current_viewer()
        if viewer is not None:
            self.export_document(viewer.doc)
            return
        ids = self.page.selected_ids()
        if len(ids) == 1:
            doc = self.ws.sessions.get(ids[0])
            if doc is not None:
                self.export_document(doc)

    def export_document(self, doc: Mapping[str, Any]) -> Path | None:
        suggested = self.ws.path.parent / sessions.default_file_name(doc)
        from axmem_gui.ui.sessions.dialogs import ExportSessionDialog

        path = ExportSessionDialog.ask(self.shell.dialog_parent, suggested)
        if path is None:
            return None
        try:
            sessions.write_session_file(doc, path)
        except AxmemError as exc:
            self._error("Cannot export the session", str(exc))
            return None
        self.shell.show_message(f"Exported to {path}", STATUS_MS)
        return path

    def delete_selected(self) -> None:
        if self.controller.read_only:
            return
        docs = [d for i in self.page.selected_ids() if (d := self.ws.sessions.get(i)) is not None]
        if not docs:
            return
        for doc in docs:
            viewer = self.viewers.get(str(doc["id"]))
            if viewer is not None:
                self.page.close_tab(viewer)
        try:
            from axmem_gui.ui.sessions.commands import DeleteSessionsCommand

            self.undo_stack.push(DeleteSessionsCommand(lambda: self.ws, docs, self._changed))
        except AxmemError as exc:
            self._error("Cannot delete", str(exc))

    # runs ---------------------------------------------------------------------------
    def default_settings(self) -> ProviderSettings | None:
        if self._last_settings is not None:
            return self._last_settings
        try:
            return self.controller.workspace.settings.read().last_provider
        except AxmemError:
            return None

    def _remember(self, settings: ProviderSettings) -> None:
        self._last_settings = settings
        if not self.controller.read_only:
            with contextlib.suppress(AxmemError):  # only a convenience
                self.controller.workspace.settings.set_last_provider(settings)  # never a key

    def run_agent(self) -> int | None:
        from axmem_gui.ui.sessions.run_dialog import RunAgentDialog

        order = RunAgentDialog.ask(
            self.shell.dialog_parent,
            self.ws,
            self.runner,
            self.default_settings(),
            on_agents_changed=lambda: self.controller.notify_changed("agents"),
            save_agent=self.save_agent,
        )
        return self.start_run(order) if order is not None else None

    def save_agent(
        self, before: tuple[str, int, dict[str, Any]] | None, config: dict[str, Any] | None
    ) -> None:
        """Create, edit or delete (`config` None) an agent config as a command on the main
        undo stack (Ctrl+Z undoes it like a catalog edit). Raises InputError when it cannot
        be applied."""
        errors: list[str] = []
        from axmem_gui.ui.sessions.commands import AgentCommand

        command = AgentCommand(
            lambda: self.ws,
            before,
            config,
            self._agent_revisions,
            lambda: self.controller.notify_changed("agents"),
            errors.append,
        )
        self.undo_stack.push(command)
        command.set_report(lambda message: self._error("Agent config", message))
        if errors:
            raise InputError(errors[0])

    def start_run(self, order: jobs.RunOrder) -> int:
        self._remember(order.settings)
        from axmem_gui.engine.clients import CancelToken

        token = CancelToken()
        title = f"Running {order.agent.name} on {order.settings.model or order.settings.provider}"
        return self._start_live(
            jobs.run_job(order, token), token, title, {"map_failure": order.map_failure}
        )

    def rerun_current(self) -> None:
        viewer = self.current_viewer()
        if viewer is not None:
            self.rerun(viewer)

    def rerun(self, viewer: SessionViewer) -> int | None:
        from axmem_gui.ui.sessions.run_dialog import RerunDialog

        path = self.ws.path
        order = RerunDialog.ask(
            self.shell.dialog_parent, viewer.doc, self.runner, lambda: jobs.WorkspaceCatalog(path)
        )
        return self.start_rerun(order) if order is not None else None

    def start_rerun(self, order: jobs.RerunOrder) -> int:
        self._remember(order.settings)
        from axmem_gui.engine.clients import CancelToken

        token = CancelToken()
        title = f"Rerunning {order.session.get('name') or order.session.get('id')}"
        return self._start_live(jobs.rerun_job(order, token), token, title)

    def _start_live(
        self, job: Job, token: CancelToken, title: str, extra: dict[str, Any] | None = None
    ) -> int:
        info = _Job("run", title, token=token, workspace_path=self.ws.path, extra=dict(extra or {}))
        info.strip = self.page.add_strip(title, token.cancel)
        return self._submit(job, info)

    def _submit(self, job: Job, info: _Job) -> int:
        job_id = self.runner.submit(job)  # the runner pauses cyclic GC while jobs run
        self.jobs[job_id] = info
        return job_id

    def _save_run(self, info: _Job, doc: dict[str, Any]) -> None:
        saved = True
        try:
            if info.workspace_path is None or info.workspace_path == self.ws.path:
                sessions.save_session(self.ws, doc)
            else:  # the user opened another workspace meanwhile: keep it where it began
                from axmem_gui.services.store_access import store_of
                from axmem_gui.services.workspace import open_workspace

                with open_workspace(info.workspace_path) as ws:
                    sessions.save_session(store_of(ws), doc)
        except AxmemError as exc:
            saved = False
            self.page.show_notice(f"The session was not saved: {exc}", "error")
        if saved:
            self._changed()
        if info.workspace_path not in (None, self.ws.path):
            self.shell.show_message(f"Session saved to {info.workspace_path}", STATUS_MS)
            return
        viewer = self.open_document(doc, saved)
        failed_maps = [w for w in doc.get("warnings") or [] if "context-map update failed" in w]
        if failed_maps and info.extra.get("map_failure") == "error":
            self._error(
                "Context-map update failed",
                "\n".join(failed_maps) + "\n\nThe session was kept; its map was left unchanged.",
            )
        if doc.get("status") == "complete":
            calls = len(doc.get("exchanges") or [])
            self.shell.show_message(f"Recorded {calls} model calls: {doc.get('name')}", STATUS_MS)
            return
        from axmem_gui.ui.sessions.texts import error_text

        message = error_text(doc.get("error")) or "the run ended early"
        calls = len(doc.get("exchanges") or [])
        kept = "saved, marked incomplete" if saved else "kept in the viewer, not saved"
        self.page.show_notice(
            f"{info.title}: the run ended early — {message}. The partial session "
            f"({calls} model calls) was {kept}.",
            "error" if (doc.get("error") or {}).get("kind") != "cancelled" else "warn",
        )
        viewer.show_message(f"Incomplete session: {message}", "warn")

    # replay / compare / what-if -----------------------------------------------------
    def replay_current(self) -> None:
        viewer = self.current_viewer()
        if viewer is not None:
            self.replay(viewer)

    def replay(self, viewer: SessionViewer) -> int | None:
        reason = sessions.can_replay(viewer.doc)
        if reason is not None:
            viewer.show_replay_error(reason)
            return None
        from axmem_gui.engine.clients import CancelToken

        token = CancelToken()
        title = f"Replaying {viewer.doc.get('name') or viewer.session_id}"
        info = _Job("replay", title, token=token, viewer=viewer)
        info.strip = self.page.add_strip(title, token.cancel)
        viewer.set_busy(True)
        viewer.show_message("Replaying offline…", "info")
        return self._submit(jobs.replay_job(viewer.doc, token), info)

    def compare_selected(self) -> None:
        ids = self.page.selected_ids()
        viewer = self.current_viewer()
        if self.page.tabs.currentWidget() is self.page.list_stack and len(ids) == 2:
            self.compare_ids(ids[0], ids[1])
        elif viewer is not None:
            self.compare_with(viewer)
        elif len(ids) == 1:
            self.compare_with_id(ids[0])

    def edit_agents(self) -> None:
        from axmem_gui.ui.sessions.agents_dialog import AgentConfigsDialog

        if AgentConfigsDialog.show_for(self.shell.dialog_parent, self.ws, self.save_agent):
            self.controller.notify_changed("agents")

    def compare_with(self, viewer: SessionViewer) -> int | None:
        return self.compare_with_id(viewer.session_id, viewer.doc)

    def compare_with_id(self, session_id: str, doc: Mapping[str, Any] | None = None) -> int | None:
        others = [s for s in self.ws.sessions.list() if s.id != session_id]
        if not others:
            self.page.show_notice("There is no other session to compare with yet.", "info")
            return None
        from axmem_gui.ui.sessions.dialogs import ChooseSessionDialog

        other = ChooseSessionDialog.ask(
            self.shell.dialog_parent,
            others,
            compare_prompt(session_id, doc, {s.id: s.name for s in self.ws.sessions.list()}),
        )
        if other is None:
            return None
        return self.compare_ids(session_id, other, doc)

    def compare_ids(
        self, a_id: str, b_id: str, a_doc: Mapping[str, Any] | None = None
    ) -> int | None:
        a = a_doc if a_doc is not None else self.ws.sessions.get(a_id)
        b = self.ws.sessions.get(b_id)
        if a is None or b is None:
            self._error("Cannot compare", f"session '{a_id if a is None else b_id}' is gone")
            return None
        info = _Job("compare", extra={"a": a, "b": b})
        return self._submit(jobs.compare_job(a, b), info)

    def whatif_current(self) -> None:
        viewer = self.current_viewer()
        if viewer is not None:
            self.whatif(viewer)

    def whatif(self, viewer: SessionViewer) -> int:
        viewer.show_message("Recomputing discover/recall against the current catalog…")
        info = _Job("whatif", viewer=viewer)
        return self._submit(jobs.whatif_job(viewer.doc, self.ws.path), info)

    # analytics ----------------------------------------------------------------------
    def show_usage(self) -> None:
        self.page.tabs.setCurrentWidget(self.page.usage)

    def _on_usage_shown(self) -> None:
        if self.usage_stale:
            self.refresh_usage()

    def refresh_usage(self) -> int:
        self.usage_stale = False
        self.page.usage.summary.setText("Counting…")
        return self._submit(jobs.usage_job(self.ws.path), _Job("usage"))

    # runner signals -----------------------------------------------------------------
    def _on_progress(self, job_id: int, fraction: float, message: str) -> None:
        info = self.jobs.get(job_id)
        if info is not None and info.strip is not None:
            info.strip.set_progress(fraction, message)

    def _finish(self, job_id: int) -> _Job | None:
        info = self.jobs.pop(job_id, None)
        if info is None:
            return None
        if info.strip is not None:
            self.page.remove_strip(info.strip)
            info.strip = None
        return info

    def _on_finished(self, job_id: int, result: object) -> None:
        info = self._finish(job_id)
        if info is None:
            return
        if info.kind == "run":
            assert isinstance(result, dict)
            self._save_run(info, result)
        elif info.kind == "import":
            assert isinstance(result, list)
            self.import_finished.emit(self._imported(info, result))
        elif info.kind == "totals":
            assert isinstance(result, dict)
            self.page.model.set_totals(result)
        elif info.kind == "usage":
            self.page.usage.set_report(result)  # type: ignore[arg-type]
        elif info.kind == "compare":
            a, b = info.extra["a"], info.extra["b"]
            from axmem_gui.ui.sessions.compare_view import CompareView

            view = CompareView(a, b, result)  # type: ignore[arg-type]
            view.set_show_whitespace(self.settings.show_whitespace())
            view.whitespace_changed.connect(self._set_whitespace)
            self.page.add_tab(
                view,
                f"A/B: {a.get('name') or a.get('id')} · {b.get('name') or b.get('id')}",
            )
            self.update_actions()
        elif info.viewer is not None and info.kind == "replay":
            info.viewer.set_busy(False)
            info.viewer.show_replay(result)  # type: ignore[arg-type]
        elif info.viewer is not None and info.kind == "whatif":
            info.viewer.show_whatif(result)  # type: ignore[arg-type]
            info.viewer.show_message(
                "What-if: retrieval would differ with the current catalog (see the What-if tab)."
                if result.changed  # type: ignore[attr-defined]
                else "What-if: the current catalog loads the same entries for every search.",
                "warn" if result.changed else "ok",  # type: ignore[attr-defined]
            )

    def _on_failed(self, job_id: int, message: str) -> None:
        info = self._finish(job_id)
        if info is None:
            return
        if info.kind == "run":
            self.page.show_notice(f"{info.title}: {message}", "error")
            self._error("Cannot run the agent", message)
        elif info.kind == "replay" and info.viewer is not None:
            info.viewer.set_busy(False)
            info.viewer.show_replay_error(message)
        elif info.kind == "whatif" and info.viewer is not None:
            info.viewer.show_message(f"What-if failed: {message}", "error")
        elif info.kind == "usage":
            self.page.usage.show_error(message)
        elif info.kind == "compare":
            self._error("Cannot compare the sessions", message)
        elif info.kind == "import":
            self.shell.show_message("Nothing imported.", STATUS_MS)
            self._error("Cannot import", message)
            self.import_finished.emit([])
        # totals: the column keeps its "…"; nothing the user must act on

    def _on_cancelled(self, job_id: int) -> None:
        info = self._finish(job_id)
        if info is not None and info.kind == "import":
            self.shell.show_message("Import cancelled: nothing imported.", STATUS_MS)
            self.import_finished.emit([])
        if info is not None and info.viewer is not None:
            info.viewer.set_busy(False)
            info.viewer.show_message("Cancelled.", "info")


SESSIONS = FeatureSpec("sessions", SessionsFeature)


def _import_message(imported: int, already: int) -> str:
    """ "Imported 2 sessions; 1 was already in the workspace." and the like."""
    parts = []
    if imported:
        parts.append(f"Imported {imported} session{'s' if imported != 1 else ''}")
    if already:
        was = "was" if already == 1 else "were"
        if imported:
            parts.append(f"{already} {was} already in the workspace")
        else:
            noun = "That session is" if already == 1 else f"All {already} sessions are"
            parts.append(f"{noun} already in the workspace: nothing imported")
    return "; ".join(parts) + "."
