"""Which Ax stage sent a model request, told apart by its system prompt (axllm 25.4.6).

The actor stages name themselves (``You (`distiller`)``), the responder is the "Answer
Synthesis Agent", the context-map update calls are the "context-map Distiller" and
"context-map Cartographer", and llmQuery sub-calls use their own small signature.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

ACTOR_DISTILLER = "actor.distiller"
ACTOR_EXECUTOR = "actor.executor"
RESPONDER = "responder"
MAP_DISTILLER = "context_map.distiller"
MAP_CARTOGRAPHER = "context_map.cartographer"
LLM_QUERY = "llmQuery"
OTHER = "other"

STAGES = (
    ACTOR_DISTILLER,
    ACTOR_EXECUTOR,
    LLM_QUERY,
    RESPONDER,
    MAP_DISTILLER,
    MAP_CARTOGRAPHER,
    OTHER,
)
ACTOR_STAGES = (ACTOR_DISTILLER, ACTOR_EXECUTOR)

# Most specific first: the map prompts quote the words "distiller" and "agent" too.
_MARKERS = (
    ("context-map Distiller", MAP_DISTILLER),
    ("context-map Cartographer", MAP_CARTOGRAPHER),
    ("You (`distiller`)", ACTOR_DISTILLER),
    ("You (`executor`)", ACTOR_EXECUTOR),
    ("## Distiller", ACTOR_DISTILLER),
    ("## Executor", ACTOR_EXECUTOR),
    ("Answer Synthesis Agent", RESPONDER),
)
_LLM_QUERY_IDENTITY = "`Task`, `Context`. Your task is to generate new fields: `Answer`"


def message_text(content: Any) -> str:
    """The text of a chat message's content (a string or a list of content parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, Mapping) and isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif isinstance(part, str):
                parts.append(part)
        return "".join(parts)
    return "" if content is None else str(content)


def system_text(request: Mapping[str, Any]) -> str:
    prompt = request.get("chat_prompt")
    if not isinstance(prompt, list):
        return ""
    for message in prompt:
        if isinstance(message, Mapping) and message.get("role") == "system":
            return message_text(message.get("content"))
    return ""


def stage_of_request(request: Mapping[str, Any]) -> str:
    system = system_text(request)
    for marker, stage in _MARKERS:
        if marker in system:
            return stage
    if _LLM_QUERY_IDENTITY in system or "You answer ONE focused question" in system:
        return LLM_QUERY
    return OTHER
