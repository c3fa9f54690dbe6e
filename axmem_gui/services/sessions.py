"""Agent sessions as use cases: run live, replay offline, rerun, compare, what-if, and
keep sessions in the workspace or in `.axsession.json` files.

The functions here take plain data (and a cancel token / progress callback for the slow
ones) so the GUI's task runner can call them from a worker thread. The stored sessions
have one owner, `SessionService` (services.session_store, named here too): the GUI and
the CLI list, read, store, import, export and delete them through it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import AxmemError, InputError
from axmem_gui.core.providers import ProviderSettings
from axmem_gui.core.session.agent_config import AgentConfig, check_inputs, select_catalog
from axmem_gui.core.session.app_session import is_app_session, not_here
from axmem_gui.core.session.compare import SessionComparison, compare_sessions
from axmem_gui.core.session.map_settings import overridden_settings, settings_warnings
from axmem_gui.core.session.model import AGENT_RULE, MAP_RULES, Origin, Session
from axmem_gui.core.session.progress import Cancellable, CancelLike, ProgressCallback
from axmem_gui.core.session.replay_check import ReplayReport
from axmem_gui.core.session.verify import VerifyReport
from axmem_gui.core.session.whatif import RetrievalBackend, WhatIfReport, whatif_retrieval
from axmem_gui.engine.clients import CancelToken
from axmem_gui.engine.recorder import RunRequest, record_session
from axmem_gui.engine.replay import check_replayable, verify_session
from axmem_gui.engine.replay import replay_session as _replay
from axmem_gui.engine.search import backend_named
from axmem_gui.services.local_model import LOCAL_PROVIDER, local_provider, unavailable_reason
from axmem_gui.services.providers import build_client

# The service of the stored sessions and the session files (no Ax runtime).
from axmem_gui.services.session_store import FileImport as FileImport
from axmem_gui.services.session_store import ImportProgress as ImportProgress
from axmem_gui.services.session_store import SessionImport as SessionImport
from axmem_gui.services.session_store import SessionImportCancelled as SessionImportCancelled
from axmem_gui.services.session_store import SessionJobs as SessionJobs
from axmem_gui.services.session_store import SessionRow as SessionRow
from axmem_gui.services.session_store import SessionService as SessionService
from axmem_gui.services.session_store import default_file_name as default_file_name
from axmem_gui.services.session_store import read_session_file as read_session_file
from axmem_gui.services.session_store import write_session_file as write_session_file
from axmem_gui.store import Workspace

Transport = Callable[[Mapping[str, Any]], Any]
#: A cancel token of a run, rerun or replay (`cancel_token()`).
Cancel = Cancellable
#: Whose settings a map carried into a run follows (`--map-settings`).
MAP_SETTINGS_RULES = MAP_RULES

# ------------------------------------------------------------------ files ---


# ------------------------------------------------------------------- runs ---


def cancel_token() -> Cancel:
    """What cancels a run, replay or rerun from another thread (`.cancel()`): it also
    aborts a model request in flight."""
    return CancelToken()


def run_agent(
    config: AgentConfig,
    catalog: Catalog,
    inputs: Sequence[Mapping[str, Any]],
    settings: ProviderSettings,
    *,
    context_map: Mapping[str, Any] | str | None = None,
    name: str = "",
    search: RetrievalBackend | str | None = None,
    cancel: CancelLike = None,
    progress: ProgressCallback | None = None,
    transport: Transport | None = None,
    origin: Origin | None = None,
    map_rule: str = AGENT_RULE,
) -> Session:
    """Run `config` live over its share of `catalog`, one forward per inputs mapping, and
    return the recorded session (status "incomplete" with the error if it failed).
    `map_rule`: whose settings a carried `context_map` follows, the agent's (`agent`) or
    its own (`carried`); the session records it and warns when they differ."""
    if not inputs:
        raise InputError("a run needs inputs for at least one forward")
    for i, values in enumerate(inputs):
        check_inputs(config, values, f"inputs of forward {i + 1}")
    backend = search if not isinstance(search, str | type(None)) else backend_named(search)
    request = RunRequest(
        config=config,
        catalog=select_catalog(catalog, config),
        inputs=tuple(dict(v) for v in inputs),
        context_map=dict(context_map) if isinstance(context_map, Mapping) else context_map,
        name=name,
        origin=origin or Origin(kind="live"),
        map_rule=map_rule,
    )
    # `--provider local`: the bundled model, already serving or started for this run.
    with local_provider(settings) as served:
        resolved = build_client(served, transport=transport)
        return record_session(
            request,
            resolved.client,
            resolved.provider,
            backend=backend,
            cancel=cancel,
            progress=progress,
            secrets=resolved.secrets,
            http_attempts=resolved.http_attempts,
        )


def check_can_start(settings: ProviderSettings, *, transport: Transport | None = None) -> None:
    """Refuse (InputError, one clear message) a run that cannot start with `settings`: an
    unknown provider, no model where the provider has no default, no key, the bundled
    model not installed. Builds the client without sending anything."""
    if settings.provider == LOCAL_PROVIDER:
        reason = unavailable_reason()
        if reason is not None:
            raise InputError(reason)
        return
    build_client(settings, transport=transport)


def rerun_session(
    session: Session,
    settings: ProviderSettings,
    *,
    catalog: Catalog | None = None,
    search: RetrievalBackend | str | None = None,
    cancel: CancelLike = None,
    progress: ProgressCallback | None = None,
    transport: Transport | None = None,
    name: str = "",
) -> Session:
    """Run a recorded session's inputs again, as a new session: on another provider/model,
    and/or over another catalog (default: the recorded one). It starts from the same
    context map the recording started from."""
    if is_app_session(session):
        raise InputError(not_here(session, "rerun"))
    config = session.agent.config
    if config is None:
        raise InputError(session.agent.problem)
    if not session.forwards:
        raise InputError(f"session {session.id} has no forwards to rerun")
    return run_agent(
        config,
        catalog if catalog is not None else session.catalog.catalog,
        [dict(f.inputs) for f in session.forwards],
        settings,
        context_map=session.forwards[0].context_map_before,
        name=name or f"rerun of {session.label}",
        search=search,
        cancel=cancel,
        progress=progress,
        transport=transport,
        origin=Origin(
            kind="rerun",
            source_session=session.id,
            catalog="recorded" if catalog is None else "given",
        ),
        map_rule=session.context_map_settings.rule
        if session.context_map_settings is not None
        else AGENT_RULE,
    )


def replay(
    session: Session,
    *,
    cancel: CancelLike = None,
    progress: ProgressCallback | None = None,
) -> ReplayReport:
    """Offline replay (no network). Raises ReplayRefused (an AxmemError) when the recording
    needs another axllm version."""
    return _replay(session, cancel=cancel, progress=progress)


def verify(session: Session) -> VerifyReport:
    """The file-only checks of a session, without running the agent (fast, for CI)."""
    return verify_session(session)


def can_replay(session: Session) -> str | None:
    """None when `session` can be replayed here, else why not (for a disabled button)."""
    try:
        check_replayable(session)
    except AxmemError as exc:
        return str(exc)
    return None


def compare(a: Session, b: Session) -> SessionComparison:
    return compare_sessions(a, b)


def whatif(
    session: Session,
    catalog: Catalog | None = None,
    search: RetrievalBackend | str | None = None,
) -> WhatIfReport:
    """Recompute the session's discover/recall calls against `catalog` (default: the
    recorded one) with no model call."""
    backend = search if not isinstance(search, str | type(None)) else backend_named(search)
    return whatif_retrieval(
        session, catalog if catalog is not None else session.catalog.catalog, backend
    )


def carried_map_warnings(session: Session) -> list[str]:
    """The session's warning that the map it started from carried other settings than
    the ones that applied (empty when none)."""
    config = session.agent.config
    return settings_warnings(
        session.context_map_settings, config.context_map if config is not None else None
    )


def overridden_map_settings(session: Session) -> str:
    """The carried map's settings the agent's replaced (rule 'agent'), "" when none."""
    config = session.agent.config
    return overridden_settings(
        session.context_map_settings, config.context_map if config is not None else None
    )


def claims_warning(session: Session) -> str:
    """ "" when everything the session claims that can be checked without running the
    agent holds (`verify`); otherwise the warning the CLI and the GUI give when they
    import it: "the file does not hold what it claims (N difference(s))"."""
    report = verify(session)
    if report.ok:
        return ""
    return f"the file does not hold what it claims ({len(report.differences)} difference(s))"


def agent_from_workspace(ws: Workspace, name: str) -> AgentConfig:
    """The workspace agent `name`, ready to run (InputError names what is wrong)."""
    from axmem_gui.services.agents import AgentService

    return AgentService(ws).config(name)


def save_session(ws: Workspace, session: Session) -> str:
    return SessionService(ws).save(session)


def import_session(ws: Workspace, path: Path) -> SessionImport:
    return SessionService(ws).import_file(path)
