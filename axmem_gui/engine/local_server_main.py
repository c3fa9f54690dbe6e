"""The bundled model's server process: llama-cpp-python's OpenAI-compatible app, with a cap
on the tokens of one answer.

Run as `python -m axmem_gui.engine.local_server_main --model FILE --port N ...` by
`LocalModelServer`; it imports llama-cpp-python only here, in the child process.

Why the cap: Ax's forced `__axOutput` tool call makes the server constrain the answer to
JSON, and a 135M model can keep a JSON string going until the context is full (we saw one
answer take 10 minutes). axllm sends `max_completion_tokens`, which llama-cpp-python
ignores; the middleware turns it into `max_tokens` and caps it.

It also gives every message a string `content`: the model's GGUF chat template reads
`message['content']`, and an assistant turn that was a tool call has none (the server
then answers HTTP 500 "'dict object' has no attribute 'content'" on the second actor
turn). The tool call's arguments become that turn's text, which is what the model wrote.

And it escapes raw control characters inside the JSON strings of a tool call's arguments:
llama-cpp-python's grammar lets the model put a raw newline in a JSON string, which strict
JSON parsers (axllm's) refuse ("Invalid control character"); escaped, it is the same text.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

DEFAULT_MAX_TOKENS = 512


def _message_text(message: dict[str, Any]) -> str:
    calls = message.get("tool_calls") or []
    parts = [
        str((c.get("function") or {}).get("arguments") or "") for c in calls if isinstance(c, dict)
    ]
    call = message.get("function_call")
    if isinstance(call, dict):
        parts.append(str(call.get("arguments") or ""))
    return "\n".join(p for p in parts if p)


def capped_body(body: bytes, cap: int) -> bytes:
    """The request body with `max_tokens` set (the client's own limit when lower than the
    cap, from `max_tokens` or `max_completion_tokens`, else the cap) and a string
    `content` in every message. A body that is not a JSON object is passed on unchanged
    (the server answers it with its own error)."""
    try:
        data = json.loads(body or b"null")
    except ValueError:
        return body
    if not isinstance(data, dict):
        return body
    wanted = data.get("max_tokens") or data.get("max_completion_tokens")
    if isinstance(wanted, int) and not isinstance(wanted, bool) and wanted > 0:
        data["max_tokens"] = min(wanted, cap)
    else:
        data["max_tokens"] = cap
    for message in data.get("messages") or []:
        if isinstance(message, dict) and not isinstance(message.get("content"), str | list):
            message["content"] = _message_text(message)
    return json.dumps(data).encode("utf-8")


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def escape_controls_in_strings(text: str) -> str:
    """JSON text with raw control characters inside string literals escaped."""
    out: list[str] = []
    in_string = escaped = False
    for ch in text:
        if in_string and not escaped and ord(ch) < 0x20:
            out.append(_ESCAPES.get(ch, f"\\u{ord(ch):04x}"))
            continue
        out.append(ch)
        if escaped:
            escaped = False
        elif ch == "\\" and in_string:
            escaped = True
        elif ch == '"':
            in_string = not in_string
    return "".join(out)


def fixed_response(body: bytes) -> bytes:
    """A chat completion with its tool-call arguments made strict JSON (see above)."""
    try:
        data = json.loads(body)
    except ValueError:
        return body
    changed = False
    for choice in data.get("choices") or [] if isinstance(data, dict) else []:
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(message, dict):
            continue
        calls = [c.get("function") for c in message.get("tool_calls") or [] if isinstance(c, dict)]
        calls.append(message.get("function_call"))
        for call in calls:
            if isinstance(call, dict) and isinstance(call.get("arguments"), str):
                fixed = escape_controls_in_strings(call["arguments"])
                changed = changed or fixed != call["arguments"]
                call["arguments"] = fixed
    return json.dumps(data).encode("utf-8") if changed else body


class CapMaxTokens:
    """ASGI middleware: caps the answer length of every chat/completions request."""

    def __init__(self, app: App, cap: int) -> None:
        self.app = app
        self.cap = cap

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if (
            scope.get("type") != "http"
            or scope.get("method") != "POST"
            or not (path.endswith("/chat/completions") or path.endswith("/completions"))
        ):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = bool(message.get("more_body", False))
        body = capped_body(b"".join(chunks), self.cap)
        headers = [(k, v) for k, v in scope.get("headers", []) if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # then wait for the disconnect, as the server would

        start: Message | None = None
        parts: list[bytes] = []

        async def send_fixed(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = message  # held until the body is complete
                return
            if message["type"] != "http.response.body" or start is None:
                await send(message)
                return
            parts.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            out = fixed_response(b"".join(parts))
            head = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
            head.append((b"content-length", str(len(out)).encode()))
            await send({**start, "headers": head})
            await send({"type": "http.response.body", "body": out, "more_body": False})

        await self.app({**scope, "headers": headers}, replay, send_fixed)


def without_extra_buffer_types() -> None:
    """Load weights without llama.cpp's extra buffer types (the AMX and repacked-weight
    kernels). A wheel compiled with GGML_NATIVE on a CPU with AMX (a Sapphire Rapids
    cloud VM) segfaults in the first decode of more than one token with them on; a
    135M model loses nothing that matters without them. llama-cpp-python exposes no
    setting for it, so the default model parameters it starts from get the flag."""
    from llama_cpp import llama_cpp as native  # llama.py calls it through this module

    defaults = native.llama_model_default_params

    def params() -> Any:
        value = defaults()
        value.use_extra_bufts = False
        return value

    native.llama_model_default_params = params


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="the bundled local model's server")
    parser.add_argument("--model", required=True)
    parser.add_argument("--model-alias", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--n-threads", type=int, default=max(1, (os.cpu_count() or 2) // 2))
    parser.add_argument("--n-threads-batch", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--max-tokens", type=int, default=DEFAULT_MAX_TOKENS)
    args = parser.parse_args(argv)

    import uvicorn

    without_extra_buffer_types()
    from llama_cpp.server.app import create_app
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    app = create_app(
        server_settings=ServerSettings(host="127.0.0.1", port=args.port),
        model_settings=[
            ModelSettings(
                model=args.model,
                model_alias=args.model_alias,
                n_ctx=args.n_ctx,
                n_threads=args.n_threads,
                n_threads_batch=args.n_threads_batch,
                verbose=True,
            )
        ],
    )
    uvicorn.run(
        CapMaxTokens(app, args.max_tokens),
        host="127.0.0.1",
        port=args.port,
        log_level="warning",
    )


if __name__ == "__main__":
    main()
