"""A second scripted OpenAI-compatible server, written apart from tests/fakes and from the
app's scripted model: its own stage detection and replies, plain and streamed (SSE).

It plays a full Ax agent run: the actor distiller discovers skills, recalls memories and
finishes; the executor marks the first recalled memory used and finishes; the responder
answers; the context-map Distiller/Cartographer propose edits (ADDs long enough to make a
small map evict). Faults per request number: "500", "429" (with Retry-After),
"malformed" (a 200 whose body is not JSON) and "trickle" (a valid reply sent in small
pieces over `trickle_seconds`, slower than a short deadline).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

_MEMORY_ID = re.compile(r"ID: `([^`]+)`")
_ITEM = re.compile(r"\[([a-z]{2}-\d{5})\]")
_WIRE_KEY = re.compile(r"\(wire key: `([A-Za-z0-9_]+)`\)")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def _stage(system: str) -> str:
    for marker, stage in (
        ("context-map Distiller", "map-distiller"),
        ("context-map Cartographer", "map-cartographer"),
        ("You (`distiller`)", "distiller"),
        ("You (`executor`)", "executor"),
        ("Answer Synthesis Agent", "responder"),
    ):
        if marker in system:
            return stage
    return "other"


def _first_line_after(user: str, title: str) -> str:
    for line in user.split("\n"):
        if line.startswith(title + ":"):
            return line[len(title) + 1 :].strip()
    return "the question"


def reply_fields(messages: Sequence[Mapping[str, Any]], long_map_items: bool) -> dict[str, Any]:
    system = "\n".join(_text(m.get("content")) for m in messages if m.get("role") == "system")
    user = "\n".join(_text(m.get("content")) for m in messages if m.get("role") != "system")
    stage = _stage(system)
    query = _first_line_after(user, "Query")
    for title in ("User Request", "Request"):  # the sample agent's input, then older ones
        if query == "the question":
            query = _first_line_after(user, title)
    log = user.partition("Action Log:")[2]
    if stage == "distiller":
        # A search that found nothing leaves no field behind: the action log tells.
        if "\nLoaded Skills:" not in "\n" + user and "discover" not in log:
            return {"javascriptCode": f"await discover({{ skills: [{json.dumps(query)}] }});"}
        if "\nMemories:" not in "\n" + user and "recall" not in log:
            return {"javascriptCode": f"await recall([{json.dumps(query)}]);"}
        return {"javascriptCode": f"await final({json.dumps('Answer: ' + query)}, {{}});"}
    if stage == "executor":
        ids = _MEMORY_ID.findall(user)
        if ids and "used(" not in user:
            return {"javascriptCode": f"await used({json.dumps(ids[0])}, 'it helped');"}
        return {"javascriptCode": "await final('Answer the question', { done: true });"}
    if stage == "responder":
        keys = _WIRE_KEY.findall(system) or ["answer"]
        return {k: f"Scripted reply to: {query}" for k in keys}
    if stage == "map-distiller":
        items = sorted(set(_ITEM.findall(user)))
        return {
            "diagnosis": "The questions are about incidents.",
            "itemTags": {i: "neutral" for i in items},
            "cacheCandidates": [],
        }
    if stage == "map-cartographer":
        n = len(set(_ITEM.findall(user)))
        pad = " with more detail about owners, severities and runbooks" * (
            6 if long_map_items else 0
        )
        return {
            "operations": [
                {
                    "type": "ADD",
                    "section": "context_understanding",
                    "content": f"Incident notes, observation {n + 1}{pad}",
                },
                {
                    "type": "ADD",
                    "section": "parsing_schema",
                    "content": f"Lines are id | severity | service | note ({n + 2}){pad}",
                },
            ]
        }
    return {"answer": "scripted"}


def _completion(body: Mapping[str, Any], number: int, long_map_items: bool) -> dict[str, Any]:
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    fields = reply_fields(messages, long_map_items)
    choice = body.get("tool_choice")
    forced = choice.get("function", {}).get("name") if isinstance(choice, dict) else None
    if forced:
        arguments = json.dumps(fields)
        message: dict[str, Any] = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"t{number}",
                    "type": "function",
                    "function": {"name": forced, "arguments": arguments},
                }
            ],
        }
    elif body.get("response_format"):
        message = {"role": "assistant", "content": json.dumps(fields)}
    else:
        lines = [f"{k}: {v if isinstance(v, str) else json.dumps(v)}" for k, v in fields.items()]
        message = {"role": "assistant", "content": "\n".join(lines)}
    return {
        "id": f"sc-{number}",
        "object": "chat.completion",
        "model": body.get("model"),
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": 100 + number,
            "completion_tokens": 7,
            "total_tokens": 107 + number,
        },
    }


def _pieces(text: str, count: int) -> list[str]:
    step = max(1, -(-len(text) // count))
    return [text[i : i + step] for i in range(0, len(text), step)] or [""]


def _sse_events(completion: Mapping[str, Any], pieces: int = 4) -> list[bytes]:
    """The completion as chat.completion.chunk events: its content (or its tool call's
    arguments) in `pieces` parts, then the finish reason with the usage, then [DONE]."""
    message = completion["choices"][0]["message"]
    base = {"id": completion["id"], "object": "chat.completion.chunk", "model": completion["model"]}
    deltas: list[dict[str, Any]] = []
    calls = message.get("tool_calls")
    if calls:
        call = calls[0]
        for i, part in enumerate(_pieces(call["function"]["arguments"], pieces)):
            tool: dict[str, Any] = {"index": 0, "function": {"arguments": part}}
            if i == 0:
                tool.update(id=call["id"], type="function")
                tool["function"]["name"] = call["function"]["name"]
            deltas.append({"tool_calls": [tool]})
    else:
        deltas = [{"content": part} for part in _pieces(message.get("content") or "", pieces)]
    deltas[0]["role"] = "assistant"
    events = [
        {**base, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas
    ]
    events.append(
        {
            **base,
            "choices": [
                {"index": 0, "delta": {}, "finish_reason": "tool_calls" if calls else "stop"}
            ],
            "usage": completion["usage"],
        }
    )
    return [f"data: {json.dumps(e)}\n\n".encode() for e in events] + [b"data: [DONE]\n\n"]


@dataclass
class ScriptState:
    faults: dict[int, str] = field(default_factory=dict)
    retry_after: str = "7"
    trickle_seconds: float = 8.0
    long_map_items: bool = False
    bodies: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: Set when a trickled reply ended because the client hung up.
    client_gave_up: threading.Event = field(default_factory=threading.Event)


class _Http(ThreadingHTTPServer):
    daemon_threads = True
    state: ScriptState


class _Handler(BaseHTTPRequestHandler):
    server: _Http
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _plain(self, status: int, payload: bytes, headers: Mapping[str, str] = {}) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(payload)

    def _trickle(self, parts: list[bytes], seconds: float) -> None:
        # Small writes spread over `seconds`, each paced by waiting on an event that only a
        # hang-up would set (so the server thread ends soon after the client gives up).
        data = b"".join(parts)
        steps = 16
        size = max(1, -(-len(data) // steps))
        state = self.server.state
        try:
            for start in range(0, len(data), size):
                self.wfile.write(data[start : start + size])
                self.wfile.flush()
                if state.client_gave_up.wait(seconds / steps):
                    return
        except OSError:
            state.client_gave_up.set()

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.loads(raw or b"{}")
        state = self.server.state
        with state.lock:
            state.bodies.append(body)
            number = len(state.bodies)
            fault = state.faults.get(number)
        if fault == "500":
            self._plain(500, b'{"error": {"message": "scripted outage"}}')
            return
        if fault == "429":
            self._plain(
                429, b'{"error": {"message": "slow down"}}', {"Retry-After": state.retry_after}
            )
            return
        if fault == "malformed":
            self._plain(200, b'{"choices": [ {"index": 0, "message": {"conte')
            return
        completion = _completion(body, number, state.long_map_items)
        if body.get("stream"):
            events = _sse_events(completion)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            if fault == "trickle":
                self._trickle(events, state.trickle_seconds)
                return
            for event in events:
                self.wfile.write(event)
                self.wfile.flush()
            return
        payload = json.dumps(completion).encode()
        if fault == "trickle":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self._trickle([payload], state.trickle_seconds)
            return
        self._plain(200, payload)


class ScriptServer:
    def __init__(self) -> None:
        self.state = ScriptState()
        self._http = _Http(("127.0.0.1", 0), _Handler)
        self._http.state = self.state
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._http.server_address[:2]
        assert isinstance(host, str)  # an AF_INET server's address
        return f"http://{host}:{port}/v1"

    @property
    def bodies(self) -> list[dict[str, Any]]:
        with self.state.lock:
            return list(self.state.bodies)

    def start(self) -> ScriptServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.state.client_gave_up.set()
        self._http.shutdown()
        self._http.server_close()
        self._thread.join()


@pytest.fixture
def script_server() -> Iterator[ScriptServer]:
    srv = ScriptServer().start()
    try:
        yield srv
    finally:
        srv.stop()
