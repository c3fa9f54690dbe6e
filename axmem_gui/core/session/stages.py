"""Which Ax stage sent a model request, told apart by its system prompt (axllm 25.4.6).

The actor stages name themselves (``You (`distiller`)``), the responder is the "Answer
Synthesis Agent", the context-map update calls are the "context-map Distiller" and
"context-map Cartographer", and llmQuery sub-calls use their own small signature.
"""

from __future__ import annotations

from typing import Any

from axmem_gui.core.session.payloads import system_text

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


def stage_of_request(request: Any) -> str:
    system = system_text(request)
    for marker, stage in _MARKERS:
        if marker in system:
            return stage
    if _LLM_QUERY_IDENTITY in system or "You answer ONE focused question" in system:
        return LLM_QUERY
    return OTHER


def is_actor(stage: str | None) -> bool:
    return stage in ACTOR_STAGES
