"""Readers of what went over the wire for a call, as a version 2 session stores it: the
settings of the HTTP request body (`exchanges[i].wire.request`), the `params` derived from
them, and the facts of the provider's raw reply (`wire.response`). These are the
providers' own shapes (OpenAI's chat completions, Anthropic's messages, Gemini's
generateContent), read here only and defensively, as core.session.payloads reads axllm's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from axmem_gui.core.session.payloads import USAGE_KEYS, first_result, json_list, json_object

#: Keys of a provider's request body that hold the prompt, the tools and the output format
#: (the provider-neutral request has them); the rest are the settings of the call.
CONTENT_KEYS = frozenset(
    ("messages", "input", "contents", "system", "systemInstruction", "tools", "functions")
) | {"response_format"}
#: Provider names of a setting -> the neutral (axllm) name.
_NEUTRAL = {
    "max_completion_tokens": "max_tokens",
    "maxOutputTokens": "max_tokens",
    "topP": "top_p",
    "topK": "top_k",
    "presencePenalty": "presence_penalty",
    "frequencyPenalty": "frequency_penalty",
    "stopSequences": "stop",
    "stop_sequences": "stop",
    "candidateCount": "n",
}


def sent_settings(body: Any) -> dict[str, Any]:
    """The settings of an HTTP request body: everything but the prompt, tools and format
    (a copy, as JSON)."""
    if not isinstance(body, Mapping):
        return {}
    kept = json.loads(json.dumps({k: v for k, v in body.items() if k not in CONTENT_KEYS}))
    return dict(kept)


def neutral_settings(sent: Any) -> dict[str, Any]:
    """The settings sent, under axllm's neutral names (Gemini's `generationConfig`
    opened), the model left out."""
    out: dict[str, Any] = {}
    for k, v in json_object(sent).items():
        if k == "model":
            continue
        if k == "generationConfig" and isinstance(v, Mapping):
            out.update({_NEUTRAL.get(str(gk), str(gk)): gv for gk, gv in v.items()})
        else:
            out[_NEUTRAL.get(k, k)] = v
    return out


def params_of(request: Any, sent: Any, model: Any = None) -> dict[str, Any]:
    """`exchanges[i].params` of a call: the model and settings the provider was sent
    (`sent`: the body's settings, `wire.request`), and the tool choice Ax asked for (the
    neutral request's `function_call`). `model`: the model when the body names none."""
    config = neutral_settings(sent)
    sent_model = json_object(sent).get("model")
    chosen = sent_model if isinstance(sent_model, str) else model
    temperature = config.get("temperature")
    max_tokens = config.get("max_tokens")
    return {
        "model": chosen if isinstance(chosen, str) else None,
        "temperature": temperature
        if isinstance(temperature, int | float) and not isinstance(temperature, bool)
        else None,
        "max_tokens": max_tokens
        if isinstance(max_tokens, int) and not isinstance(max_tokens, bool)
        else None,
        "stream": config.get("stream") is True,
        "tool_choice": json_object(request).get("function_call"),
        "model_config": config,
    }


def served_model(response: Any) -> Any:
    """The model a response says served it (`model_usage.model`)."""
    return json_object(json_object(response).get("model_usage")).get("model")


def finish_reason(response: Any) -> Any:
    return first_result(response).get("finish_reason")


@dataclass(frozen=True, slots=True)
class RawFacts:
    """What an OpenAI-style raw reply (a chat completion, or its SSE stream) says about
    itself: the model that served it, its token counts, its finish reason (axllm's name
    for it)."""

    model: Any
    tokens: dict[str, int]
    finish: Any


#: axllm 25.4.6's reading of OpenAI's finish reasons.
_FINISH = {
    "stop": "stop",
    "length": "length",
    "content_filter": "error",
    "tool_calls": "function_call",
    "function_call": "function_call",
}


def _sse_events(text: str) -> list[Mapping[str, Any]]:
    out = []
    for line in text.split("\n"):
        if line.startswith("data:"):
            data = line[5:].strip()
            if data and data != "[DONE]":
                try:
                    event = json.loads(data)
                except ValueError:
                    continue
                if isinstance(event, Mapping):
                    out.append(event)
    return out


def raw_reply_facts(raw: Any) -> RawFacts | None:
    """The facts of a raw reply in OpenAI's chat-completions shape (JSON or SSE text);
    None for another shape (another provider's API: only its client reads it)."""
    events: list[Mapping[str, Any]]
    if isinstance(raw, Mapping) and isinstance(raw.get("choices"), list):
        events = [raw]
    elif isinstance(raw, str):
        events = [e for e in _sse_events(raw) if isinstance(e.get("choices"), list)]
    else:
        return None
    if not events:
        return None
    model = next((e["model"] for e in events if isinstance(e.get("model"), str)), None)
    usage: Mapping[str, Any] = next(
        (e["usage"] for e in reversed(events) if isinstance(e.get("usage"), Mapping)), {}
    )
    tokens = {
        k: usage[k]
        for k in USAGE_KEYS
        if isinstance(usage.get(k), int) and not isinstance(usage.get(k), bool)
    }
    finish = None
    for event in events:
        for choice in json_list(event.get("choices")):
            reason = json_object(choice).get("finish_reason")
            if isinstance(reason, str):
                finish = _FINISH.get(reason)
    return RawFacts(model, tokens, finish)


def reply_tokens(response: Any) -> dict[str, Any]:
    """The token counts a normalised response carries (`model_usage.tokens`)."""
    return dict(json_object(json_object(json_object(response).get("model_usage")).get("tokens")))
