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

from axmem_gui.core.catalog import catalog_from_json_value
from axmem_gui.core.errors import AxmemError
from axmem_gui.core.session.agent_config import agent_config_from_json
from axmem_gui.core.session.replay_cursor import Divergence, SearchCursor
from axmem_gui.core.session.views import exchanges, forwards
from axmem_gui.engine.agent_factory import agent_options, build_agent
from axmem_gui.engine.clients import (
    CancelLike,
    CancelToken,
    ProgressCallback,
    ReplayClient,
    RunProgress,
    is_cancelled,
    jsonable,
)
from axmem_gui.engine.errors import RunCancelled
from axmem_gui.engine.search import StubSearch
from axmem_gui.engine.versions import package_version


class ReplayRefused(AxmemError):
    """The recording cannot be replayed here (another axllm version, say)."""


@dataclass(frozen=True)
class ForwardCheck:
    index: int
    recorded_status: str
    replay_status: str
    output_same: bool
    map_same: bool
    callbacks_same: bool
    error_same: bool

    @property
    def ok(self) -> bool:
        return (
            self.recorded_status == self.replay_status
            and self.output_same
            and self.map_same
            and self.callbacks_same
            and self.error_same
        )

    def problems(self) -> list[str]:
        out = []
        if self.recorded_status != self.replay_status:
            out.append(f"ended {self.replay_status}, recorded {self.recorded_status}")
        for flag, what in (
            (self.output_same, "output"),
            (self.map_same, "context map after the run"),
            (self.callbacks_same, "loaded/used callbacks"),
            (self.error_same, "error"),
        ):
            if not flag:
                out.append(f"{what} differs")
        return out

    def to_json(self) -> dict[str, Any]:
        return {**self.__dict__, "ok": self.ok}


@dataclass(frozen=True)
class ReplayReport:
    session_id: str
    calls_recorded: int
    calls_replayed: int
    divergence: Divergence | None
    forwards: tuple[ForwardCheck, ...]
    duration_ms: float

    @property
    def identical(self) -> bool:
        return self.divergence is None and all(f.ok for f in self.forwards)

    def to_json(self) -> dict[str, Any]:
        return {
            "session": self.session_id,
            "identical": self.identical,
            "calls_recorded": self.calls_recorded,
            "calls_replayed": self.calls_replayed,
            "divergence": self.divergence.to_json() if self.divergence else None,
            "forwards": [f.to_json() for f in self.forwards],
            "duration_ms": self.duration_ms,
        }

    def render(self) -> str:
        if self.identical:
            return (
                f"identical: {self.calls_replayed} of {self.calls_recorded} model calls replayed "
                f"with the same prompts; outputs, context maps and callbacks match "
                f"({self.duration_ms / 1000:.2f} s, no network)\n"
            )
        lines = [f"DIFFERENT: replay of {self.session_id}"]
        if self.divergence is not None:
            d = self.divergence
            lines.append(f"first difference: {d.message}")
            if d.diff:
                lines += ["", d.diff.rstrip("\n")]
        for f in self.forwards:
            if not f.ok:
                lines.append(f"forward {f.index + 1}: " + "; ".join(f.problems()))
        return "\n".join(lines) + "\n"


def check_replayable(doc: Mapping[str, Any]) -> None:
    """Refuse (ReplayRefused) when the installed axllm is not the recording's."""
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


def _callbacks(items: Any) -> list[tuple[Any, Any]]:
    return [
        (c.get("kind"), c.get("payload"))
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
        recorded_error = fw.get("error") if isinstance(fw.get("error"), Mapping) else None
        checks.append(
            ForwardCheck(
                index=index,
                recorded_status=str(fw.get("status")),
                replay_status=status,
                output_same=jsonable(output) == fw.get("output"),
                map_same=(state.get("context_map") if config.context_map else None)
                == fw.get("context_map_after"),
                callbacks_same=_callbacks(events) == _callbacks(fw.get("callbacks")),
                error_same=status == "cancelled"
                or (recorded_error or {}).get("detail") == error_text,
            )
        )
        if status != "complete":
            break
    divergence = client.cursor.divergence or search_cursor.divergence
    if divergence is None and not cancelled_at_end:
        divergence = client.cursor.finish()
    return ReplayReport(
        session_id=str(doc.get("id")),
        calls_recorded=client.cursor.total,
        calls_replayed=client.position,
        divergence=divergence,
        forwards=tuple(checks),
        duration_ms=round((time.perf_counter() - started) * 1000, 1),
    )


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
