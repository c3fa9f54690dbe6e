"""Task-runner jobs for sessions: each takes plain data (or the sessions service for a job,
`SessionJobs`, which opens the job's own connection: SQLite connections belong to one
thread), returns plain data, and never touches a widget."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.providers import ConnectionReport, ProviderSettings
from axmem_gui.core.session.agent_config import AgentConfig, select_catalog
from axmem_gui.core.session.analytics import SessionTotals, UsageReport
from axmem_gui.core.session.compare import SessionComparison
from axmem_gui.core.session.model import Session
from axmem_gui.core.session.progress import RunProgress
from axmem_gui.core.session.replay_check import ReplayReport
from axmem_gui.core.session.whatif import WhatIfReport
from axmem_gui.services import sessions
from axmem_gui.services.agent_runner import AgentRunner
from axmem_gui.services.local_model import LOCAL_PROVIDER, local_provider
from axmem_gui.services.providers import check_connection
from axmem_gui.services.sessions import Cancel, FileImport, SessionJobs
from axmem_gui.ui.tasks import Cancelled, Job, JobContext

#: Calls per forward at which the bar is half way: live runs have no known call count.
HALF_WAY_CALLS = 5

#: A catalog at hand, or the workspace's, read by the job that needs it (100,000
#: memories take most of a second to read, which the GUI thread must not spend).
CatalogSource = Catalog | SessionJobs


def read_catalog(source: CatalogSource) -> Catalog:
    return source.catalog() if isinstance(source, SessionJobs) else source


def shared_counts_job(source: CatalogSource, config: AgentConfig) -> Job:
    """How many skills and memories `config` gets of the catalog."""

    def job(ctx: JobContext) -> tuple[int, int]:
        shared = select_catalog(read_catalog(source), config)
        return len(shared.skills), len(shared.memories)

    return job


@dataclass(frozen=True)
class RunOrder:
    """A live run as the run dialog asks for it."""

    agent: AgentConfig
    catalog: CatalogSource
    inputs: tuple[dict[str, Any], ...]
    settings: ProviderSettings
    name: str = ""
    context_map: Mapping[str, Any] | None = None
    #: A failed context-map update: "warn" (the session's banner) or "error" (a dialog).
    map_failure: str = "warn"


@dataclass(frozen=True)
class RerunOrder:
    """Run a recorded session's inputs again (another model and/or today's catalog)."""

    session: Session = field(repr=False)
    settings: ProviderSettings
    catalog: CatalogSource | None = None  # None: the recorded catalog
    name: str = ""


def run_fraction(event: RunProgress, calls_before_forward: int) -> float:
    """Forwards done, plus an easing share of the current forward by its call count."""
    in_forward = max(0, event.calls - calls_before_forward)
    share = in_forward / (in_forward + HALF_WAY_CALLS)
    if event.kind == "forward_finished":
        share = 1.0
    return min(1.0, (event.forward + share) / max(1, event.forwards))


_STATES = {
    "forward_started": "starting",
    "call_started": "waiting for the model",
    "call_finished": "model answered",
    "forward_finished": "forward done",
}


def run_status(event: RunProgress) -> str:
    stage = f" · {event.stage}" if event.stage else ""
    state = _STATES.get(event.kind, event.kind)
    return (
        f"forward {event.forward + 1} of {event.forwards} · {event.calls} call"
        f"{'s' if event.calls != 1 else ''}{stage} · {state}"
    )


class _Progress:
    """Relays the engine's progress events to the job context."""

    def __init__(self, ctx: JobContext) -> None:
        self.ctx = ctx
        self.calls_before_forward = 0

    def __call__(self, event: RunProgress) -> None:
        if event.kind == "forward_started":
            self.calls_before_forward = event.calls
        self.ctx.progress(run_fraction(event, self.calls_before_forward), run_status(event))


def run_job(order: RunOrder, token: Cancel, agents: AgentRunner) -> Job:
    def job(ctx: JobContext) -> Session:
        if order.settings.provider == LOCAL_PROVIDER:
            ctx.progress(0.0, "starting the bundled local model…")
        # Provider "local" starts the bundled model for the run; others pass through.
        with local_provider(order.settings) as resolved:
            return sessions.run_agent(
                order.agent,
                read_catalog(order.catalog),
                list(order.inputs),
                resolved,
                context_map=order.context_map,
                name=order.name,
                cancel=token,
                progress=_Progress(ctx),
                runner=agents,
            )

    return job


def rerun_job(order: RerunOrder, token: Cancel, agents: AgentRunner) -> Job:
    def job(ctx: JobContext) -> Session:
        return sessions.rerun_session(
            order.session,
            order.settings,
            catalog=None if order.catalog is None else read_catalog(order.catalog),
            name=order.name,
            cancel=token,
            progress=_Progress(ctx),
            runner=agents,
        )

    return job


def replay_job(session: Session, token: Cancel, agents: AgentRunner) -> Job:
    def job(ctx: JobContext) -> ReplayReport:
        return sessions.replay(session, cancel=token, progress=_Progress(ctx), runner=agents)

    return job


def compare_job(a: Session, b: Session) -> Job:
    def job(ctx: JobContext) -> SessionComparison:
        return sessions.compare(a, b)

    return job


def whatif_job(session: Session, workspace: SessionJobs) -> Job:
    """What-if against the workspace's catalog, read by the job (100,000 memories take
    most of a second to read: never on the GUI thread)."""

    def job(ctx: JobContext) -> WhatIfReport:
        catalog = workspace.catalog()
        ctx.check()
        return sessions.whatif(session, catalog)

    return job


def usage_job(workspace: SessionJobs) -> Job:
    def job(ctx: JobContext) -> UsageReport:
        return workspace.usage()

    return job


def totals_job(workspace: SessionJobs, ids: Iterable[str]) -> Job:
    wanted = list(ids)

    def job(ctx: JobContext) -> dict[str, SessionTotals]:
        return workspace.totals(wanted)

    return job


def connection_job(settings: ProviderSettings) -> Job:
    def job(ctx: JobContext) -> ConnectionReport:
        return check_connection(settings)

    return job


def import_job(workspace: SessionJobs, files: Sequence[Path], cancel: threading.Event) -> Job:
    """Import session files into the workspace on the job's own connection: reading,
    parsing, checking and storing (in one transaction) are all here, off the GUI thread.
    `cancel` is the import's own flag (the Cancel button, another workspace opened): a
    cancel after the commit must not report an import that happened as cancelled, as
    the runner would. The runner's own cancel (the window closing) stops it too."""
    chosen = tuple(files)

    def job(ctx: JobContext) -> list[FileImport]:
        def stop() -> bool:
            return cancel.is_set() or ctx.cancelled

        try:
            return workspace.import_files(chosen, cancel=stop, progress=ctx.progress)
        except sessions.SessionImportCancelled:
            raise Cancelled() from None

    return job
