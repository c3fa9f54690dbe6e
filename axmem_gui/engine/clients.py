"""Client wrappers the agent talks to: one records every model exchange of a live run, the
other serves a recording back offline.

Both sit where axllm calls `client.chat(request, options)`, the one place that sees every
model call: actor turns, the responder, llmQuery sub-calls and the two context-map update
calls. Requests are recorded provider-neutral (the messages Ax rendered, the functions and
response format), never HTTP headers.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import axllm

from axmem_gui.core.session.digest import request_digest
from axmem_gui.core.session.model import Exchange, RunError
from axmem_gui.core.session.payloads import usage_of_response
from axmem_gui.core.session.progress import Cancellable
from axmem_gui.core.session.progress import CancelLike as CancelLike
from axmem_gui.core.session.progress import ProgressCallback as ProgressCallback
from axmem_gui.core.session.progress import RunProgress as RunProgress
from axmem_gui.core.session.redact import redact_url
from axmem_gui.core.session.replay_cursor import ReplayCursor
from axmem_gui.core.session.stages import ACTOR_STAGES, LLM_QUERY, stage_of_request
from axmem_gui.engine import policy
from axmem_gui.engine.errors import FailureInfo, ProviderFailure, RunCancelled, describe_failure
from axmem_gui.engine.search import CallPlace
from axmem_gui.engine.wire import finish_record


def jsonable(value: Any) -> Any:
    """A deep copy as plain JSON data (callables and odd objects become short strings)."""
    return json.loads(json.dumps(value, default=lambda o: f"<{type(o).__name__}>"))


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class CancelToken:
    """Cancel a run from another thread. Checked before every model call; also aborts an
    HTTP request in flight (it is handed to axllm as its cancellation token)."""

    def __init__(self) -> None:
        self._token = axllm.AxCancellationToken()  # type: ignore[no-untyped-call]

    def cancel(self) -> None:
        self._token.cancel("cancelled")

    @property
    def cancelled(self) -> bool:
        return self._token.cancelled

    @property
    def ax_token(self) -> axllm.AxCancellationToken:
        return self._token


def is_cancelled(cancel: CancelLike) -> bool:
    if cancel is None:
        return False
    if isinstance(cancel, Cancellable):
        return cancel.cancelled
    return bool(cancel())


class _Delegating:
    """The attributes AxGen reads from a client, forwarded to the wrapped one."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    @property
    def name(self) -> str:
        return str(getattr(self.inner, "name", type(self.inner).__name__))

    @property
    def model(self) -> Any:
        return getattr(self.inner, "model", None)

    @property
    def model_config(self) -> Any:
        return getattr(self.inner, "model_config", None)

    def get_features(self, model: Any = None) -> Any:
        fn = getattr(self.inner, "get_features", None)
        return fn(model) if callable(fn) else {}


class _TurnCounter:
    """Turn numbers per forward: actor stages count their own calls; an llmQuery belongs to
    the actor turn that issued it; other stages count attempts."""

    def __init__(self) -> None:
        self.forward = 0
        self._counts: dict[tuple[int, str], int] = {}
        self._last_actor_turn = 0

    def next(self, stage: str) -> int:
        if stage == LLM_QUERY:
            return self._last_actor_turn
        key = (self.forward, stage)
        turn = self._counts.get(key, 0)
        self._counts[key] = turn + 1
        if stage in ACTOR_STAGES:
            self._last_actor_turn = turn
        return turn


class RecordingClient(_Delegating):
    """Wraps a real axllm client; records each exchange, checks for cancellation before
    each call and reports progress."""

    def __init__(
        self,
        inner: Any,
        *,
        cancel: CancelLike = None,
        progress: Callable[[str, int, str], None] | None = None,
        http_attempts: list[dict[str, Any]] | None = None,
        on_record: Callable[[dict[str, Any]], None] | None = None,
        scheme: int = 1,
    ) -> None:
        super().__init__(inner)
        #: Every call as the session file records it (this client writes that JSON).
        self.exchanges: list[dict[str, Any]] = []
        #: Told of each call once it is recorded (a child run streams it to its parent).
        self._on_record = on_record
        #: 2: a version 2 file's calls (params, wire, every attempt, scheme 2 digests).
        self.scheme = scheme
        #: Where the last call sits (searches and callbacks name the call that made them).
        self.last_call: CallPlace | None = None
        self.cancel = cancel
        self._progress = progress
        self._turns = _TurnCounter()
        # Filled by the provider client's transport tap (see providers.make_client).
        self._http_attempts = http_attempts if http_attempts is not None else []

    def _wire_record(self, record: dict[str, Any]) -> None:
        """What the policy client did on the wire: attempts (retries, waits), chunks."""
        call = getattr(self.inner, "last_call", None)
        attempts = getattr(call, "attempts", None)
        failed = isinstance(attempts, list) and any(a.get("outcome") != "ok" for a in attempts)
        if isinstance(attempts, list) and attempts and (failed or self.scheme >= 2):
            record["attempts"] = jsonable(attempts)  # version 1: only when one failed
        chunks = getattr(call, "chunks", None)
        if isinstance(chunks, list):
            record["stream"] = True
            record["chunks"] = jsonable(chunks)

    @property
    def forward(self) -> int:
        return self._turns.forward

    @forward.setter
    def forward(self, value: int) -> None:
        self._turns.forward = value

    def chat(self, request: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> Any:
        if is_cancelled(self.cancel):
            raise RunCancelled()
        request_json = jsonable(request)
        stage = stage_of_request(request_json)
        index = len(self.exchanges)
        if self._progress:
            self._progress("call_started", index, stage)
        call_options = dict(options or {})
        if isinstance(self.cancel, CancelToken):
            call_options["cancellation"] = self.cancel.ax_token
        self._http_attempts.clear()
        started_at = utc_now()
        t0 = time.perf_counter()
        turn = self._turns.next(stage)
        self.last_call = CallPlace(self.forward, stage, turn, index)
        record: dict[str, Any] = {
            "index": index,
            "forward": self.forward,
            "stage": stage,
            "turn": turn,
            "digest": request_digest(request_json),
            "request": request_json,
            "response": None,
            "error": None,
            "started_at": started_at,
        }
        try:
            response = self.inner.chat(request, call_options)
        except BaseException as exc:
            self._wire_record(record)
            info = describe_failure(exc)
            record["error"] = {
                **info.to_json(),
                "type": type(exc).__name__,
                "message": str(exc) or info.message,
                "retryable": bool(getattr(exc, "retryable", False)),
            }
            if is_cancelled(self.cancel) and not isinstance(exc, RunCancelled):
                record["error"]["kind"] = "cancelled"
            raise
        else:
            self._wire_record(record)
            response_json = jsonable(response)
            record["response"] = response_json
            record["usage"] = usage_of_response(response_json)
            return response
        finally:
            record["duration_ms"] = round((time.perf_counter() - t0) * 1000, 3)
            if self._http_attempts:
                record["http_attempts"] = [
                    {"method": a.get("method"), "url": redact_url(str(a.get("url")))}
                    for a in self._http_attempts
                ]
            if self.scheme >= 2:
                finish_record(record, self._http_attempts, request_json, self.inner)
            self.exchanges.append(record)
            if self._on_record is not None:
                self._on_record(record)
            if self._progress:
                self._progress("call_finished", index, stage)


def fold_chunks(chunks: Sequence[Any]) -> Any:
    """The one response AxGen reads from a streamed reply's chunks (axllm's own fold)."""
    return jsonable(policy.fold_chunks(list(chunks)))


def recorded_error(error: RunError) -> BaseException:
    """Rebuild the exception a recorded exchange ended with, same class where axllm has
    it, so AxGen retries (or not) exactly as it did live."""
    name = error.type or ""
    message = error.message or "recorded failure"
    if name == ProviderFailure.__name__:
        return ProviderFailure(
            FailureInfo(
                error.kind or "agent",
                message,
                name,
                error.status,
                None if error.retry_after is None else str(error.retry_after),
            )
        )
    cls = getattr(axllm, name, None) if name.startswith("AxAI") else None
    if isinstance(cls, type) and issubclass(cls, axllm.AxAIServiceError):
        if issubclass(cls, axllm.AxAIServiceAbortedError):
            return cls(message)
        rebuilt = cls(message, status=error.status, retryable=bool(error.retryable))
        if error.retry_after is not None:
            rebuilt.retry_after = error.retry_after  # type: ignore[attr-defined]
        return rebuilt
    return RuntimeError(message)


class ReplayClient(_Delegating):
    """Serves recorded responses in order with no network; the cursor checks each request's
    digest and records the first difference."""

    def __init__(
        self,
        exchanges: Sequence[Exchange],
        *,
        features: Mapping[str, Any] | None = None,
        model: str | None = None,
    ) -> None:
        super().__init__(None)
        self.cursor = ReplayCursor(exchanges)
        self._features = dict(features or {})
        self._model = model

    @property
    def name(self) -> str:
        return "replay"

    @property
    def model(self) -> Any:
        return self._model

    @property
    def model_config(self) -> Any:
        return {}

    def get_features(self, model: Any = None) -> Any:
        return copy.deepcopy(self._features)

    def chat(self, request: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> Any:
        recorded = self.cursor.take(jsonable(request))
        if recorded.response is None and recorded.error is not None:
            raise recorded_error(recorded.error)
        if recorded.chunks is not None:
            # A streamed reply is served from what was streamed (verify checks that the
            # stored response is its fold).
            return fold_chunks(recorded.chunks)
        return copy.deepcopy(recorded.response)
