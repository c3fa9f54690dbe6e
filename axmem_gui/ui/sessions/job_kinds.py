"""The kinds of job the Sessions page runs, one small class each: what a job is for, and
what becomes of its result, its failure or its cancel.

The feature (controller.py) submits a job and keeps its kind under the runner's job id;
the runner's signals are handed to the kind, which puts the result where it belongs
through the feature (`JobHost`): a live run is saved and opened, a replay report shown in
its viewer, a comparison opened as a tab, an import reported.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Protocol

from axmem_gui.core.errors import AxmemError
from axmem_gui.core.session.analytics import SessionTotals, UsageReport
from axmem_gui.core.session.compare import SessionComparison
from axmem_gui.core.session.model import Session
from axmem_gui.core.session.replay_check import ReplayReport
from axmem_gui.core.session.whatif import WhatIfReport

if TYPE_CHECKING:
    # (the sessions service imports the engine: not before the first paint)
    from PySide6.QtWidgets import QWidget

    from axmem_gui.services.sessions import Cancel, FileImport, SessionJobs, SessionService
    from axmem_gui.ui.feature import Shell
    from axmem_gui.ui.sessions.page import JobStrip, SessionsPage
    from axmem_gui.ui.sessions.viewer import SessionViewer
    from axmem_gui.ui.settings import AppSettings

STATUS_MS = 6000


class JobHost(Protocol):
    """What a job kind may use of the feature."""

    @property
    def page(self) -> SessionsPage: ...

    @property
    def shell(self) -> Shell: ...

    @property
    def settings(self) -> AppSettings: ...

    def sessions(self) -> SessionService: ...

    def error(self, title: str, message: str) -> None: ...

    def open_document(self, session: Session, saved: bool) -> SessionViewer: ...

    def set_whitespace(self, show: bool) -> None: ...

    def update_actions(self) -> None: ...

    def sessions_changed(self) -> None:
        """Tell the window the stored sessions changed (a job's own connection wrote)."""

    def imports_done(self, ids: list[str]) -> None: ...


class SessionJob:
    """A job of the Sessions page. `strip`: its progress line on the page, if it has one;
    `viewer`: the session tab its result goes to (forgotten when the tab closes)."""

    def __init__(self, host: JobHost, title: str = "", token: Cancel | None = None) -> None:
        self.host = host
        self.title = title
        self.token = token
        self.strip: JobStrip | None = None
        self.viewer: SessionViewer | None = None

    def show_strip(self) -> None:
        self.strip = self.host.page.add_strip(self.title, self.cancel)

    def cancel(self) -> None:
        if self.token is not None:
            self.token.cancel()

    def forget(self, widget: QWidget) -> None:
        if self.viewer is widget:
            self.viewer = None  # its result has nowhere to go any more

    def finished(self, result: object) -> None:
        """The job returned `result`."""

    def failed(self, message: str) -> None:
        """The job raised; `message` says what went wrong."""

    def cancelled(self) -> None:
        if self.viewer is not None:
            self.viewer.set_busy(False)
            self.viewer.show_message("Cancelled.", "info")


class RunJob(SessionJob):
    """A live run or a rerun: the session it recorded is saved and opened (in the
    workspace it began in, when another one was opened meanwhile)."""

    def __init__(
        self,
        host: JobHost,
        title: str,
        token: Cancel,
        workspace: SessionJobs,
        map_failure: str = "warn",
    ) -> None:
        super().__init__(host, title, token)
        self.workspace = workspace
        self.map_failure = map_failure

    def finished(self, result: object) -> None:
        assert isinstance(result, Session)
        host, session = self.host, result
        here = self.workspace == host.sessions().jobs()
        saved = True
        try:
            if here:
                host.sessions().save(session)
            else:  # the user opened another workspace meanwhile: keep it where it began
                self.workspace.save(session)
        except AxmemError as exc:
            saved = False
            host.page.show_notice(f"The session was not saved: {exc}", "error")
        if not here:
            host.shell.show_message(f"Session saved to {self.workspace.location}", STATUS_MS)
            return
        viewer = host.open_document(session, saved)
        failed_maps = [w for w in session.warning_list if "context-map update failed" in w]
        if failed_maps and self.map_failure == "error":
            host.error(
                "Context-map update failed",
                "\n".join(failed_maps) + "\n\nThe session was kept; its map was left unchanged.",
            )
        calls = len(session.exchanges)
        if session.complete:
            host.shell.show_message(f"Recorded {calls} model calls: {session.name}", STATUS_MS)
            return
        from axmem_gui.ui.sessions.texts import error_text

        message = error_text(session.error) or "the run ended early"
        kept = "saved, marked incomplete" if saved else "kept in the viewer, not saved"
        cancelled = session.error is not None and session.error.kind == "cancelled"
        host.page.show_notice(
            f"{self.title}: the run ended early — {message}. The partial session "
            f"({calls} model calls) was {kept}.",
            "warn" if cancelled else "error",
        )
        viewer.show_message(f"Incomplete session: {message}", "warn")

    def failed(self, message: str) -> None:
        self.host.page.show_notice(f"{self.title}: {message}", "error")
        self.host.error("Cannot run the agent", message)


class ReplayJob(SessionJob):
    def __init__(self, host: JobHost, title: str, token: Cancel, viewer: SessionViewer) -> None:
        super().__init__(host, title, token)
        self.viewer = viewer

    def finished(self, result: object) -> None:
        assert isinstance(result, ReplayReport)
        if self.viewer is not None:
            self.viewer.set_busy(False)
            self.viewer.show_replay(result)

    def failed(self, message: str) -> None:
        if self.viewer is not None:
            self.viewer.set_busy(False)
            self.viewer.show_replay_error(message)


class WhatIfJob(SessionJob):
    def __init__(self, host: JobHost, viewer: SessionViewer) -> None:
        super().__init__(host)
        self.viewer = viewer

    def finished(self, result: object) -> None:
        assert isinstance(result, WhatIfReport)
        if self.viewer is None:
            return
        self.viewer.show_whatif(result)
        self.viewer.show_message(
            "What-if: retrieval would differ with the current catalog (see the What-if tab)."
            if result.changed
            else "What-if: the current catalog loads the same entries for every search.",
            "warn" if result.changed else "ok",
        )

    def failed(self, message: str) -> None:
        if self.viewer is not None:
            self.viewer.show_message(f"What-if failed: {message}", "error")


class CompareJob(SessionJob):
    def __init__(self, host: JobHost, a: Session, b: Session) -> None:
        super().__init__(host)
        self.a, self.b = a, b

    def finished(self, result: object) -> None:
        assert isinstance(result, SessionComparison)
        from axmem_gui.ui.sessions.compare_view import CompareView

        host = self.host
        view = CompareView(self.a, self.b, result)
        view.set_show_whitespace(host.settings.show_whitespace())
        view.whitespace_changed.connect(host.set_whitespace)
        host.page.add_tab(view, f"A/B: {self.a.label} · {self.b.label}")
        host.update_actions()

    def failed(self, message: str) -> None:
        self.host.error("Cannot compare the sessions", message)


class UsageJob(SessionJob):
    def finished(self, result: object) -> None:
        assert isinstance(result, UsageReport)
        self.host.page.usage.set_report(result)

    def failed(self, message: str) -> None:
        self.host.page.usage.show_error(message)


class TotalsJob(SessionJob):
    """The token totals of the listed sessions (the column keeps its "…" on failure:
    nothing the user must act on)."""

    def finished(self, result: object) -> None:
        assert isinstance(result, dict)
        totals: dict[str, SessionTotals] = result
        self.host.page.model.set_totals(totals)


class ImportJob(SessionJob):
    """Session files imported in one job; `cancel_flag` is the import's own (a cancel
    after the commit must not report an import that happened as cancelled)."""

    def __init__(
        self, host: JobHost, title: str, workspace: SessionJobs, cancel_flag: threading.Event
    ) -> None:
        super().__init__(host, title)
        self.workspace = workspace
        self.cancel_flag = cancel_flag

    def cancel(self) -> None:
        self.cancel_flag.set()

    def finished(self, result: object) -> None:
        assert isinstance(result, list)
        outcomes: list[FileImport] = result
        self.host.imports_done(self._report(outcomes))

    def failed(self, message: str) -> None:
        self.host.shell.show_message("Nothing imported.", STATUS_MS)
        self.host.error("Cannot import", message)
        self.host.imports_done([])

    def cancelled(self) -> None:
        self.host.shell.show_message("Import cancelled: nothing imported.", STATUS_MS)
        self.host.imports_done([])

    def _report(self, outcomes: list[FileImport]) -> list[str]:
        host = self.host
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
        here = self.workspace == host.sessions().jobs()
        if imported and here:
            host.sessions_changed()
        if imported or already:
            message = import_message(len(imported), len(already))
            if renamed:
                message = f"{message[:-1]}; {'; '.join(renamed)}."
            if here:
                host.page.show_list()
                host.page.select_ids([*imported, *already])
            else:  # another workspace was opened after the import had committed
                message = f"{message[:-1]} (into {self.workspace.location})."
            host.shell.show_message(message, STATUS_MS)
        elif errors:
            host.shell.show_message("Nothing imported.", STATUS_MS)
        if warnings:
            host.page.show_notice("\n".join(warnings), "warn")
        if errors:
            host.error("Cannot import", "\n\n".join(errors))
        return imported


def import_message(imported: int, already: int) -> str:
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
