"""The app's axllm client, recorded: the studio's RecordingClient around it, with the
recorder's limits, its own time measured, streamed replies kept as chunks, and the request
parameters that decided each answer (model, temperature, max tokens, stream, tool choice,
model config: the provider-neutral parameters the TypeScript recorder writes too)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any, Protocol

from axmem_gui.core.session.model import RecordingStop
from axmem_gui.engine.clients import RecordingClient, _Delegating, jsonable
from axmem_gui.engine.policy import fold_chunks


class Recorder(Protocol):
    """What the client needs of the recorder."""

    truncated: RecordingStop | None
    overhead_ms: float

    def exchange_done(self, client: AppRecordingClient) -> None: ...


class StreamFolding(_Delegating):
    """The app's client as RecordingClient sees it: a streamed reply (the app asked for
    `stream`) is read whole, kept as chunks (`last_call.chunks`) and returned as the one
    response axllm folds it into, so the wire behaviour is the app's own."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.last_call: Any = None
        #: Time spent in the app's client (the recorder's share is the rest).
        self.inner_ms = 0.0

    def chat(self, request: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> Any:
        started = time.perf_counter()
        try:
            return self._chat(request, options)
        finally:
            self.inner_ms += (time.perf_counter() - started) * 1000

    def _chat(self, request: Mapping[str, Any], options: Mapping[str, Any] | None) -> Any:
        self.last_call = None
        config = request.get("model_config")
        streaming = isinstance(config, Mapping) and bool(config.get("stream"))
        stream = getattr(self.inner, "stream", None)
        if streaming and callable(stream):
            return self._fold(list(stream(request, dict(options or {}))))
        response = self.inner.chat(request, dict(options or {}))
        if response is not None and not isinstance(response, Mapping):
            return self._fold(list(response))
        return response

    def _fold(self, chunks: list[Any]) -> Any:
        self.last_call = SimpleNamespace(chunks=jsonable(chunks), attempts=None)
        return fold_chunks(chunks)


def request_params(request: Mapping[str, Any], client: Any) -> dict[str, Any]:
    """The effective parameters of one call: the request's model config over the client's."""
    base = getattr(client, "model_config", None)
    asked = request.get("model_config")
    config = jsonable(
        {
            **(base if isinstance(base, Mapping) else {}),
            **(asked if isinstance(asked, Mapping) else {}),
        }
    )
    model = request.get("model") or getattr(client, "model", None)
    temperature = config.get("temperature")
    max_tokens = config.get("max_tokens")
    return {
        "model": None if model is None else str(model),
        "temperature": temperature if isinstance(temperature, int | float) else None,
        "max_tokens": max_tokens if isinstance(max_tokens, int) else None,
        "stream": bool(config.get("stream")),
        "tool_choice": jsonable(request.get("function_call")),
        "model_config": config,
    }


class AppRecordingClient(RecordingClient):
    """The studio's recording client with the recorder's limits and bookkeeping."""

    inner: StreamFolding

    def __init__(self, inner: Any, recorder: Recorder) -> None:
        super().__init__(StreamFolding(inner))
        self.recorder = recorder

    def chat(self, request: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> Any:
        if self.recorder.truncated:
            return self.inner.chat(request, options)
        started = time.perf_counter()
        inner_before = self.inner.inner_ms
        count = len(self.exchanges)
        try:
            return super().chat(request, options)
        finally:
            if len(self.exchanges) > count:
                self.exchanges[-1]["params"] = request_params(request, self.inner.inner)
            self.recorder.exchange_done(self)
            total = (time.perf_counter() - started) * 1000
            self.recorder.overhead_ms += total - (self.inner.inner_ms - inner_before)
