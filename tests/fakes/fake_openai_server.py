"""A fake OpenAI-compatible chat-completions server on 127.0.0.1 for provider tests.

A real threaded HTTP server on an ephemeral port. Replies come from the app's scripted
model (prompt-driven, deterministic). A fault plan makes chosen requests fail the way real
servers do: HTTP 500, 429 with Retry-After, a reply slower than the client's timeout,
malformed JSON, or a connection dropped half-way through the body. A `stream: true` request
is answered with server-sent events. Every request is logged
with its headers so tests can check what went over the wire.
"""

from __future__ import annotations

import base64
import contextlib
import json
import re
import socket
import struct
import threading
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from axmem_gui.core.providers import ProviderSettings
from axmem_gui.engine.scripted_model import openai_response

_DIRECTORY = re.compile(r"/directory/owners/([^/?]+)$")
FAULTS = (
    "500",
    "429",
    "timeout",
    "malformed",
    "drop",
    "reset",
    "slow-stream",
    "401",
    "401-echo",
    "401-echo-forms",
    "echo-forms",
    "endless",
    "huge",
    "huge-unannounced",
    "307-here",
    "308-here",
    "two-fences",
    "cut-json",
)
#: The size of the "huge" replies.
HUGE_BYTES = 100 * 1024 * 1024


def derived_forms(key: str) -> dict[str, str]:
    """How a careless (or hostile) server may echo a key back."""
    return {
        "base64": base64.b64encode(key.encode()).decode(),
        "base64 user:key": base64.b64encode(f"user:{key}".encode()).decode(),
        "reversed": key[::-1],
        "spaced": " ".join(key),
        "upper-cased": key.upper(),
        "first 12 characters": key[:12],
        "url-encoded": urllib.parse.quote(f"k={key}"),
    }


def _sent_key(headers: Any) -> str:
    return str(headers.get("Authorization", "")).removeprefix("Bearer ")


@dataclass
class WireRequest:
    number: int
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class FakeServerState:
    faults: dict[int, str] = field(default_factory=dict)  # request number (1-based) -> fault
    fault_always: str | None = None
    retry_after: str = "7"
    slow_seconds: float = 3.0
    requests: list[WireRequest] = field(default_factory=list)
    directory_calls: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: A "timeout" reply is held until `slow_seconds` pass or `release` is set (stop() sets
    #: it). `held` counts the replies being held right now and `holding` is set once one is:
    #: tests wait on these conditions instead of on the clock.
    release: threading.Event = field(default_factory=threading.Event)
    holding: threading.Event = field(default_factory=threading.Event)
    held: int = 0
    #: When set, each held reply instead waits for one `gate.release()` (or `slow_seconds`).
    gate: threading.Semaphore | None = None
    #: Code the model writes on its next actor turns, one piece per turn (hostile code).
    actor_code: list[str] = field(default_factory=list)
    #: What `GET /v1/models` lists.
    models: list[str] = field(default_factory=lambda: ["scripted-a"])


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: FakeServerState


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(payload)

    def _json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(obj).encode(), headers)

    def do_GET(self) -> None:
        state = self.server.state
        directory = _DIRECTORY.search(self.path)
        if not directory:
            # Logged too: a redirected POST arrives as a GET, with whatever headers it kept.
            with state.lock:
                state.requests.append(
                    WireRequest(len(state.requests) + 1, self.path, dict(self.headers), None)
                )
        if directory:
            # The team directory the recorder examples' function tool asks.
            with state.lock:
                state.directory_calls += 1
            service = urllib.parse.unquote(directory.group(1))
            team = "team-payments" if service == "checkout" else "team-unknown"
            self._json(200, {"service": service, "team": team, "oncall": "dana"})
        elif self.path.split("?", 1)[0].rstrip("/").endswith("/models"):
            models = [{"id": m, "object": "model"} for m in state.models]
            self._json(200, {"object": "list", "data": models})
        else:
            self._json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._json(400, {"error": {"message": "request body is not JSON"}})
            return
        state = self.server.state
        with state.lock:
            number = len(state.requests) + 1
            state.requests.append(WireRequest(number, self.path, dict(self.headers), body))
            fault = state.fault_always or state.faults.get(number)
        if not self.path.split("?", 1)[0].rstrip("/").endswith("/chat/completions"):
            self._json(404, {"error": {"message": "only /v1/chat/completions"}})
            return
        if fault == "500":
            self._json(500, {"error": {"message": "internal error (fake)", "type": "server_error"}})
            return
        if fault == "401":
            self._json(401, {"error": {"message": "invalid api key (fake)"}})
            return
        if fault == "401-echo":
            # Some servers quote the credential they refused; it must not leak into files.
            sent = self.headers.get("Authorization", "")
            self._json(401, {"error": {"message": f"invalid api key: {sent}"}})
            return
        if fault == "401-echo-forms":
            forms = derived_forms(_sent_key(self.headers))
            echoed = "; ".join(f"{k}: {v}" for k, v in forms.items())
            self._json(401, {"error": {"message": f"invalid api key ({echoed})"}})
            return
        if fault in ("307-here", "308-here"):
            # A redirect within this origin (another path on the same host and port).
            self.send_response(int(fault[:3]))
            self.send_header("Location", self.path.replace("/chat/", "/moved/chat/"))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if fault in ("endless", "huge", "huge-unannounced"):
            self._endless(fault, body)
            return
        if fault == "429":
            self._json(
                429,
                {"error": {"message": "rate limit reached (fake)", "type": "rate_limit"}},
                {"Retry-After": state.retry_after},
            )
            return
        if fault == "reset":
            # An abrupt reset (RST) before any byte of the answer, as a crashing proxy does.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()
            return
        if fault == "timeout":
            with state.lock:
                state.held += 1
            state.holding.set()
            if state.gate is not None:
                state.gate.acquire(timeout=state.slow_seconds)
            else:
                state.release.wait(state.slow_seconds)
            with state.lock:
                state.held -= 1
        with state.lock:
            answer = openai_response(body, number, state.actor_code)
        if fault == "echo-forms":
            # The key, in every derived form, in the model's answer.
            echoed = " ".join(derived_forms(_sent_key(self.headers)).values())
            said = answer["choices"][0]["message"]
            if isinstance(said.get("content"), str):
                said["content"] += f" (echo: {echoed})"
            for call in said.get("tool_calls") or []:
                # A tool call's code gets it as a comment: the later prompts quote it back.
                arguments = json.loads(call["function"]["arguments"])
                for name, value in arguments.items():
                    if isinstance(value, str):
                        arguments[name] = f"{value}\n// echo: {echoed}"
                        break
                call["function"]["arguments"] = json.dumps(arguments)
        if fault in ("two-fences", "cut-json"):
            answer = misbehaving_answer(answer, fault)
        reply = json.dumps(answer).encode()
        if fault == "malformed":
            self._send(200, b'{"id": "chatcmpl-broken", "choices": [ {"index": 0, "mess')
            return
        if fault == "drop":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply[: len(reply) // 3])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)  # SHUT_RDWR: the peer sees the connection drop
            return
        if fault == "slow-stream":
            # A valid answer trickled out in small pieces, slower than a read but within
            # the client's overall patience: the run must simply succeed.
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            step = max(1, len(reply) // 8)
            for start in range(0, len(reply), step):
                self.wfile.write(reply[start : start + step])
                self.wfile.flush()
                # The one sleep the tests keep: this pause between pieces is the fault being
                # simulated (a provider that answers slowly), not a wait for anything.
                time.sleep(0.02)
            return
        if body.get("stream"):
            self._stream(json.loads(reply))
            return
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._send(200, reply)  # may fail when the client gave up (timeout fault)

    def _stream(self, reply: dict[str, Any]) -> None:
        """The reply as server-sent events (`stream: true`): the text or the tool call's
        arguments in two pieces, then the finish reason with the usage."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        base = {"id": reply["id"], "object": "chat.completion.chunk", "model": reply["model"]}
        message = reply["choices"][0]["message"]
        deltas: list[dict[str, Any]]
        if message.get("tool_calls"):
            call = message["tool_calls"][0]
            args = call["function"]["arguments"]
            half = len(args) // 2
            first = {"index": 0, "id": call["id"], "type": "function",
                     "function": {"name": call["function"]["name"], "arguments": args[:half]}}
            deltas = [
                {"role": "assistant", "tool_calls": [first]},
                {"tool_calls": [{"index": 0, "function": {"arguments": args[half:]}}]},
            ]
        else:
            text = message["content"]
            deltas = [{"role": "assistant", "content": text[: len(text) // 2]},
                      {"content": text[len(text) // 2 :]}]
        events = [{**base, "choices": [{"index": 0, "delta": d}]} for d in deltas]
        events.append({**base, "choices": [{"index": 0, "delta": {},
                       "finish_reason": reply["choices"][0]["finish_reason"]}],
                       "usage": reply["usage"]})
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            for event in events:
                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()

    def _endless(self, fault: str, body: Any) -> None:
        """A reply that never ends (an SSE stream, or a JSON string) or one of HUGE_BYTES;
        written piece by piece, so this server holds none of it."""
        self.send_response(200)
        streamed = fault == "endless" and body.get("stream") is True
        self.send_header("Content-Type", "text/event-stream" if streamed else "application/json")
        if fault == "huge":
            self.send_header("Content-Length", str(HUGE_BYTES))
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        chunk = {"id": "c", "object": "chat.completion.chunk", "model": "m",
                 "choices": [{"index": 0, "delta": {"content": "x" * 900}}]}  # fmt: skip
        piece = (f"data: {json.dumps(chunk)}\n\n" if streamed else "x" * 1024).encode()
        sent = 0
        with contextlib.suppress(OSError):
            if not streamed:
                self.wfile.write(b'{"choices": [{"message": {"content": "')
            while fault == "endless" or sent < HUGE_BYTES:
                self.wfile.write(piece * 64)
                sent += len(piece) * 64


def misbehaving_answer(answer: dict[str, Any], fault: str) -> dict[str, Any]:
    """A well-formed HTTP answer whose content a real small model gets wrong: actor code in
    two fenced blocks (Ax refuses to run it), or a reply cut off at the token cap in the
    middle of its JSON (finish_reason "length")."""
    choice = answer["choices"][0]
    calls = choice["message"].get("tool_calls") or []
    if fault == "two-fences":
        for call in calls:
            args = json.loads(call["function"]["arguments"])
            code = args.get("javascriptCode", "")
            args["javascriptCode"] = f"```js\n{code}\n```\n```js\nconsole.log('again');\n```"
            call["function"]["arguments"] = json.dumps(args)
        return answer
    for call in calls:
        arguments = call["function"]["arguments"]
        call["function"]["arguments"] = arguments[: max(1, len(arguments) // 2)]
    if not calls:
        content = choice["message"].get("content") or ""
        choice["message"]["content"] = content[: max(1, len(content) // 2)]
    choice["finish_reason"] = "length"
    return answer


class FakeOpenAIServer:
    """Start with `start()`, stop with `stop()`; `base_url` ends in /v1."""

    def __init__(self) -> None:
        self.state = FakeServerState()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.state = self.state
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def origin(self) -> str:
        host, port = self._server.server_address[:2]
        assert isinstance(host, str)  # an AF_INET server's address
        return f"http://{host}:{port}"

    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"

    @property
    def directory_url(self) -> str:
        return f"{self.origin}/directory"

    def start(self) -> FakeOpenAIServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.state.release.set()  # let every held reply go
        if self.state.gate is not None:
            self.state.gate.release(1000)
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def reset(self) -> None:
        with self.state.lock:
            self.state.requests.clear()
            self.state.faults.clear()
            self.state.fault_always = None

    @property
    def requests(self) -> list[WireRequest]:
        with self.state.lock:
            return list(self.state.requests)


class _RedirectHandler(BaseHTTPRequestHandler):
    server: _RedirectServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _redirect(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        self.server.seen.append(WireRequest(0, self.path, dict(self.headers), None))
        target = self.server.target_for(self.path)
        self.send_response(self.server.code)
        self.send_header("Location", target)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST = _redirect


class _RedirectServer(ThreadingHTTPServer):
    daemon_threads = True
    code: int
    seen: list[WireRequest]
    target_for: Any


class RedirectServer:
    """Answers every request on 127.0.0.1 with HTTP `code` and a Location on `target`
    (a base URL: the request's path below /v1 is kept)."""

    def __init__(self, code: int, target: str) -> None:
        self._server = _RedirectServer(("127.0.0.1", 0), _RedirectHandler)
        self._server.code = code
        self._server.seen = []
        self._server.target_for = lambda path: target.rstrip("/") + path.removeprefix("/v1")
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    @property
    def requests(self) -> list[WireRequest]:
        return list(self._server.seen)

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    """A started fake server on 127.0.0.1 (an ephemeral port), stopped after the test."""
    srv = FakeOpenAIServer().start()
    try:
        yield srv
    finally:
        srv.stop()


def settings_for(
    server: FakeOpenAIServer, model: str = "scripted-a", **kw: Any
) -> ProviderSettings:
    """Provider settings pointing at the fake server (no retries, a 10 s timeout)."""
    kw.setdefault("max_retries", 0)
    kw.setdefault("timeout_s", 10.0)
    return ProviderSettings("openai-compatible", model, base_url=server.base_url, **kw)
