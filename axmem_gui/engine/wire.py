"""What went over the wire for each model call, for the record and for replay.

`WireTap` sits where axllm hands an HTTP call to its transport: it notes the request's
settings (the body without the prompt, the tools and the output format, which the
provider-neutral request already holds), the status and the provider's raw reply, and
passes the call on untouched. The recording keeps them (`exchanges[i].wire`) and derives
`params` from them: what the provider was really asked (axllm adds defaults such as
`temperature: 0` that are nowhere in the neutral request).

`ReplayTransport` is the other direction: a replay (or verify) builds the recorded
provider's axllm client around it, so the request settings are made again from the
recorded provider settings, and the reply the agent reads is axllm's own reading of the
recorded raw reply.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from axmem_gui.core.session.digest import request_digest
from axmem_gui.core.session.model import Exchange
from axmem_gui.core.session.verify_calls import call_time
from axmem_gui.core.session.wire_payloads import params_of, sent_settings

#: One noted call: method, url, the settings sent, status and raw reply (None when the
#: call failed before a reply).
WireEntry = dict[str, Any]


def _raw(value: Any) -> Any:
    """A reply body as JSON can hold it: JSON as is, a streamed reply's bytes as text;
    anything else (an iterator of chunks) is not kept."""
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", errors="replace")
    if isinstance(value, str | dict | list):
        return copy.deepcopy(value)
    return None


class TransportWrapper:
    """An axllm transport around another: each of the three ways axllm hands over a call
    (plain, cancellable, streamed) goes through `_send(call, send)`, where `send` passes
    a call on the same way (a plain call when the inner transport lacks that way)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __call__(self, call: Mapping[str, Any]) -> Any:
        return self._send(call, self.inner)

    def call_with_cancellation(self, call: Mapping[str, Any], cancellation: Any) -> Any:
        return self._send(call, self._way("call_with_cancellation", cancellation))

    def stream_with_cancellation(self, call: Mapping[str, Any], cancellation: Any) -> Any:
        return self._send(call, self._way("stream_with_cancellation", cancellation))

    def _way(self, name: str, cancellation: Any) -> Callable[[Mapping[str, Any]], Any]:
        send = getattr(self.inner, name, None)
        if callable(send):
            return lambda call: send(call, cancellation)
        return self.inner  # type: ignore[no-any-return]

    def _send(self, call: Mapping[str, Any], send: Callable[[Mapping[str, Any]], Any]) -> Any:
        return send(call)


class WireTap(TransportWrapper):
    """A transport that notes every call it passes on (`record(entry)`)."""

    def __init__(self, inner: Any, record: Callable[[WireEntry], None]) -> None:
        super().__init__(inner)
        self.record = record

    def _send(self, call: Mapping[str, Any], send: Callable[[Mapping[str, Any]], Any]) -> Any:
        return self._tap(call, lambda: send(call))

    def _tap(self, call: Mapping[str, Any], send: Callable[[], Any]) -> Any:
        entry: WireEntry = {
            "method": call.get("method"),
            "url": call.get("url"),
            "sent": sent_settings(call.get("json")),
            "status": None,
            "body": None,
        }
        try:
            result = send()
        except BaseException:
            self.record(entry)
            raise
        if isinstance(result, Mapping):
            status = result.get("status")
            entry["status"] = status if isinstance(status, int) else None
            entry["body"] = _raw(result.get("json"))
        self.record(entry)
        return result


class NotServed(Exception):
    """The recorded call has no reply to serve (it failed): the replay raises the
    recorded error instead."""


class ReplayTransport:
    """Answers each call with the raw reply recorded for `serving` (set before each call)
    and keeps the settings the client sent (`sent`)."""

    def __init__(self) -> None:
        self.serving: Exchange | None = None
        self.sent: dict[str, Any] | None = None

    def __call__(self, call: Mapping[str, Any]) -> dict[str, Any]:
        return self._answer(call)

    def call_with_cancellation(self, call: Mapping[str, Any], cancellation: Any) -> Any:
        return self._answer(call)

    def stream_with_cancellation(self, call: Mapping[str, Any], cancellation: Any) -> Any:
        return self._answer(call)

    def _answer(self, call: Mapping[str, Any]) -> dict[str, Any]:
        self.sent = sent_settings(call.get("json"))
        recorded = self.serving
        wire = recorded.wire if recorded is not None else None
        if recorded is None or recorded.error is not None or wire is None or wire.response is None:
            raise NotServed()
        body: Any = copy.deepcopy(wire.response)
        if call.get("stream") and isinstance(body, str):
            body = body.encode("utf-8")
        return {"status": wire.status or 200, "json": body, "headers": {}}


def finish_record(record: dict[str, Any], noted: list[WireEntry], request: Any, inner: Any) -> None:
    """Complete a version 2 call record (the recording client's JSON) from what went over
    the wire: `params` (what the provider was asked), `wire` (the last HTTP attempt: the
    settings sent, status and raw reply), every attempt of the retry policy, the call's
    time as its attempts' and waits' (so verify can recompute it), and the scheme 2
    digest, which covers the whole request and its params."""
    last = noted[-1] if noted else None
    sent = last["sent"] if last is not None else None
    model = getattr(inner, "model", None)
    params = params_of(request, sent, model if isinstance(model, str) else None)
    record["params"] = params
    if last is not None:
        record["wire"] = {
            "request": last["sent"],
            "status": last["status"],
            "response": last["body"],
        }
    if "attempts" not in record:
        record["attempts"] = [
            {
                "outcome": "ok" if record.get("error") is None else "other",
                "duration_ms": record["duration_ms"],
            }
        ]
    attempts = record["attempts"]
    record["duration_ms"] = call_time(
        [a.get("duration_ms") for a in attempts], [a.get("retry_in_s") for a in attempts]
    )
    record["digest"] = request_digest(request, params, 2)
