"""Offline replay: rebuild the agent from a recording and feed it the recorded replies.

No network: every model call is answered from the session, and each request is checked
against the recorded digest; host search calls get the recorded results. A replay is
"identical" when every call matched, every recorded call was used, and each forward ended
the same way (output or error, context map, loaded/used callbacks).

In stages, each small: check the versions (`check_replayable`), set up what serves the
recording (`_Replay`: the replay client and the search cursor), run each forward on a
fresh agent built from its own context (`_run_forward`), compare its outcome with the
recording (core.session.replay_check), then the file checks (`file_differences`).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import AxmemError, InputError
from axmem_gui.core.records import JsonValue
from axmem_gui.core.session.agent_config import AgentConfig
from axmem_gui.core.session.app_session import is_app_session, is_host_search, not_here
from axmem_gui.core.session.code_limits import CodeLimits, LimitHit
from axmem_gui.core.session.coverage import coverage
from axmem_gui.core.session.digest import digest_scheme
from axmem_gui.core.session.map_records import MapSettings
from axmem_gui.core.session.map_settings import replay_settings
from axmem_gui.core.session.model import CANCELLED, COMPLETE, FAILED, Exchange, Forward, Session
from axmem_gui.core.session.payloads import runtime_map
from axmem_gui.core.session.replay_check import (
    ForwardCheck,
    Replayed,
    ReplayReport,
    compare_forward,
    run_differences,
)
from axmem_gui.core.session.replay_cursor import Divergence, SearchCursor
from axmem_gui.core.session.verify import (
    Difference,
    VerifyReport,
    check_derived,
    check_digests,
    check_searches,
    json_diff,
)
from axmem_gui.engine.agent_factory import agent_options, build_agent
from axmem_gui.engine.cage import CodeCage, LimitEvent
from axmem_gui.engine.clients import (
    CancelLike,
    CancelToken,
    ProgressCallback,
    ReplayClient,
    RunProgress,
    fold_chunks,
    is_cancelled,
    jsonable,
    recorded_error,
)
from axmem_gui.engine.errors import RunCancelled
from axmem_gui.engine.search import StubSearch, backend_for_session
from axmem_gui.engine.versions import package_version
from axmem_gui.engine.wire_replay import WireReplay, reply_difference, stored_reply_differences

__all__ = [
    "ForwardCheck",
    "ReplayRefused",
    "ReplayReport",
    "check_replayable",
    "file_differences",
    "replay_session",
    "verify_session",
]


class ReplayRefused(AxmemError):
    """The recording cannot be replayed here (another axllm version, say)."""


# --- stage 1: versions -------------------------------------------------------------------


def check_replayable(session: Session) -> None:
    """Refuse (ReplayRefused) when the installed axllm is not the recording's, the session
    was recorded by an app (its agent's code is not here), or the file asks for code limits
    outside the cage's bounds."""
    if is_app_session(session):
        raise ReplayRefused(not_here(session, "replay"))
    problem = session.limits.problem()
    if problem:
        raise ReplayRefused(f"session {session.id}: code_limits: {problem}")
    recorded = session.versions.axllm
    installed = package_version("axllm")
    if recorded != installed:
        raise ReplayRefused(
            f"session {session.id} was recorded with axllm {recorded}, but axllm "
            f"{installed} is installed; prompts change between axllm releases, so an offline "
            f"replay needs axllm {recorded} (use `axmem rerun` to run it again live instead)"
        )


# --- stage 2: what serves the recording --------------------------------------------------


@dataclass
class _Replay:
    """One replay's fixed parts: the agent config and catalog every forward is built
    from, the client serving the recorded calls and the cursor serving the searches."""

    session: Session
    config: AgentConfig
    catalog: Catalog
    forwards: tuple[Forward, ...]
    client: _CancellableReplayClient
    searches: SearchCursor
    stub: StubSearch | None
    cancelled_at_end: bool
    limits: CodeLimits
    clock_ms: float | None = None
    on_code: Callable[[bool], None] | None = None
    #: The context-map settings each forward applies (None: the map state's own).
    map_settings: MapSettings | None = None
    #: What keeps the replay from being identical before it runs (found setting it up).
    problems: list[Difference] = field(default_factory=list)
    checks: list[ForwardCheck] = field(default_factory=list)
    #: Where a limit stopped the replayed code, every forward's.
    hits: list[LimitHit] = field(default_factory=list)

    @property
    def divergence(self) -> Divergence | None:
        return self.client.cursor.divergence or self.searches.divergence


def _prepare(session: Session, cancel: CancelLike, clock_ms: float | None = None) -> _Replay:
    config = session.agent.config
    if config is None:
        raise InputError(session.agent.problem)
    forwards = session.ran_forwards
    cancelled_at_end = bool(forwards) and forwards[-1].status == CANCELLED
    wire: WireReplay | None = None
    problems: list[Difference] = []
    if session.version >= 2:
        try:
            wire = WireReplay(session.provider)
        except AxmemError as exc:
            problems.append(
                Difference(
                    "provider",
                    "outcome",
                    f"the recorded provider settings build no client here ({exc}): the calls "
                    "were served from the stored replies, their settings not made again",
                )
            )
    client = _CancellableReplayClient(
        session.exchanges,
        features=session.client_features or {},
        model=session.provider.model,
        cancel_when_exhausted=cancelled_at_end,
        cancel=cancel,
        wire=wire,
    )
    searches = SearchCursor([s for f in forwards for s in f.search_calls])
    host = session.search is not None and bool(session.search.host)
    return _Replay(
        session=session,
        config=config,
        catalog=session.catalog.catalog,
        forwards=forwards,
        client=client,
        searches=searches,
        stub=StubSearch(searches) if host else None,
        cancelled_at_end=cancelled_at_end,
        limits=session.limits,
        clock_ms=clock_ms,
        map_settings=replay_settings(config.context_map, session.context_map_settings),
        problems=problems,
    )


# --- stage 3: one forward on a fresh agent -----------------------------------------------


def _run_forward(replay: _Replay, fw: Forward, cancel: CancelLike) -> Replayed | None:
    """Run forward `fw` again; None when it diverged from the recording (the cursors
    hold where)."""
    events: list[JsonValue] = []

    def observe(kind: str, payload: Any) -> None:
        events.append({"kind": kind, "payload": jsonable(payload)})

    hits: list[LimitHit] = []

    def limit_hit(event: LimitEvent) -> None:
        # the code stopped was that of the last call served
        served = replay.client.position
        last = replay.session.exchanges[served - 1] if served else None
        hits.append(
            LimitHit(
                kind=event.kind,
                message=event.message,
                forward=fw.index,
                stage=last.stage if last else None,
                turn=last.turn if last else None,
                call_index=last.index if last else None,
            )
        )

    config = replay.config
    options = agent_options(config, replay.catalog, fw.context_map_before, replay.map_settings)
    cage = CodeCage(
        replay.limits,
        replay.client.code_cancelled,
        replay.clock_ms,
        on_limit=limit_hit,
        on_code=replay.on_code,
    )
    agent = build_agent(config, options, observe=observe, search=replay.stub, cage=cage)
    call_options: dict[str, Any] = dict(fw.forward_options or {})
    if isinstance(cancel, CancelToken):
        call_options["cancellation"] = cancel.ax_token
    output: Any = None
    error_text: str | None = None
    status = COMPLETE
    try:
        output = agent.forward(replay.client, copy.deepcopy(fw.inputs), call_options)
    except Exception as exc:  # compared with how the recorded forward ended
        error_text = str(exc)
        status = CANCELLED if _is_cancel(exc) else FAILED
    if status == COMPLETE and replay.client.cancelled_by_recording:
        status = CANCELLED
    replay.hits.extend(hits)
    if is_cancelled(cancel):
        raise ReplayRefused("the replay was cancelled")
    if replay.divergence is not None:
        return None
    state = jsonable(agent.export_runtime_state())
    return Replayed(
        status=status,
        error_text=error_text,
        output=jsonable(output),
        map_after=runtime_map(state) if config.context_map else None,
        callbacks=events,
        trace=jsonable(_read(agent.export_trace, {})),
        action_log=jsonable(_read(agent.get_action_log, [])),
        usage=jsonable(_read(agent.get_usage, {})),
        limits_hit=tuple(hits),
    )


# --- the whole replay --------------------------------------------------------------------


def replay_session(
    session: Session,
    *,
    cancel: CancelLike = None,
    progress: ProgressCallback | None = None,
    clock_ms: float | None = None,
    on_code: Callable[[bool], None] | None = None,
) -> ReplayReport:
    """Replay a session offline, the model's code under the recorded limits (`clock_ms`
    stops its clock, for tests; `on_code` hears when the code starts and stops running).
    Raises ReplayRefused when it cannot."""
    check_replayable(session)
    replay = _prepare(session, cancel, clock_ms)
    replay.on_code = on_code
    started = time.perf_counter()
    for fw in replay.forwards:
        if progress:
            total = len(replay.forwards)
            progress(RunProgress("forward_started", fw.index, total, replay.client.position))
        new = _run_forward(replay, fw, cancel)
        if new is None:
            break
        mine = session.exchanges_of(fw.index)
        has_map = replay.config.context_map is not None
        replay.checks.append(
            compare_forward(fw, new, mine, has_map=has_map, version=session.version)
        )
        if new.status != COMPLETE:
            break
    divergence = replay.divergence
    if divergence is None and not replay.cancelled_at_end:
        divergence = replay.client.cursor.finish()
    found = run_differences(divergence, replay.checks) + replay.problems
    found += replay.client.reply_differences
    found += _version_differences(session)
    seen = {d.where for d in found}
    found.extend(d for d in file_differences(session) if d.where not in seen)
    return ReplayReport(
        session_id=session.id,
        calls_recorded=replay.client.cursor.total,
        calls_replayed=replay.client.position,
        divergence=divergence,
        forwards=tuple(replay.checks),
        duration_ms=round((time.perf_counter() - started) * 1000, 1),
        differences=tuple(found),
        limits_hit=tuple(replay.hits),
        coverage=coverage(session, replay=True),
    )


# --- the file checks ---------------------------------------------------------------------


def check_streams(session: Session) -> list[Difference]:
    """A streamed exchange's stored response must be the fold of its stored chunks (the
    chunks are what the server sent; replay serves their fold)."""
    out = []
    for i, ex in enumerate(session.exchanges):
        if ex.chunks is None:
            continue
        try:
            folded = fold_chunks(ex.chunks)
        except Exception as exc:  # a hostile file: any chunk shape
            folded = f"<the chunks cannot be folded: {exc}>"
        if folded != ex.response:
            where = f"exchanges[{i}].response"
            out.append(
                Difference(
                    where,
                    "derived",
                    f"the stored response of streamed call #{i} is not what its stored "
                    "chunks add up to",
                    json_diff(ex.response, folded, where, ("stored", "folded chunks")),
                )
            )
    return out


def file_differences(session: Session) -> list[Difference]:
    """Every check that needs the file only (core.session.verify, plus streamed chunks)."""
    backend = backend_for_session(session)
    return (
        check_digests(session)
        + check_streams(session)
        + check_searches(session, backend)
        + check_derived(session)
    )


def _version_differences(session: Session) -> list[Difference]:
    """The QuickJS the replay ran on against the one the file names (replay requires the
    recording's axllm already)."""
    recorded = session.versions.quickjs
    installed = package_version("quickjs")
    if recorded is None or recorded == installed:
        return []
    return [
        Difference(
            "versions.quickjs",
            "outcome",
            f"the recording names QuickJS {recorded}, the replay ran the code on QuickJS "
            f"{installed}",
            json_diff(recorded, installed, "versions.quickjs", ("recorded", "replayed")),
        )
    ]


def verify_session(session: Session) -> VerifyReport:
    """The file-only checks (no agent run, no axllm version requirement): stored requests
    against their digests, searches re-run on the recorded catalog, derived fields."""
    started = time.perf_counter()
    found = file_differences(session)
    seen = {d.where for d in found}
    found += [d for d in stored_reply_differences(session) if d.where not in seen]
    searches = [call for _fw, call in session.search_calls()]
    return VerifyReport(
        session_id=session.id,
        differences=tuple(found),
        calls=len(session.exchanges),
        searches=len(searches),
        duration_ms=round((time.perf_counter() - started) * 1000, 1),
        host_searches=sum(1 for call in searches if is_host_search(call)),
        coverage=coverage(session, replay=False),
    )


def _read(read: Any, default: Any) -> Any:
    try:
        return read()
    except Exception:  # as the recorder: a half-built state after some failures
        return default


def _is_cancel(exc: BaseException) -> bool:
    current: BaseException | None = exc
    while current is not None:
        if isinstance(current, RunCancelled):
            return True
        current = current.__cause__
    return False


class _CancellableReplayClient(ReplayClient):
    """A replay client that ends a recording of a cancelled run the same way: when the
    recorded calls run out, it cancels instead of reporting an extra call."""

    def __init__(
        self,
        recorded: Sequence[Exchange],
        *,
        features: dict[str, Any],
        model: str | None,
        cancel_when_exhausted: bool,
        cancel: CancelLike,
        wire: WireReplay | None = None,
    ) -> None:
        super().__init__(recorded, features=features, model=model)
        #: The recorded provider's client (version 2 files), None: serve the stored replies.
        self.wire = wire
        #: Stored replies that are not what the recorded raw replies read as.
        self.reply_differences: list[Difference] = []
        self._cancel_when_exhausted = cancel_when_exhausted
        self._cancel = cancel
        self.cancelled_by_recording = False

    @property
    def position(self) -> int:
        return self.cursor.position

    def code_cancelled(self) -> bool:
        """The cancel the model's code answers to (engine.cage polls it inside each
        execution): the user's, or the recording's own once its last call was served (a
        live run cancelled then stopped the code of that call where the replay does)."""
        if is_cancelled(self._cancel):
            return True
        return self._cancel_when_exhausted and self.cursor.remaining == 0

    def chat(self, request: Any, options: Any = None) -> Any:
        if is_cancelled(self._cancel):
            raise RunCancelled()
        if self._cancel_when_exhausted and self.cursor.remaining == 0:
            self.cancelled_by_recording = True
            raise RunCancelled()
        recorded = self.cursor.peek()
        if self.wire is not None and recorded is not None and digest_scheme(recorded.digest) == 2:
            return self._resend(recorded, request, options or {})
        return super().chat(request, options)

    def _resend(self, recorded: Exchange, request: Any, options: Any) -> Any:
        """A version 2 call: sent again through the recorded provider's client, which
        makes the request settings again (checked by the digest) and reads the recorded
        raw reply."""
        assert self.wire is not None
        resent = self.wire.send(recorded, request, options)
        taken = self.cursor.take(jsonable(request), resent.params)
        if taken.response is None and taken.error is not None:
            raise recorded_error(taken.error)
        if resent.failure is not None or resent.response is None:
            raise self.cursor.unreadable(taken, str(resent.failure or "no reply"))
        found = reply_difference(taken, resent.response, resent.chunks)
        if found is not None:
            self.reply_differences.append(found)
        # The agent reads what the provider sent (the raw reply), not the stored copy.
        return resent.response
