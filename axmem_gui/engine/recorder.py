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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.session.agent_config import AgentConfig
from axmem_gui.core.session.contextmap_update import describe_update
from axmem_gui.core.session.derive import (
    map_snapshots,
    map_warnings,
    trace_without_logs,
    turns,
    without_run_token,
)
from axmem_gui.core.session.format import FORMAT, VERSION, validate_session
from axmem_gui.core.session.redact import scrub_session
from axmem_gui.core.session.whatif import RetrievalBackend
from axmem_gui.engine.agent_factory import agent_options, build_agent, forward_options
from axmem_gui.engine.cage import CodeCage, CodeLimits
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
from axmem_gui.engine.search import RecordingSearch
from axmem_gui.engine.versions import runtime_versions


@dataclass(frozen=True)
class RunRequest:
    """What to run: the agent, the catalog it gets (already filtered), the inputs of each
    forward, and the context map to start from."""

    config: AgentConfig
    catalog: Catalog
    inputs: tuple[Mapping[str, Any], ...]
    context_map: Mapping[str, Any] | str | None = None
    name: str = ""
    origin: Mapping[str, Any] = field(default_factory=lambda: {"kind": "live"})


def new_session_id() -> str:
    return f"{datetime.now(UTC):%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:6]}"


def catalog_json(catalog: Catalog) -> dict[str, Any]:
    return {
        "skills": [{**s.to_ax(), "tags": list(s.tags)} for s in catalog.skills],
        "memories": [{**m.to_ax(), "tags": list(m.tags)} for m in catalog.memories],
    }


def _safe(read: Any, default: Any) -> Any:
    """Read agent state after a run; after some failures axllm's state is half-built, and
    the partial session matters more than this one detail."""
    try:
        return jsonable(read())
    except Exception:
        return default


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
    ) -> None:
        self.request = request
        self.backend = backend
        self.cancel = cancel
        self.progress = progress
        self.forward = 0
        self.recorder = RecordingClient(
            client, cancel=cancel, progress=self._call_progress, http_attempts=http_attempts
        )
        self.callbacks: list[dict[str, Any]] = []
        self.search = RecordingSearch(backend, request.catalog, self._locate)
        self.limits = limits
        self.cage = CodeCage(limits, cancel, clock_ms, on_limit=self._limit_hit)
        self.limits_hit: list[dict[str, Any]] = []

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

    def _locate(self) -> dict[str, Any]:
        last = self.recorder.exchanges[-1] if self.recorder.exchanges else None
        return {
            "forward": self.forward,
            "stage": last.get("stage") if last else None,
            "turn": last.get("turn") if last else None,
            "call_index": last.get("index") if last else None,
        }

    def _limit_hit(self, event: dict[str, Any]) -> None:
        self.limits_hit.append({**event, **self._locate()})

    def observe(self, kind: str, payload: Any) -> None:
        self.callbacks.append({"kind": kind, "payload": jsonable(payload), **self._locate()})

    def run_forward(self, index: int, inputs: Mapping[str, Any], map_before: Any) -> dict[str, Any]:
        self.forward = index
        self.recorder.forward = index
        self.callbacks = []
        self.limits_hit = []
        self.search.calls = []
        first_call = len(self.recorder.exchanges)
        config = self.request.config
        options = agent_options(config, self.request.catalog, map_before)
        agent = build_agent(
            config, options, observe=self.observe, search=self.search, cage=self.cage
        )
        state = agent.export_runtime_state()
        cm_before = jsonable(state.get("context_map")) if config.context_map else None
        fwd_options = forward_options(config)
        call_options = dict(fwd_options)
        if isinstance(self.cancel, CancelToken):
            call_options["cancellation"] = self.cancel.ax_token
        started_at = utc_now()
        output: Any = None
        error: dict[str, Any] | None = None
        status = "complete"
        try:
            output = agent.forward(self.recorder, copy.deepcopy(dict(inputs)), call_options)
        except Exception as exc:  # the partial session is kept and shown
            info = describe_failure(exc)
            error = {**info.to_json(), "detail": str(exc)}
            status = "cancelled" if info.kind == "cancelled" else "failed"
        if status == "complete" and is_cancelled(self.cancel):
            # Cancelled during the context-map update, whose errors axllm swallows.
            status = "cancelled"
            error = {
                "kind": "cancelled",
                "type": "RunCancelled",
                "message": "the run was cancelled",
            }
        exchanges = self.recorder.exchanges[first_call:]
        if error is not None:
            failed = next((e for e in reversed(exchanges) if e.get("error")), None)
            error["forward"] = index
            error["call_index"] = failed.get("index") if failed else None
        trace = _safe(agent.export_trace, {})
        state = _safe(agent.export_runtime_state, {})
        cm_after = state.get("context_map") if config.context_map else None
        record: dict[str, Any] = {
            "index": index,
            "inputs": jsonable(dict(inputs)),
            "forward_options": fwd_options,
            "started_at": started_at,
            "status": status,
            "output": jsonable(output),
            "error": error,
            "context_map_before": cm_before,
            "context_map_after": cm_after,
            "context_map_update": describe_update(exchanges, cm_before, cm_after),
            "exchange_range": [first_call, len(self.recorder.exchanges)],
            "turns": turns(trace, exchanges),
            "searches": jsonable(self.search.calls),
            "callbacks": self.callbacks,
            "action_log": without_run_token(_safe(agent.get_action_log, [])),
            "usage": _safe(agent.get_usage, {}),
            "trace": trace_without_logs(trace),
        }
        if self.limits_hit:
            record["code_limits_hit"] = self.limits_hit
        return record


def record_session(
    request: RunRequest,
    client: Any,
    provider: Mapping[str, Any],
    *,
    backend: RetrievalBackend,
    cancel: CancelLike = None,
    progress: ProgressCallback | None = None,
    secrets: Sequence[str] = (),
    http_attempts: list[dict[str, Any]] | None = None,
    session_id: str | None = None,
    limits: CodeLimits | None = None,
    clock_ms: float | None = None,
) -> dict[str, Any]:
    """Run every forward of `request` through `client` and return the session document
    (validated). Never raises for model or agent failures: those end the session with
    status "incomplete". Raises InputError only for a config axllm refuses to build.
    The model's code runs under `limits` (engine.cage; `clock_ms` is the tests' clock)."""
    limits = limits or CodeLimits()
    run = _Run(request, client, backend, cancel, progress, http_attempts, limits, clock_ms)
    created_at = utc_now()
    forwards: list[dict[str, Any]] = []
    context_map: Any = request.context_map
    total = len(request.inputs)
    for i, inputs in enumerate(request.inputs):
        if progress:
            progress(RunProgress("forward_started", i, total, len(run.recorder.exchanges)))
        fw = run.run_forward(i, inputs, context_map)
        forwards.append(fw)
        if progress:
            progress(
                RunProgress(
                    "forward_finished",
                    i,
                    total,
                    len(run.recorder.exchanges),
                    message=f"forward {i + 1}: {fw['status']}",
                )
            )
        if fw["status"] != "complete":
            break
        context_map = fw["context_map_after"] if request.config.context_map else None
    for i in range(len(forwards), total):
        forwards.append(
            {
                "index": i,
                "inputs": jsonable(dict(request.inputs[i])),
                "forward_options": forward_options(request.config),
                "status": "not_run",
                "output": None,
                "error": None,
            }
        )
    failed = next((f for f in forwards if f["status"] in ("failed", "cancelled")), None)
    warnings = map_warnings(forwards)
    features = client.get_features() if callable(getattr(client, "get_features", None)) else {}
    doc: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "id": session_id or new_session_id(),
        "name": request.name or f"{request.config.name} · {provider.get('model') or '?'}",
        "created_at": created_at,
        "status": "incomplete" if failed else "complete",
        "error": failed["error"] if failed else None,
        "origin": dict(request.origin),
        "versions": runtime_versions(backend.profile),
        "agent": request.config.to_json(),
        "catalog": catalog_json(request.catalog),
        "provider": dict(provider),
        "client_features": jsonable(features),
        "search": {"backend": backend.name, "profile": backend.profile, "host": True},
        "code_limits": limits.to_json(),
        "forwards": forwards,
        "exchanges": run.recorder.exchanges,
        "contextMapSnapshots": map_snapshots(forwards) if request.config.context_map else [],
        "warnings": warnings,
    }
    doc = scrub_session(jsonable(doc), secrets)
    return validate_session(doc, f"session {doc['id']}")
