"""Readers of the JSON axllm produced, which a session stores verbatim: requests,
responses, traces, context-map states and callback payloads; and of what an app's
recording stores verbatim beside them (TypeScript Ax's own map-update result, the app's
function results).

These are not our documents: their shape is axllm's (25.4.6) and a stored file may hold
anything in them, so they stay JSON in the typed session (`JsonValue` fields) and are read
here only, defensively (a wrong shape reads as empty, never as a crash). Everything else
asks these functions instead of looking inside the JSON itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from axmem_gui.core import jsontext
from axmem_gui.core.session.actor_code import FIELD, reply_code

#: The request parts that decide what the model sees. `model_config` and provider metadata
#: are left out on purpose: a rerun on another model must still line up call by call.
DIGEST_KEYS = ("chat_prompt", "functions", "response_format")


def _object(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


# --- requests ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Message:
    index: int  # its place in the request's chat prompt
    role: Any
    text: str


def message_text(content: Any) -> str:
    """The text of a chat message's content (a string or a list of content parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            text = _object(part).get("text")
            if isinstance(text, str):
                parts.append(text)
            elif isinstance(part, str):
                parts.append(part)
        return "".join(parts)
    return "" if content is None else str(content)


def messages(request: Any) -> list[Message]:
    """The request's chat messages in order (items that are not objects skipped)."""
    return [
        Message(i, m.get("role"), message_text(m.get("content")))
        for i, m in enumerate(_list(_object(request).get("chat_prompt")))
        if isinstance(m, Mapping)
    ]


def system_text(request: Any) -> str:
    return next((m.text for m in messages(request) if m.role == "system"), "")


def request_part(request: Any, key: str) -> Any:
    """A top-level part of a request (`functions`, `response_format`, `model`, ...)."""
    return _object(request).get(key)


def digest_basis(request: Any) -> dict[str, Any]:
    """What a request's digest covers."""
    return {k: request_part(request, k) for k in DIGEST_KEYS}


# --- responses ---------------------------------------------------------------------------


def _first_result(response: Any) -> Mapping[str, Any]:
    results = _list(_object(response).get("results"))
    return _object(results[0]) if results else {}


def _function_calls(first: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [
        _object(call.get("function"))
        for call in _list(first.get("function_calls"))
        if isinstance(call, Mapping) and isinstance(call.get("function"), Mapping)
    ]


def _params(fn: Mapping[str, Any]) -> Any:
    return fn.get("params", fn.get("arguments"))


def response_text(response: Any) -> str:
    """What the model answered: the text, or the structured-output call's arguments."""
    first = _first_result(response)
    if _list(first.get("function_calls")):
        rendered = []
        for fn in _function_calls(first):
            params = _params(fn)
            text = params if isinstance(params, str) else json.dumps(params, indent=2)
            rendered.append(f"{fn.get('name')}({text})")
        return "\n".join(rendered)
    content = first.get("content")
    return content if isinstance(content, str) else ""


def actor_code(response: Any) -> str | None:
    """The code an actor reply makes Ax run (or refuse), read as Ax reads it
    (core.session.actor_code): a structured-output call's `javascriptCode`, the reply's
    as a JSON object, else its text."""
    first = _first_result(response)
    content = first.get("content")
    structured: list[Any] = []
    for fn in _function_calls(first):
        params = _params(fn)
        if isinstance(params, str):
            params = json_or_text(params)
        if isinstance(params, Mapping) and FIELD in params:
            structured.append(params[FIELD])
    if not structured and isinstance(content, str):
        parsed = json_or_text(content)
        if isinstance(parsed, Mapping):
            structured.append(parsed.get(FIELD))  # a JSON object without it: no code
    return reply_code(content if isinstance(content, str) else None, structured)


def actor_code_v1(response: Any) -> str | None:
    """How the studio read an actor reply's code before it read it as Ax does
    (`actor_code`): a JSON `javascriptCode` or a `javascriptCode:` line only. Version 1
    files linked their turns to calls with it (`derive.turns`), and are checked as they
    were written; a bare-code reply's turn stays unlinked there."""
    first = _first_result(response)
    candidates: list[Any] = [_params(fn) for fn in _function_calls(first)]
    candidates.append(first.get("content"))
    for candidate in candidates:
        if isinstance(candidate, str):
            try:
                candidate = jsontext.parse(candidate)
            except ValueError:
                if candidate.startswith("javascriptCode:"):
                    return str(candidate.split(":", 1)[1].strip())
                continue
        code = _object(candidate).get(FIELD)
        if isinstance(code, str):
            return code
    return None


def reply_fields(response: Any, keys: tuple[str, ...]) -> dict[str, Any]:
    """Output fields of a plain AxGen reply: `key: value` lines (JSON values parsed), or
    the params of a structured-output function call."""
    first = _first_result(response)
    calls = _list(first.get("function_calls"))
    if calls:
        params = _object(_object(calls[0]).get("function")).get("params")
        if isinstance(params, str):
            params = json_or_text(params)
        if isinstance(params, Mapping):
            return {k: params[k] for k in keys if k in params}
    content = first.get("content")
    if not isinstance(content, str):
        return {}
    stripped = content.strip()
    if stripped.startswith("{"):
        parsed = json_or_text(stripped)
        if isinstance(parsed, Mapping):
            return {k: parsed[k] for k in keys if k in parsed}
    return field_lines(content, keys)


@dataclass(frozen=True, slots=True)
class Reflection:
    """The context-map Distiller's reply (the model's JSON, as it gave it)."""

    diagnosis: Any = None
    item_tags: Any = None
    cache_candidates: Any = None


def distiller_reply(response: Any) -> Reflection:
    fields = reply_fields(response, ("diagnosis", "itemTags", "cacheCandidates"))
    return Reflection(
        fields.get("diagnosis"), fields.get("itemTags"), fields.get("cacheCandidates")
    )


def cartographer_operations(response: Any) -> Any:
    """The operations the context-map Cartographer proposed (None when it gave none)."""
    return reply_fields(response, ("operations",)).get("operations")


def field_lines(text: str, keys: tuple[str, ...]) -> dict[str, Any]:
    pattern = re.compile(r"^(" + "|".join(re.escape(k) for k in keys) + r")\s*:\s?(.*)$")
    found: dict[str, list[str]] = {}
    current: str | None = None
    for line in text.split("\n"):
        match = pattern.match(line)
        if match:
            current = match.group(1)
            found[current] = [match.group(2)]
        elif current is not None:
            found[current].append(line)
    out: dict[str, Any] = {}
    for key, parts in found.items():
        raw = "\n".join(parts).strip()
        out[key] = raw if key == "diagnosis" else json_or_text(raw)
    return out


def json_or_text(raw: str) -> Any:
    try:
        return jsontext.parse(raw)
    except ValueError:
        return raw


_USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens")


def usage_of_response(response: Any) -> dict[str, int] | None:
    """An exchange's `usage`: the token counts of its response's `model_usage`."""
    if not isinstance(response, Mapping):
        return None
    tokens = _object(response.get("model_usage")).get("tokens")
    if not isinstance(tokens, Mapping):
        return None
    return {
        k: int(tokens[k])
        for k in _USAGE_KEYS
        if isinstance(tokens.get(k), int) and not isinstance(tokens.get(k), bool)
    }


# --- traces, map states, callback payloads -----------------------------------------------


@dataclass(frozen=True, slots=True)
class Execution:
    """One `runtime_execute` event of a trace: the code an actor turn ran, and what came
    of it (the other values are the trace's own)."""

    stage: Any
    turn: Any
    kind: Any
    code: str
    output: Any
    result: Any
    is_error: bool
    error: Any


def executions(trace: Any) -> list[Execution]:
    out = []
    for event in _list(_object(trace).get("events")):
        if not isinstance(event, Mapping) or event.get("kind") != "runtime_execute":
            continue
        p = _object(event.get("payload"))
        out.append(
            Execution(
                stage=p.get("stage"),
                turn=p.get("turn"),
                kind=p.get("kind"),
                code=str(p.get("code") or ""),
                output=p.get("output"),
                result=p.get("result"),
                is_error=bool(p.get("is_error")),
                error=p.get("error"),
            )
        )
    return out


def map_text(state: Any) -> str:
    """The text of a context-map state (axllm's `context_map`), "" without one."""
    return str(_object(state).get("text", ""))


def map_steps(state: Any) -> Any:
    return _object(state).get("steps", 0)


def map_scores(state: Any) -> dict[str, Any]:
    """The map's item scores, when the state holds an object of them."""
    scores = _object(state).get("scores")
    return dict(scores) if isinstance(scores, Mapping) else {}


def payload_ids(payload: Any) -> list[str]:
    """The entry ids a loaded/used callback reported (string ids only), in order."""
    return [
        item["id"]
        for item in _list(payload)
        if isinstance(item, Mapping) and isinstance(item.get("id"), str)
    ]


def runtime_map(state: Any) -> dict[str, Any] | None:
    """The context map of an agent's exported runtime state (None without one)."""
    found = _object(state).get("context_map")
    return found if isinstance(found, dict) else None


# --- what an actor turn came to ------------------------------------------------------------

#: How axllm 25.4.6 starts the message that asks a model to fix a reply it could not use
#: (a parse or validation error, or an assertion): the retry request ends with it.
CORRECTION_PREFIXES = ("Invalid Field: ", "Follow these instructions: ")
#: How axllm starts the runtime's refusal to run a turn's code (one fenced block at most).
POLICY_PREFIX = "[POLICY]"


@dataclass(frozen=True, slots=True)
class Refusal:
    """A turn whose code the runtime refused to run (a trace `error` event)."""

    code: str
    output: str


def policy_refusals(trace: Any) -> list[Refusal]:
    """The runtime's refusals of a trace, in order."""
    out = []
    for event in _list(_object(trace).get("events")):
        if not isinstance(event, Mapping) or event.get("kind") != "error":
            continue
        p = _object(event.get("payload"))
        output = p.get("output")
        if isinstance(output, str) and output.startswith(POLICY_PREFIX):
            out.append(Refusal(code=str(p.get("code") or ""), output=output))
    return out


@dataclass(frozen=True, slots=True)
class Correction:
    """How a retry request asks the model to fix its previous reply."""

    count: int  # correction messages in the request: the retry's number
    error: str  # the last one's reason, without axllm's prefix
    text: str  # the messages after the model's last reply, as the model reads them


def correction(request: Any) -> Correction | None:
    """The correction a retry request ends with (None: the request is no retry)."""
    found = messages(request)
    if not found or found[-1].role != "user":
        return None
    last = found[-1].text
    prefix = next((p for p in CORRECTION_PREFIXES if last.startswith(p)), None)
    if prefix is None:
        return None
    count = sum(
        1
        for m in found
        if m.role == "user" and any(m.text.startswith(p) for p in CORRECTION_PREFIXES)
    )
    tail: list[str] = []
    for m in reversed(found):
        if m.role != "user":
            break
        tail.append(m.text)
    return Correction(count, last[len(prefix) :], "\n".join(reversed(tail)))


_FIELDS = re.compile(r"You will be provided with the following fields: (.*?)\. Your task")


def prompt_field(request: Any, title: str) -> str | None:
    """The value of input field `title` (e.g. "Action Log") in a request's last user
    message, as the model read it; None when the message has no such field. The field
    titles are the ones the system prompt announces."""
    announced = _FIELDS.search(system_text(request))
    titles = re.findall(r"`([^`]+)`", announced.group(1)) if announced else []
    # (the first user message holds the fields; a retry's corrections come after it)
    text = next((m.text for m in messages(request) if m.role == "user"), None)
    if text is None:
        return None
    start = 0 if text.startswith(f"{title}: ") else text.find(f"\n\n{title}: ")
    if start < 0:
        return None
    if start > 0:
        start += 2
    start += len(title) + 2
    ends = [text.find(f"\n\n{t}: ", start) for t in titles if t != title]
    found_ends = [e for e in ends if e >= 0]
    return text[start : min(found_ends)] if found_ends else text[start:]


_FENCED = re.compile(r"^```[A-Za-z0-9_-]*[ \t]*\n(.*?)\n?```$", re.DOTALL)


def runtime_code(code: str) -> str:
    """An actor reply's code as the runtime runs it: one surrounding fence removed."""
    stripped = code.strip()
    found = _FENCED.match(stripped)
    return found.group(1).strip() if found else stripped


_UNFIXABLE = re.compile(
    r"Unable to fix (?:validation|assertion) error: (.*?)(?:\n\nLLM Output:|$)", re.DOTALL
)


def unfixable_reply(detail: str | None) -> str | None:
    """The reason axllm gave up on a reply it could not use after its retries (from the
    forward's error), None when the forward failed for another reason."""
    found = _UNFIXABLE.search(detail or "")
    return found.group(1).strip() if found else None


#: The settings a context-map state carries (axllm's names; the agent's `contextMap`
#: has the same ones).
MAP_SETTING_KEYS = ("maxChars", "infiniteEvolve", "evolveSteps")


def map_settings_of_state(state: Any) -> tuple[Any, Any, Any] | None:
    """`(maxChars, infiniteEvolve, evolveSteps)` of a map state (None for each it does not
    carry), None for no state or a map given as text."""
    if not isinstance(state, Mapping):
        return None
    max_chars, infinite, steps = (state.get(k) for k in MAP_SETTING_KEYS)
    return max_chars, infinite, steps


# --- what an app's recording stores verbatim ---------------------------------------------


@dataclass(frozen=True, slots=True)
class AxUpdateReport:
    """What TypeScript Ax passed to a context map's `onUpdate` (`context_map_update_ax`):
    its status and step, the kinds of the operations it applied (upper case), and the
    items its REPLACE operations named."""

    status: Any
    step: Any
    operation_kinds: tuple[str, ...]
    replaced: tuple[str, ...]


def ax_update_report(value: Any) -> AxUpdateReport | None:
    if not isinstance(value, Mapping):
        return None
    operations = [o for o in _list(value.get("operations")) if isinstance(o, Mapping)]
    kinds = tuple(str(o.get("type", "")).upper() for o in operations)
    replaced = tuple(
        str(o.get("itemId", o.get("item_id")))
        for o, kind in zip(operations, kinds, strict=True)
        if kind == "REPLACE"
    )
    return AxUpdateReport(value.get("status"), value.get("step"), kinds, replaced)


def truncated_preview(value: Any) -> bool:
    """Whether an app's value (a function result, a payload) was too large to record and
    is kept as the recorder's preview (`{"truncated": true, "chars", "preview"}`)."""
    return isinstance(value, Mapping) and value.get("truncated") is True


def usage_lists(usage: Any) -> dict[str, Any] | None:
    """A forward's `usage` (axllm's `get_usage()`) when it has its usual shape
    (`chat_log_entries`, `actor`, `responder`), else None."""
    if not isinstance(usage, Mapping) or not isinstance(usage.get("actor"), list):
        return None
    return dict(usage)


def trace_usage(trace: Any) -> Any:
    """The usage a trace carries (the same as the forward's, when both are there)."""
    return _object(trace).get("usage")


#: The defensive readers the other edge module of provider JSON shares
#: (core.session.wire_payloads).
json_object, json_list, first_result, USAGE_KEYS = _object, _list, _first_result, _USAGE_KEYS


def config_setting(model_config: Any, key: str) -> tuple[bool, Any]:
    """(present, value) of one setting in a recorded `params.model_config`."""
    config = _object(model_config)
    return (key in config, config.get(key))
