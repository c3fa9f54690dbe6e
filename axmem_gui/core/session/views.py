"""Read-only views over a session document shared by diff, what-if and the GUI timeline."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from axmem_gui.core import jsontext
from axmem_gui.core.session.stages import ACTOR_STAGES


def exchanges(doc: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    value = doc.get("exchanges")
    return [e for e in value if isinstance(e, Mapping)] if isinstance(value, list) else []


def forwards(doc: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    value = doc.get("forwards")
    return [f for f in value if isinstance(f, Mapping)] if isinstance(value, list) else []


def forward_exchanges(doc: Mapping[str, Any], forward: int) -> list[Mapping[str, Any]]:
    return [e for e in exchanges(doc) if e.get("forward") == forward]


def response_text(response: Any) -> str:
    """What the model answered: the text, or the structured-output call's arguments."""
    if not isinstance(response, Mapping):
        return ""
    results = response.get("results")
    first = results[0] if isinstance(results, list) and results else None
    if not isinstance(first, Mapping):
        return ""
    calls = first.get("function_calls")
    if isinstance(calls, list) and calls:
        rendered = []
        for call in calls:
            fn = call.get("function") if isinstance(call, Mapping) else None
            if isinstance(fn, Mapping):
                params = fn.get("params", fn.get("arguments"))
                text = params if isinstance(params, str) else json.dumps(params, indent=2)
                rendered.append(f"{fn.get('name')}({text})")
        return "\n".join(rendered)
    content = first.get("content")
    return content if isinstance(content, str) else ""


def actor_code(response: Any) -> str | None:
    """The `javascriptCode` an actor turn asked to run, if the reply carries one."""
    if not isinstance(response, Mapping):
        return None
    results = response.get("results")
    first = results[0] if isinstance(results, list) and results else None
    if not isinstance(first, Mapping):
        return None
    calls = first.get("function_calls")
    candidates: list[Any] = []
    if isinstance(calls, list):
        for call in calls:
            fn = call.get("function") if isinstance(call, Mapping) else None
            if isinstance(fn, Mapping):
                candidates.append(fn.get("params", fn.get("arguments")))
    candidates.append(first.get("content"))
    for candidate in candidates:
        if isinstance(candidate, str):
            try:
                candidate = jsontext.parse(candidate)
            except ValueError:
                if candidate.startswith("javascriptCode:"):
                    return str(candidate.split(":", 1)[1].strip())
                continue
        if isinstance(candidate, Mapping) and isinstance(candidate.get("javascriptCode"), str):
            return str(candidate["javascriptCode"])
    return None


def tokens(exchange: Mapping[str, Any]) -> tuple[int, int]:
    usage = exchange.get("usage")
    if not isinstance(usage, Mapping):
        return 0, 0
    prompt = usage.get("prompt_tokens")
    completion = usage.get("completion_tokens")
    return (
        prompt if isinstance(prompt, int) else 0,
        completion if isinstance(completion, int) else 0,
    )


def duration_ms(exchange: Mapping[str, Any]) -> float:
    value = exchange.get("duration_ms")
    return float(value) if isinstance(value, (int, float)) else 0.0


def callback_ids(forward: Mapping[str, Any], kind: str) -> list[str]:
    """Ids reported to an observer callback (loaded_skills, used_memories, ...) in order,
    without repeats."""
    out: list[str] = []
    callbacks = forward.get("callbacks")
    for event in callbacks if isinstance(callbacks, list) else []:
        if not isinstance(event, Mapping) or event.get("kind") != kind:
            continue
        payload = event.get("payload")
        for item in payload if isinstance(payload, list) else []:
            item_id = item.get("id") if isinstance(item, Mapping) else None
            if isinstance(item_id, str) and item_id not in out:
                out.append(item_id)
    return out


@dataclass(frozen=True)
class CallKey:
    """Where a model call sits in a run: forward, stage, turn within the stage, and the
    repeat number for calls sharing a turn (llmQuery sub-calls, retries)."""

    forward: int
    stage: str
    turn: int
    repeat: int = 0

    def label(self) -> str:
        extra = f".{self.repeat}" if self.repeat else ""
        return f"forward {self.forward + 1} · {self.stage} · turn {self.turn + 1}{extra}"


def call_keys(doc: Mapping[str, Any]) -> Iterator[tuple[CallKey, Mapping[str, Any]]]:
    seen: dict[tuple[int, str, int], int] = {}
    for ex in exchanges(doc):
        fwd = ex.get("forward")
        turn = ex.get("turn")
        base = (
            fwd if isinstance(fwd, int) else 0,
            str(ex.get("stage")),
            turn if isinstance(turn, int) else 0,
        )
        repeat = seen.get(base, 0)
        seen[base] = repeat + 1
        yield CallKey(*base, repeat=repeat), ex


def is_actor(stage: str) -> bool:
    return stage in ACTOR_STAGES
