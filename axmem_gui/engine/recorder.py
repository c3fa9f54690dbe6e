"""Run an agent live through axllm and record everything as an axsession document.

A session is one or more forwards. Each forward runs on a fresh agent built from the same
config and catalog; only the context map carries over from one forward to the next (this is
what the map is for, and it keeps forwards independent for replay and comparison).
A failure or a cancel ends the run: the partial session is still returned, marked
`"status": "incomplete"` with the error.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.session.agent_config import AgentConfig
from axmem_gui.core.session.code_limits import CodeLimits, LimitHit
from axmem_gui.core.session.contextmap_update import describe_update
from axmem_gui.core.session.derive import (
    call_turns,
    map_snapshots,
    map_warnings,
    trace_without_logs,
    without_run_token,
)
from axmem_gui.core.session.digest import exchange_digest
from axmem_gui.core.session.format import (
    FORWARD_KEYS,
    NOT_RUN_KEYS,
    SESSION_KEYS,
    VERSION,
    parse_exchange,
    parse_session,
)
from axmem_gui.core.session.map_records import AGENT_RULE, MapSettings
from axmem_gui.core.session.map_settings import settings_rule, settings_warnings
from axmem_gui.core.session.model import (
    CANCELLED,
    COMPLETE,
    FAILED,
    INCOMPLETE,
    NOT_RUN,
    Callback,
    Exchange,
    Forward,
    Origin,
    RunError,
    SearchInfo,
    Session,
    SessionAgent,
    SessionCatalog,
    SessionProvider,
)
from axmem_gui.core.session.payloads import runtime_map
from axmem_gui.core.session.redact import scrub_session
from axmem_gui.core.session.whatif import RetrievalBackend
from axmem_gui.engine.agent_factory import agent_options, build_agent, forward_options
from axmem_gui.engine.cage import CodeCage, LimitEvent
from axmem_gui.engine.clients import (
    CancelLike,
    CancelToken,
    ProgressCallback,
    RecordingClient,
    RunProgress,
    is_cancelled,
    jsonable,
    utc_now,
)
from axmem_gui.engine.errors import describe_failure
from axmem_gui.engine.search import CallPlace, RecordingSearch
from axmem_gui.engine.versions import runtime_versions


@dataclass(frozen=True)
class RunTaps:
    """What a run tells as it goes, beside its progress (a child run streams it to its
    parent, which keeps every finished call if the child dies): each recorded call, each
    finished forward, and when the model's code starts and stops running."""

    #: The session before its first forward (what a partial session is built on).
    begun: Callable[[Session], None] | None = None
    exchange: Callable[[dict[str, Any]], None] | None = None
    forward: Callable[[Forward], None] | None = None
    code: Callable[[bool], None] | None = None


@dataclass(frozen=True)
class RunRequest:
    """What to run: the agent, the catalog it gets (already filtered), the inputs of each
    forward, and the context map to start from."""

    config: AgentConfig
    catalog: Catalog
    inputs: tuple[dict[str, Any], ...]
    context_map: dict[str, Any] | str | None = None
    name: str = ""
    #: Whose settings a carried map follows: the agent's (`agent`) or its own (`carried`).
    map_rule: str = AGENT_RULE
    origin: Origin = field(default_factory=lambda: Origin(kind="live"))


_CANCELLED = RunError(kind="cancelled", type="RunCancelled", message="the run was cancelled")


def new_session_id() -> str:
    return f"{datetime.now(UTC):%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:6]}"


def _safe(read: Any, default: Any) -> Any:
    """Read agent state after a run; after some failures axllm's state is half-built, and
    the partial session matters more than this one detail."""
    try:
        return jsonable(read())
    except Exception:
        return default


def _forward_error(exc: Exception, index: int, failed: Exchange | None) -> RunError:
    info = describe_failure(exc)
    return RunError(
        kind=info.kind,
        type=info.type,
        message=info.message,
        status=info.status,
        retry_after=info.retry_after,
        detail=str(exc),
        forward=index,
        call_index=failed.index if failed else None,
        key_order=(*info.to_json(), "detail", "forward", "call_index"),
    )


class _Run:
    """The state of one recording: the client wrapper, callbacks and search log."""

    def __init__(
        self,
        request: RunRequest,
        client: Any,
        backend: RetrievalBackend,
        cancel: CancelLike,
        progress: ProgressCallback | None,
        http_attempts: list[dict[str, Any]] | None,
        limits: CodeLimits,
        clock_ms: float | None = None,
        taps: RunTaps | None = None,
    ) -> None:
        taps = taps or RunTaps()
        self.request = request
        self.backend = backend
        self.cancel = cancel
        self.progress = progress
        self.forward = 0
        self.recorder = RecordingClient(
            client,
            cancel=cancel,
            progress=self._call_progress,
            http_attempts=http_attempts,
            on_record=taps.exchange,
            scheme=VERSION,
        )
        self.callbacks: list[Callback] = []
        self.search = RecordingSearch(backend, request.catalog, self._locate)
        #: The recorded calls, parsed as the session parser reads them.
        self.exchanges: list[Exchange] = []
        self.cage = CodeCage(limits, cancel, clock_ms, on_limit=self._limit_hit, on_code=taps.code)
        self.limits_hit: list[LimitHit] = []

    def _limit_hit(self, event: LimitEvent) -> None:
        place = self._locate()
        self.limits_hit.append(
            LimitHit(
                kind=event.kind,
                message=event.message,
                forward=place.forward,
                stage=place.stage,
                turn=place.turn,
                call_index=place.call_index,
            )
        )

    def _call_progress(self, kind: str, index: int, stage: str) -> None:
        if self.progress is None:
            return
        verb = "calling the model" if kind == "call_started" else "model answered"
        self.progress(
            RunProgress(
                kind,
                self.forward,
                len(self.request.inputs),
                index + (1 if kind == "call_finished" else 0),
                stage,
                f"forward {self.forward + 1}: {stage}: {verb}",
            )
        )

    def _locate(self) -> CallPlace:
        # (the last call may be the previous forward's: what was recorded before)
        last = self.recorder.last_call
        return CallPlace(self.forward) if last is None else replace(last, forward=self.forward)

    def observe(self, kind: str, payload: Any) -> None:
        place = self._locate()
        self.callbacks.append(
            Callback(
                kind=kind,
                payload=jsonable(payload),
                forward=place.forward,
                stage=place.stage,
                turn=place.turn,
                call_index=place.call_index,
            )
        )

    def _new_exchanges(self, first_call: int) -> list[Exchange]:
        records = self.recorder.exchanges
        for i in range(len(self.exchanges), len(records)):
            source = f"recorded call #{i}"
            self.exchanges.append(parse_exchange(records[i], i, len(self.request.inputs), source))
        return self.exchanges[first_call:]

    def run_forward(
        self, index: int, inputs: dict[str, Any], map_before: Any, settings: MapSettings | None
    ) -> Forward:
        self.forward = index
        self.recorder.forward = index
        self.callbacks = []
        self.limits_hit = []
        self.search.calls = []
        first_call = len(self.recorder.exchanges)
        config = self.request.config
        options = agent_options(config, self.request.catalog, map_before, settings)
        agent = build_agent(
            config, options, observe=self.observe, search=self.search, cage=self.cage
        )
        has_map = config.context_map is not None
        cm_before = runtime_map(jsonable(agent.export_runtime_state())) if has_map else None
        fwd_options = forward_options(config)
        call_options = dict(fwd_options)
        if isinstance(self.cancel, CancelToken):
            call_options["cancellation"] = self.cancel.ax_token
        started_at = utc_now()
        output: Any = None
        failure: Exception | None = None
        try:
            output = agent.forward(self.recorder, copy.deepcopy(inputs), call_options)
        except Exception as exc:  # the partial session is kept and shown
            failure = exc
        exchanges = self._new_exchanges(first_call)
        error: RunError | None = None
        status = COMPLETE
        if failure is not None:
            failed = next((e for e in reversed(exchanges) if e.error is not None), None)
            error = _forward_error(failure, index, failed)
            status = CANCELLED if error.kind == "cancelled" else FAILED
        elif is_cancelled(self.cancel):
            # Cancelled during the context-map update, whose errors axllm swallows.
            status = CANCELLED
            failed = next((e for e in reversed(exchanges) if e.error is not None), None)
            error = RunError(
                kind=_CANCELLED.kind,
                type=_CANCELLED.type,
                message=_CANCELLED.message,
                forward=index,
                call_index=failed.index if failed else None,
                key_order=("kind", "type", "message", "forward", "call_index"),
            )
        trace = _safe(agent.export_trace, {})
        cm_after = runtime_map(_safe(agent.export_runtime_state, {})) if has_map else None
        return Forward(
            index=index,
            inputs=jsonable(inputs),
            forward_options=fwd_options,
            started_at=started_at,
            status=status,
            output=jsonable(output),
            error=error,
            context_map_before=cm_before,
            context_map_after=cm_after,
            context_map_update=describe_update(exchanges, cm_before, cm_after),
            exchange_range=(first_call, len(self.recorder.exchanges)),
            turns=call_turns(trace, exchanges, error),
            searches=tuple(self.search.calls),
            callbacks=tuple(self.callbacks),
            action_log=without_run_token(_safe(agent.get_action_log, [])),
            usage=_safe(agent.get_usage, {}),
            trace=trace_without_logs(trace),
            code_limits_hit=tuple(self.limits_hit) or None,
            key_order=(*FORWARD_KEYS, "code_limits_hit") if self.limits_hit else FORWARD_KEYS,
        )


def _not_run(index: int, inputs: dict[str, Any], config: AgentConfig) -> Forward:
    return Forward(
        index=index,
        inputs=jsonable(inputs),
        forward_options=forward_options(config),
        status=NOT_RUN,
        key_order=NOT_RUN_KEYS,
    )


def record_session(
    request: RunRequest,
    client: Any,
    provider: SessionProvider,
    *,
    backend: RetrievalBackend,
    cancel: CancelLike = None,
    progress: ProgressCallback | None = None,
    secrets: Sequence[str] = (),
    http_attempts: list[dict[str, Any]] | None = None,
    session_id: str | None = None,
    limits: CodeLimits | None = None,
    clock_ms: float | None = None,
    taps: RunTaps | None = None,
) -> Session:
    """Run every forward of `request` through `client` and return the session (checked by
    the session parser, secrets scrubbed). Never raises for model or agent failures: those
    end the session with status "incomplete". Raises InputError only for a config axllm
    refuses to build. The model's code runs under `limits` (engine.cage; `clock_ms` stops
    its clock, for tests)."""
    limits = (limits or CodeLimits()).checked()
    run = _Run(request, client, backend, cancel, progress, http_attempts, limits, clock_ms, taps)
    features = client.get_features() if callable(getattr(client, "get_features", None)) else {}
    cm_config = request.config.context_map
    rule = (
        None
        if cm_config is None
        else settings_rule(request.map_rule, cm_config, request.context_map)
    )
    head = Session(
        version=VERSION,
        id=session_id or new_session_id(),
        name=request.name or f"{request.config.name} · {provider.model or '?'}",
        created_at=utc_now(),
        status=INCOMPLETE,
        error=None,
        origin=request.origin,
        versions=runtime_versions(backend.profile),
        agent=SessionAgent.of(request.config),
        catalog=SessionCatalog.of(request.catalog),
        provider=provider,
        client_features=jsonable(features),
        search=SearchInfo(backend=backend.name, profile=backend.profile, host=True),
        code_limits=None if limits.is_default else limits,
        map_snapshots=(),
        warnings=tuple(settings_warnings(rule, cm_config)),
        context_map_settings=rule,
        key_order=_session_keys(limits),
    )
    if taps is not None and taps.begun is not None:
        taps.begun(head)
    forwards: list[Forward] = []
    context_map: Any = request.context_map
    total = len(request.inputs)
    for i, inputs in enumerate(request.inputs):
        if progress:
            progress(RunProgress("forward_started", i, total, len(run.recorder.exchanges)))
        fw = run.run_forward(i, inputs, context_map, None if rule is None else rule.effective)
        forwards.append(fw)
        if taps is not None and taps.forward is not None:
            taps.forward(fw)
        if progress:
            progress(
                RunProgress(
                    "forward_finished",
                    i,
                    total,
                    len(run.recorder.exchanges),
                    message=f"forward {i + 1}: {fw.status}",
                )
            )
        if fw.status != COMPLETE:
            break
        context_map = fw.context_map_after if request.config.context_map else None
    for i in range(len(forwards), total):
        forwards.append(_not_run(i, request.inputs[i], request.config))
    failed = next((f for f in forwards if f.status in (FAILED, CANCELLED)), None)
    has_map = request.config.context_map is not None
    session = replace(
        head,
        status=INCOMPLETE if failed else COMPLETE,
        error=failed.error if failed else None,
        forwards=tuple(forwards),
        exchanges=tuple(run.exchanges),
        map_snapshots=tuple(map_snapshots(forwards)) if has_map else (),
        warnings=tuple(settings_warnings(rule, cm_config) + map_warnings(forwards)),
        context_map_settings=rule,
    )
    value = jsonable(scrub_session(session, secrets))
    return _digests_of_what_is_stored(parse_session(value, f"session {session.id}"))


def _digests_of_what_is_stored(session: Session) -> Session:
    """A key the server echoed (in any form) is scrubbed from the replies and from the
    later requests that quoted them back: each call's digest is taken again over the
    request the file stores. Replay serves the scrubbed replies, so the agent asks the
    scrubbed requests again; verify finds the file as it was written."""
    exchanges = tuple(
        ex if (digest := exchange_digest(ex)) == ex.digest else replace(ex, digest=digest)
        for ex in session.exchanges
    )
    if all(a is b for a, b in zip(exchanges, session.exchanges, strict=True)):
        return session
    return replace(session, exchanges=exchanges)


def _session_keys(limits: CodeLimits) -> tuple[str, ...]:
    """A recording's keys: `code_limits` (after `search`) only when not the defaults."""
    if limits.is_default:
        return SESSION_KEYS
    at = SESSION_KEYS.index("search") + 1
    return (*SESSION_KEYS[:at], "code_limits", *SESSION_KEYS[at:])
