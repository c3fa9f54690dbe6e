"""Offline replay: rebuild the agent from a recording and feed it the recorded replies.

No network: every model call is answered from the session, and each request is checked
against the recorded digest; host search calls get the recorded results. A replay is
"identical" when every call matched, every recorded call was used, and each forward ended
the same way (output or error, context map, loaded/used callbacks).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from axmem_gui.core.errors import AxmemError
from axmem_gui.core.formats import catalog_from_json_value
from axmem_gui.core.session.agent_config import agent_config_from_json
from axmem_gui.core.session.app_session import is_app_session, is_host_search, not_here
from axmem_gui.core.session.contextmap_update import describe_update
from axmem_gui.core.session.derive import trace_without_logs, turns, without_run_token
from axmem_gui.core.session.replay_cursor import Divergence, SearchCursor
from axmem_gui.core.session.verify import (
    Difference,
    VerifyReport,
    check_derived,
    check_digests,
    check_searches,
    comparable_update,
    json_diff,
    render_differences,
)
from axmem_gui.core.session.views import exchanges, forwards
from axmem_gui.engine.agent_factory import agent_options, build_agent
from axmem_gui.engine.clients import (
    CancelLike,
    CancelToken,
    ProgressCallback,
    ReplayClient,
    RunProgress,
    fold_chunks,
    is_cancelled,
    jsonable,
)
from axmem_gui.engine.errors import RunCancelled
from axmem_gui.engine.search import StubSearch, backend_for_session
from axmem_gui.engine.versions import package_version


class ReplayRefused(AxmemError):
    """The recording cannot be replayed here (another axllm version, say)."""


@dataclass(frozen=True)
class ForwardCheck:
    """How one replayed forward compares with its recording, field by field."""

    index: int
    recorded_status: str
    replay_status: str
    differences: tuple[Difference, ...] = ()

    @property
    def ok(self) -> bool:
        return self.recorded_status == self.replay_status and not self.differences

    def problems(self) -> list[str]:
        out = []
        if self.recorded_status != self.replay_status:
            out.append(f"ended {self.replay_status}, recorded {self.recorded_status}")
        out += [f"{d.where} differs" for d in self.differences]
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "recorded_status": self.recorded_status,
            "replay_status": self.replay_status,
            "differences": [d.to_json() for d in self.differences],
            "ok": self.ok,
        }


@dataclass(frozen=True)
class ReplayReport:
    session_id: str
    calls_recorded: int
    calls_replayed: int
    divergence: Divergence | None
    forwards: tuple[ForwardCheck, ...]
    duration_ms: float
    #: Every difference, the run's first: the first model/search call that differs, then
    #: each forward's fields, then what the file checks (digests, searches, derived) found.
    differences: tuple[Difference, ...] = ()

    @property
    def identical(self) -> bool:
        return not self.differences

    def to_json(self) -> dict[str, Any]:
        return {
            "session": self.session_id,
            "identical": self.identical,
            "calls_recorded": self.calls_recorded,
            "calls_replayed": self.calls_replayed,
            "divergence": self.divergence.to_json() if self.divergence else None,
            "forwards": [f.to_json() for f in self.forwards],
            "differences": [d.to_json() for d in self.differences],
            "duration_ms": self.duration_ms,
        }

    def render(self) -> str:
        if self.identical:
            return (
                f"identical: {self.calls_replayed} of {self.calls_recorded} model calls replayed "
                f"with the same prompts; searches, outputs, context maps, callbacks, turns, "
                f"traces, action logs, usage and every derived field match "
                f"({self.duration_ms / 1000:.2f} s, no network)\n"
            )
        return render_differences(f"DIFFERENT: replay of {self.session_id}", self.differences)


def _divergence_difference(d: Divergence, doc: Mapping[str, Any]) -> Difference:
    if d.kind == "search":
        where = f"search call #{d.index}"
    elif d.kind in ("prompt", "digest", "stored_request"):
        where = f"exchanges[{d.index}]" + (".digest" if d.kind == "digest" else ".request")
    else:
        where = f"exchanges[{d.index}]"
    return Difference(where, d.kind, d.message, d.diff)


_COMPARED = (
    ("output", "the output"),
    ("error", "the error"),
    ("context_map_after", "the context map after the run"),
    ("callbacks", "the loaded/used callbacks"),
    ("turns", "the actor turns"),
    ("action_log", "the action log"),
    ("usage", "the usage"),
    ("trace", "the trace"),
    ("context_map_update", "the context-map update record"),
)


def _forward_differences(
    k: int, recorded: Mapping[str, Any], replayed: Mapping[str, Any]
) -> tuple[Difference, ...]:
    out = []
    for key, what in _COMPARED:
        if key not in replayed:
            continue
        rec = recorded.get(key)
        new = replayed[key]
        if key == "callbacks":
            rec = _callbacks(rec)
            new = _callbacks(new)
        elif key == "trace":
            rec = trace_without_logs(rec)
        elif key == "action_log":
            rec, new = without_run_token(rec), without_run_token(new)
        if rec != new:
            where = f"forwards[{k}].{key}"
            out.append(
                Difference(
                    where,
                    "outcome",
                    f"{what} of the replay differs from the recorded one",
                    json_diff(rec, new, where, ("recorded", "replayed")),
                )
            )
    return tuple(out)


def check_replayable(doc: Mapping[str, Any]) -> None:
    """Refuse (ReplayRefused) when the installed axllm is not the recording's, or the
    session was recorded by an app (its agent's code is not here)."""
    if is_app_session(doc):
        raise ReplayRefused(not_here(doc, "replay"))
    versions = doc.get("versions") if isinstance(doc.get("versions"), Mapping) else {}
    assert isinstance(versions, Mapping)
    recorded = str(versions.get("axllm"))
    installed = package_version("axllm")
    if recorded != installed:
        raise ReplayRefused(
            f"session {doc.get('id')} was recorded with axllm {recorded}, but axllm "
            f"{installed} is installed; prompts change between axllm releases, so an offline "
            f"replay needs axllm {recorded} (use `axmem rerun` to run it again live instead)"
        )


def _callbacks(items: Any) -> list[dict[str, Any]]:
    return [
        {"kind": c.get("kind"), "payload": c.get("payload")}
        for c in (items if isinstance(items, list) else [])
        if isinstance(c, Mapping)
    ]


def replay_session(
    doc: Mapping[str, Any],
    *,
    cancel: CancelLike = None,
    progress: ProgressCallback | None = None,
) -> ReplayReport:
    """Replay a validated session document offline. Raises ReplayRefused when it cannot."""
    check_replayable(doc)
    source = f"session {doc.get('id')}"
    config = agent_config_from_json(doc.get("agent"), f"{source}: agent")
    catalog = catalog_from_json_value(doc.get("catalog"), f"{source}: catalog")
    provider = doc.get("provider") if isinstance(doc.get("provider"), Mapping) else {}
    assert isinstance(provider, Mapping)
    recorded_forwards = [f for f in forwards(doc) if f.get("status") != "not_run"]
    cancelled_at_end = bool(recorded_forwards) and recorded_forwards[-1].get("status") == (
        "cancelled"
    )
    features = doc.get("client_features")
    client = _CancellableReplayClient(
        exchanges(doc),
        features=features if isinstance(features, Mapping) else {},
        model=provider.get("model") if isinstance(provider.get("model"), str) else None,
        cancel_when_exhausted=cancelled_at_end,
        cancel=cancel,
    )
    search_doc = doc.get("search") if isinstance(doc.get("search"), Mapping) else {}
    assert isinstance(search_doc, Mapping)
    searches = [s for f in recorded_forwards for s in (f.get("searches") or [])]
    search_cursor = SearchCursor(searches)
    stub = StubSearch(search_cursor) if search_doc.get("host") else None
    checks: list[ForwardCheck] = []
    started = time.perf_counter()
    for fw in recorded_forwards:
        index = int(fw.get("index") or 0)
        if progress:
            progress(RunProgress("forward_started", index, len(recorded_forwards), client.position))
        events: list[dict[str, Any]] = []

        def observe(kind: str, payload: Any, events: list[dict[str, Any]] = events) -> None:
            events.append({"kind": kind, "payload": jsonable(payload)})

        options = agent_options(config, catalog, fw.get("context_map_before"))
        agent = build_agent(config, options, observe=observe, search=stub)
        call_options = dict(fw.get("forward_options") or {})
        if isinstance(cancel, CancelToken):
            call_options["cancellation"] = cancel.ax_token
        output: Any = None
        error_text: str | None = None
        status = "complete"
        try:
            output = agent.forward(
                client, copy.deepcopy(dict(fw.get("inputs") or {})), call_options
            )
        except Exception as exc:  # compared with how the recorded forward ended
            error_text = str(exc)
            status = "cancelled" if _is_cancel(exc) else "failed"
        if status == "complete" and client.cancelled_by_recording:
            status = "cancelled"
        if is_cancelled(cancel):
            raise ReplayRefused("the replay was cancelled")
        divergence = client.cursor.divergence or search_cursor.divergence
        if divergence is not None:
            break
        state = jsonable(agent.export_runtime_state())
        map_after = state.get("context_map") if config.context_map else None
        trace = jsonable(_read(agent.export_trace, {}))
        mine = [e for e in exchanges(doc) if e.get("forward") == fw.get("index")]
        replayed: dict[str, Any] = {
            "output": jsonable(output),
            "context_map_after": map_after,
            "callbacks": events,
            "turns": turns(trace, mine),
            "action_log": jsonable(_read(agent.get_action_log, [])),
            "usage": jsonable(_read(agent.get_usage, {})),
            "trace": trace_without_logs(trace),
        }
        if config.context_map:
            update = describe_update(mine, fw.get("context_map_before"), map_after)
            replayed["context_map_update"] = comparable_update(fw.get("context_map_update"), update)
        recorded_error = fw.get("error") if isinstance(fw.get("error"), Mapping) else None
        differences = list(_forward_differences(index, fw, replayed))
        if status != "cancelled" and (recorded_error or {}).get("detail") != error_text:
            where = f"forwards[{index}].error.detail"
            differences.append(
                Difference(
                    where,
                    "outcome",
                    "the replay ended with another error",
                    json_diff(
                        (recorded_error or {}).get("detail"),
                        error_text,
                        where,
                        ("recorded", "replayed"),
                    ),
                )
            )
        checks.append(
            ForwardCheck(
                index=index,
                recorded_status=str(fw.get("status")),
                replay_status=status,
                differences=tuple(differences),
            )
        )
        if status != "complete":
            break
    divergence = client.cursor.divergence or search_cursor.divergence
    if divergence is None and not cancelled_at_end:
        divergence = client.cursor.finish()
    found: list[Difference] = []
    if divergence is not None:
        found.append(_divergence_difference(divergence, doc))
    for check in checks:
        if check.recorded_status != check.replay_status:
            found.append(
                Difference(
                    f"forwards[{check.index}].status",
                    "outcome",
                    f"the replay ended {check.replay_status}, the recording "
                    f"{check.recorded_status}",
                    json_diff(check.recorded_status, check.replay_status, "status"),
                )
            )
        found.extend(check.differences)
    seen = {d.where for d in found}
    found.extend(d for d in file_differences(doc) if d.where not in seen)
    return ReplayReport(
        session_id=str(doc.get("id")),
        calls_recorded=client.cursor.total,
        calls_replayed=client.position,
        divergence=divergence,
        forwards=tuple(checks),
        duration_ms=round((time.perf_counter() - started) * 1000, 1),
        differences=tuple(found),
    )


def check_streams(doc: Mapping[str, Any]) -> list[Difference]:
    """A streamed exchange's stored response must be the fold of its stored chunks (the
    chunks are what the server sent; replay serves their fold)."""
    out = []
    for i, ex in enumerate(exchanges(doc)):
        chunks = ex.get("chunks")
        if not isinstance(chunks, list):
            continue
        try:
            folded = fold_chunks(chunks)
        except Exception as exc:  # a hostile file: any chunk shape
            folded = f"<the chunks cannot be folded: {exc}>"
        if folded != ex.get("response"):
            where = f"exchanges[{i}].response"
            out.append(
                Difference(
                    where,
                    "derived",
                    f"the stored response of streamed call #{i} is not what its stored "
                    "chunks add up to",
                    json_diff(ex.get("response"), folded, where, ("stored", "folded chunks")),
                )
            )
    return out


def file_differences(doc: Mapping[str, Any]) -> list[Difference]:
    """Every check that needs the file only (core.session.verify, plus streamed chunks)."""
    backend = backend_for_session(doc)
    return (
        check_digests(doc) + check_streams(doc) + check_searches(doc, backend) + check_derived(doc)
    )


def verify_session(doc: Mapping[str, Any]) -> VerifyReport:
    """The file-only checks (no agent run, no axllm version requirement): stored requests
    against their digests, searches re-run on the recorded catalog, derived fields."""
    started = time.perf_counter()
    found = file_differences(doc)
    searches = [s for f in forwards(doc) for s in f.get("searches") or [] if isinstance(s, Mapping)]
    return VerifyReport(
        session_id=str(doc.get("id")),
        differences=tuple(found),
        calls=len(exchanges(doc)),
        searches=len(searches),
        duration_ms=round((time.perf_counter() - started) * 1000, 1),
        host_searches=sum(1 for s in searches if is_host_search(s)),
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
        recorded: Any,
        *,
        features: Mapping[str, Any],
        model: str | None,
        cancel_when_exhausted: bool,
        cancel: CancelLike,
    ) -> None:
        super().__init__(recorded, features=features, model=model)
        self._cancel_when_exhausted = cancel_when_exhausted
        self._cancel = cancel
        self.cancelled_by_recording = False

    @property
    def position(self) -> int:
        return self.cursor.position

    def chat(self, request: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> Any:
        if is_cancelled(self._cancel):
            raise RunCancelled()
        if self._cancel_when_exhausted and self.cursor.remaining == 0:
            self.cancelled_by_recording = True
            raise RunCancelled()
        return super().chat(request, options)
