"""The texts the session viewer shows, taken from a session document (pure, no Qt).

Everything here returns the recorded text exactly; headers are added only where several
messages share one view, in the same form as the replay diff (`request_as_text`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from axmem_gui.core.jsout import json_dumps
from axmem_gui.core.session.stages import ACTOR_STAGES, message_text
from axmem_gui.core.session.views import actor_code, response_text, tokens


def pretty(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json_dumps(value, indent=2)


def _messages(request: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    prompt = request.get("chat_prompt")
    return [m for m in prompt if isinstance(m, Mapping)] if isinstance(prompt, list) else []


def _joined(messages: list[tuple[int, Mapping[str, Any]]]) -> str:
    if len(messages) == 1:
        return message_text(messages[0][1].get("content"))
    parts = []
    for i, message in messages:
        parts.append(f"=== message {i}: {message.get('role')} ===")
        parts.append(message_text(message.get("content")))
    return "\n".join(parts)


def system_prompt(request: Mapping[str, Any]) -> str:
    return _joined([(i, m) for i, m in enumerate(_messages(request)) if m.get("role") == "system"])


def user_prompt(request: Mapping[str, Any]) -> str:
    """Every non-system message (the user turn, and earlier turns of a multi-turn call)."""
    return _joined([(i, m) for i, m in enumerate(_messages(request)) if m.get("role") != "system"])


def error_text(error: Any) -> str:
    if not isinstance(error, Mapping):
        return ""
    kind = error.get("kind")
    status = error.get("status")
    # Some axllm errors carry no message of their own; say at least what failed.
    message = error.get("message") or (f"HTTP {status}" if status else error.get("type"))
    return f"[{kind}] {message or 'failed'}" if kind else str(message or "failed")


def response(exchange: Mapping[str, Any]) -> str:
    text = response_text(exchange.get("response"))
    failure = error_text(exchange.get("error"))
    if failure:
        return f"{text}\n\n{failure}" if text else failure
    return text


def code_of(exchange: Mapping[str, Any], turn_code: str | None) -> str | None:
    """The JavaScript an actor call asked to run (None for other stages)."""
    if exchange.get("stage") not in ACTOR_STAGES:
        return None
    return turn_code if turn_code else actor_code(exchange.get("response"))


def runtime_output(output: Any, is_error: bool) -> str:
    if output is None or output == "":
        return ""
    text = pretty(output)
    return f"[runtime error]\n{text}" if is_error else text


def call_details(exchange: Mapping[str, Any]) -> str:
    """Tokens, latency, digest, timing and HTTP attempts of one model call."""
    prompt, completion = tokens(exchange)
    request = exchange.get("request") if isinstance(exchange.get("request"), Mapping) else {}
    assert isinstance(request, Mapping)
    lines = [
        f"call #{exchange.get('index')} · {exchange.get('stage')} · "
        f"forward {_plus_one(exchange.get('forward'))} · turn {_plus_one(exchange.get('turn'))}",
        f"model:              {request.get('model') or '—'}",
        f"prompt tokens:      {prompt:,}",
        f"completion tokens:  {completion:,}",
        f"total tokens:       {prompt + completion:,}",
        f"latency:            {_ms(exchange.get('duration_ms'))}",
        f"started at:         {exchange.get('started_at') or '—'}",
        f"digest:             {exchange.get('digest')}",
    ]
    config = request.get("model_config")
    if config:
        lines.append(f"model config:       {json_dumps(config)}")
    attempts = exchange.get("http_attempts")
    if isinstance(attempts, list) and attempts:
        lines.append(f"HTTP attempts:      {len(attempts)}")
        lines += [f"  {a.get('method')} {a.get('url')}" for a in attempts if isinstance(a, Mapping)]
    failure = error_text(exchange.get("error"))
    if failure:
        lines.append(f"error:              {failure}")
    return "\n".join(lines) + "\n"


def forward_details(forward: Mapping[str, Any]) -> str:
    lines = [f"forward {_plus_one(forward.get('index'))} · {forward.get('status')}"]
    if forward.get("started_at"):
        lines.append(f"started at: {forward.get('started_at')}")
    lines += ["", "inputs:", pretty(forward.get("inputs") or {}), "", "output:"]
    lines.append(pretty(forward.get("output")) if forward.get("output") is not None else "—")
    error = forward.get("error")
    if isinstance(error, Mapping):
        lines += ["", f"error: {error_text(error)}"]
        if error.get("detail"):
            lines.append(f"detail: {error.get('detail')}")
    usage = forward.get("usage")
    if usage:
        lines += ["", "usage (axllm):", pretty(usage)]
    return "\n".join(lines) + "\n"


def map_update_text(update: Any) -> str:
    """The context-map update of a forward: status, diagnosis, operations, effect."""
    if not isinstance(update, Mapping) or update.get("status") in (None, "none"):
        return "This agent has no context map."
    lines = [f"update: {update.get('status')} (step {update.get('step')})"]
    if update.get("diagnosis"):
        lines += ["", "diagnosis:", str(update.get("diagnosis"))]
    operations = update.get("operations")
    if operations:
        lines += ["", "operations (Cartographer):"]
        for op in operations if isinstance(operations, list) else [operations]:
            lines.append("  " + (json_dumps(op) if op is not None else ""))
    for key in ("added", "removed", "changed"):
        ids = update.get(key)
        if ids:
            lines.append(f"{key}: {', '.join(str(i) for i in ids)}")
    errors = update.get("errors")
    if errors:
        lines += ["", "errors:"] + [f"  {e}" for e in errors]
    return "\n".join(lines) + "\n"


def _plus_one(value: Any) -> str:
    return str(value + 1) if isinstance(value, int) else "?"


def _ms(value: Any) -> str:
    return f"{value:,.1f} ms" if isinstance(value, (int, float)) else "—"


def function_calls_text(calls: list[Mapping[str, Any]]) -> str:
    """An app's function-tool calls (docs/recorders.md) as recorded: the call with its
    arguments, where it was made, then its result or error."""
    lines = []
    for call in calls:
        name = call.get("qualified_name") or call.get("name")
        turn = call.get("turn")
        # Numbered from 1, as the timeline shows turns.
        shown = turn + 1 if isinstance(turn, int) and not isinstance(turn, bool) else "?"
        where = f"after call #{call.get('call_index')} ({call.get('stage')} turn {shown})"
        ms = call.get("duration_ms")
        lines.append(
            f"{name}({json_dumps(call.get('args'))})   {where}"
            + (f"   {ms:,.1f} ms" if isinstance(ms, int | float) else "")
        )
        error = call.get("error")
        if error:
            lines.append(f"  ✗ {error_text(error) or pretty(error)}")
        else:
            result = pretty(call.get("result")).replace("\n", "\n    ")
            lines.append(f"  → {result}")
    return "\n".join(lines) + ("\n" if lines else "")
