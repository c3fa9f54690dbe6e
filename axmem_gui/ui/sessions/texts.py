"""The texts the session viewer shows, taken from a session (pure, no Qt).

Everything here returns the recorded text exactly; headers are added only where several
messages share one view, in the same form as the replay diff (`request_as_text`).
"""

from __future__ import annotations

from typing import Any

from axmem_gui.core.jsout import json_dumps
from axmem_gui.core.records import to_json_value
from axmem_gui.core.session.map_records import MapUpdate
from axmem_gui.core.session.model import Exchange, Forward, FunctionCall, RunError
from axmem_gui.core.session.payloads import (
    Message,
    actor_code,
    messages,
    request_part,
    response_text,
)
from axmem_gui.core.session.replay_cursor import request_as_text
from axmem_gui.core.session.stages import is_actor
from axmem_gui.core.session.wire_payloads import finish_reason, served_model


def pretty(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json_dumps(value, indent=2)


def _joined(found: list[Message]) -> str:
    if len(found) == 1:
        return found[0].text
    parts = []
    for message in found:
        parts.append(f"=== message {message.index}: {message.role} ===")
        parts.append(message.text)
    return "\n".join(parts)


def system_prompt(request: Any) -> str:
    return _joined([m for m in messages(request) if m.role == "system"])


def user_prompt(request: Any) -> str:
    """Every non-system message (the user turn, and earlier turns of a multi-turn call)."""
    return _joined([m for m in messages(request) if m.role != "system"])


def error_text(error: RunError | None) -> str:
    if error is None:
        return ""
    # Some axllm errors carry no message of their own; say at least what failed.
    message = error.message or (f"HTTP {error.status}" if error.status else error.type)
    return f"[{error.kind}] {message or 'failed'}" if error.kind else str(message or "failed")


def response(exchange: Exchange) -> str:
    text = response_text(exchange.response)
    failure = error_text(exchange.error)
    if failure:
        return f"{text}\n\n{failure}" if text else failure
    return text


def code_of(exchange: Exchange, turn_code: str | None) -> str | None:
    """The JavaScript an actor call asked to run (None for other stages)."""
    if not is_actor(exchange.stage):
        return None
    return turn_code if turn_code else actor_code(exchange.response)


def runtime_output(output: Any, is_error: bool) -> str:
    if output is None or output == "":
        return ""
    text = pretty(output)
    return f"[runtime error]\n{text}" if is_error else text


def turn_result(outcome: str | None, message: str | None, output: Any, is_error: bool) -> str:
    """The Runtime output tab of a turn: what its code printed, or, when it did not run,
    the runtime's refusal, the reason the reply was unusable, or why the call failed."""
    if outcome in (None, "ran"):
        return runtime_output(output, is_error)
    return message or ""


#: The Runtime output tab's placeholder per outcome (its text is empty).
NO_OUTPUT = {
    "ran": "The code printed nothing.",
    "refused": "The runtime refused the code: it did not run.",
    "invalid_output": "The reply could not be used: no code ran.",
    "timeout": "The call timed out: no code ran.",
    "cancelled": "The call was cancelled: no code ran.",
    "failed": "The call failed: no code ran.",
    "unused": "Ax did not act on this reply: no code ran.",
}


def request_text(exchange: Exchange) -> str:
    """The Request tab: the provider-neutral request, the parameters that decided the
    call (`params`), and the settings as the provider got them (`wire.request`)."""
    if exchange.params is None:
        head = "=== params ===\n(not recorded: the session was recorded before they were)\n"
    else:
        params = json_dumps(to_json_value(exchange.params), indent=2, sort_keys=True)
        head = f"=== params (what decided the call) ===\n{params}\n"
    if exchange.wire is not None:
        sent = json_dumps(exchange.wire.request, indent=2, sort_keys=True)
        head += f"=== sent to the provider (the HTTP body without the prompt) ===\n{sent}\n"
    return head + request_as_text(exchange.request)


def call_details(exchange: Exchange) -> str:
    """Tokens, latency, digest, timing and HTTP attempts of one model call."""
    prompt, completion = exchange.tokens
    request = exchange.request
    asked = exchange.params.model if exchange.params is not None else None
    lines = [
        f"call #{exchange.index} · {exchange.stage} · "
        f"forward {exchange.forward + 1} · turn {exchange.turn + 1}",
        f"model:              {asked or request_part(request, 'model') or '—'}",
        f"served by:          {served_model(exchange.response) or '—'}",
        f"finish reason:      {finish_reason(exchange.response) or '—'}",
        f"prompt tokens:      {prompt:,}",
        f"completion tokens:  {completion:,}",
        f"total tokens:       {prompt + completion:,}",
        f"latency:            {_ms(exchange.duration_ms)}",
        f"started at:         {exchange.started_at or '—'}",
        f"digest:             {exchange.digest}",
    ]
    config = request_part(request, "model_config")
    if config:
        lines.append(f"model config:       {json_dumps(config)}")
    tries = exchange.attempts or ()
    if tries:
        lines.append(f"attempts:           {len(tries)}")
        for n, attempt in enumerate(tries, 1):
            wait = f", then waited {attempt.retry_in_s:g} s" if attempt.retry_in_s else ""
            lines.append(f"  {n}. {attempt.outcome} in {_ms(attempt.duration_ms)}{wait}")
    attempts = exchange.http_attempts
    if attempts:
        lines.append(f"HTTP attempts:      {len(attempts)}")
        lines += [f"  {a.method} {a.url}" for a in attempts]
    failure = error_text(exchange.error)
    if failure:
        lines.append(f"error:              {failure}")
    return "\n".join(lines) + "\n"


def forward_details(forward: Forward) -> str:
    lines = [f"forward {forward.index + 1} · {forward.status}"]
    if forward.started_at:
        lines.append(f"started at: {forward.started_at}")
    lines += ["", "inputs:", pretty(forward.inputs), "", "output:"]
    lines.append(pretty(forward.output) if forward.output is not None else "—")
    error = forward.error
    if error is not None:
        lines += ["", f"error: {error_text(error)}"]
        if error.detail:
            lines.append(f"detail: {error.detail}")
    if forward.usage:
        lines += ["", "usage (axllm):", pretty(forward.usage)]
    return "\n".join(lines) + "\n"


def map_update_text(update: MapUpdate | None) -> str:
    """The context-map update of a forward: status, diagnosis, operations, effect."""
    if update is None or update.status in (None, "none"):
        return "This agent has no context map."
    lines = [f"update: {update.status} (step {update.step})"]
    if update.diagnosis:
        lines += ["", "diagnosis:", str(update.diagnosis)]
    operations = update.operations
    if operations:
        lines += ["", "operations (Cartographer):"]
        for op in operations if isinstance(operations, list) else [operations]:
            lines.append("  " + (json_dumps(op) if op is not None else ""))
    effects = (("added", update.added), ("removed", update.removed), ("changed", update.changed))
    for name, ids in effects:
        if ids:
            lines.append(f"{name}: {', '.join(ids)}")
    if update.errors:
        lines += ["", "errors:"] + [f"  {e}" for e in update.errors]
    return "\n".join(lines) + "\n"


def _ms(value: float | int | None) -> str:
    return f"{value:,.1f} ms" if value is not None else "—"


def function_calls_text(calls: list[FunctionCall]) -> str:
    """An app's function-tool calls (docs/recorders.md) as recorded: the call with its
    arguments, where it was made, then its result or error."""
    lines = []
    for call in calls:
        # Numbered from 1, as the timeline shows turns.
        shown = call.turn + 1 if call.turn is not None else "?"
        where = f"after call #{call.call_index} ({call.stage} turn {shown})"
        ms = call.duration_ms
        lines.append(
            f"{call.label}({json_dumps(call.args)})   {where}"
            + (f"   {ms:,.1f} ms" if ms is not None else "")
        )
        if call.error is not None:
            lines.append(f"  ✗ {error_text(call.error) or pretty(call.error.to_json())}")
        else:
            result = pretty(call.result).replace("\n", "\n    ")
            lines.append(f"  → {result}")
    return "\n".join(lines) + ("\n" if lines else "")
