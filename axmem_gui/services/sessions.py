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
from axmem_gui.core.session.code_limits import CodeLimits as CodeLimits
from axmem_gui.core.session.compare import SessionComparison, compare_sessions
from axmem_gui.core.session.format import session_to_json
from axmem_gui.core.session.map_records import AGENT_RULE, MAP_RULES
from axmem_gui.core.session.map_settings import overridden_settings, settings_warnings
from axmem_gui.core.session.model import Origin, Session
from axmem_gui.core.session.progress import Cancellable, CancelLike, ProgressCallback
from axmem_gui.core.session.redact import url_secrets
from axmem_gui.core.session.replay_check import ReplayReport
from axmem_gui.core.session.verify import VerifyReport
from axmem_gui.core.session.whatif import RetrievalBackend, WhatIfReport, whatif_retrieval
from axmem_gui.core.wording import counted
from axmem_gui.engine.clients import CancelToken
from axmem_gui.engine.recorder import RunRequest, RunTaps, new_session_id, record_session
from axmem_gui.engine.replay import check_replayable, verify_session
from axmem_gui.engine.replay import replay_session as _replay
from axmem_gui.engine.scripted_model import ScriptedTransport
from axmem_gui.engine.search import backend_named
from axmem_gui.services.agent_protocol import LiveJob, ReplayJob
from axmem_gui.services.agent_runner import AgentRunner
from axmem_gui.services.local_model import LOCAL_PROVIDER, local_provider, unavailable_reason
from axmem_gui.services.providers import ResolvedKey, build_client, resolve_api_key

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
    limits: CodeLimits | None = None,
    clock_ms: float | None = None,
    runner: AgentRunner | None = None,
) -> Session:
    """Run `config` live over its share of `catalog`, one forward per inputs mapping, and
    return the recorded session (status "incomplete" with the error if it failed).
    `map_rule`: whose settings a carried `context_map` follows, the agent's (`agent`) or
    its own (`carried`); the session records it and warns when they differ. The model's
    code runs under `limits` (the defaults when None; `clock_ms` stops its clock, for
    tests). With a `runner`, the run happens in a child process (services.agent_runner)
    that may crash or be stopped without taking this one along; a `search` backend object
    or a `transport` other than the scripted model's keep it here."""
    if not inputs:
        raise InputError("a run needs inputs for at least one forward")
    for i, values in enumerate(inputs):
        check_inputs(config, values, f"inputs of forward {i + 1}")
    # `--provider local`: the bundled model, already serving or started for this run.
    with local_provider(settings) as served:
        key = resolve_api_key(served)
        job = LiveJob(
            session_id=new_session_id(),
            config=config,
            catalog=catalog,
            inputs=tuple(dict(v) for v in inputs),
            settings=served,
            api_key=key.value,
            key_source=key.source,
            context_map=dict(context_map) if isinstance(context_map, Mapping) else context_map,
            name=name,
            origin=origin or Origin(kind="live"),
            search=search if isinstance(search, str) else None,
            limits=(limits or CodeLimits()).checked(),
            clock_ms=clock_ms,
            scripted_code=scripted_code(transport),
            map_rule=map_rule,
        )
        given_backend = not isinstance(search, str | type(None))
        isolable = not given_backend and (transport is None or job.scripted_code is not None)
        if runner is not None and isolable:
            secrets = (key.value or "", *url_secrets(served.base_url))
            return runner.run_live(job, cancel=cancel, progress=progress, secrets=secrets)
        backend = search if not isinstance(search, str | type(None)) else backend_named(search)
        return record_live(
            job, transport=transport, backend=backend, cancel=cancel, progress=progress
        )


def record_live(
    job: LiveJob,
    *,
    transport: Transport | None = None,
    backend: RetrievalBackend | None = None,
    cancel: CancelLike = None,
    progress: ProgressCallback | None = None,
    taps: RunTaps | None = None,
) -> Session:
    """Record `job` in this process (what the child of a runner does with it)."""
    if transport is None and job.scripted_code is not None:
        transport = ScriptedTransport(list(job.scripted_code))
    key = ResolvedKey(job.api_key, dict(job.key_source or {"kind": "none"}))
    resolved = build_client(job.settings, transport=transport, key=key)
    request = RunRequest(
        config=job.config,
        catalog=select_catalog(job.catalog, job.config),
        inputs=job.inputs,
        context_map=job.context_map,
        name=job.name,
        origin=job.origin or Origin(kind="live"),
        map_rule=job.map_rule,
    )
    return record_session(
        request,
        resolved.client,
        resolved.provider,
        backend=backend or backend_named(job.search),
        cancel=cancel,
        progress=progress,
        secrets=resolved.secrets,
        http_attempts=resolved.http_attempts,
        session_id=job.session_id,
        limits=job.limits,
        clock_ms=job.clock_ms,
        taps=taps,
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


def scripted_code(transport: Transport | None) -> tuple[str, ...] | None:
    """The code the scripted model's transport will write, when it is one (it can be
    played in a child process); None for any other transport."""
    if isinstance(transport, ScriptedTransport) and transport.count == 0:
        return tuple(transport.actor_code)
    return None


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
    limits: CodeLimits | None = None,
    runner: AgentRunner | None = None,
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
        limits=limits,
        runner=runner,
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
    clock_ms: float | None = None,
    runner: AgentRunner | None = None,
) -> ReplayReport:
    """Offline replay (no network), the model's code under the recorded limits; in a
    child process with a `runner`. Raises ReplayRefused (an AxmemError) when the recording
    needs another axllm version or asks for limits outside the cage's bounds."""
    if runner is not None:
        check_replayable(session)  # (said here, before a process starts)
        job = ReplayJob(session_to_json(session), clock_ms=clock_ms)
        return runner.run_replay(job, limits=session.limits, cancel=cancel, progress=progress)
    return _replay(session, cancel=cancel, progress=progress, clock_ms=clock_ms)


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
    import it: "the file does not hold what it claims (N differences)"."""
    report = verify(session)
    if report.ok:
        return ""
    found = counted(len(report.differences), "difference")
    return f"the file does not hold what it claims ({found})"


def agent_from_workspace(ws: Workspace, name: str) -> AgentConfig:
    """The workspace agent `name`, ready to run (InputError names what is wrong)."""
    from axmem_gui.services.agents import AgentService

    return AgentService(ws).config(name)


def save_session(ws: Workspace, session: Session) -> str:
    return SessionService(ws).save(session)


def import_session(ws: Workspace, path: Path) -> SessionImport:
    return SessionService(ws).import_file(path)
