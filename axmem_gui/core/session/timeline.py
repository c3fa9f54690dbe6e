"""A session as a tree for the viewer: forward > stage > turn > model call.

An llmQuery sub-call is placed under the actor turn whose code issued it. Each turn carries
what happened around its calls: the actor code and runtime output, the discover/recall
calls it made, and the loaded/used callbacks that fired.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from axmem_gui.core.session.stages import ACTOR_STAGES, LLM_QUERY
from axmem_gui.core.session.views import duration_ms, exchanges, forwards, tokens


@dataclass(frozen=True)
class CallNode:
    index: int
    stage: str
    digest: str
    duration_ms: float
    prompt_tokens: int
    completion_tokens: int
    error: str | None


@dataclass
class TurnNode:
    stage: str
    turn: int
    calls: list[CallNode] = field(default_factory=list)
    code: str | None = None
    output: Any = None
    is_error: bool = False
    searches: list[Mapping[str, Any]] = field(default_factory=list)
    callbacks: list[Mapping[str, Any]] = field(default_factory=list)


@dataclass
class StageNode:
    stage: str
    turns: list[TurnNode] = field(default_factory=list)


@dataclass
class ForwardNode:
    index: int
    status: str
    inputs: Mapping[str, Any]
    output: Any
    error: Mapping[str, Any] | None
    context_map_update: Mapping[str, Any] | None
    stages: list[StageNode] = field(default_factory=list)


def _call(ex: Mapping[str, Any]) -> CallNode:
    prompt, completion = tokens(ex)
    error = ex.get("error")
    index = ex.get("index")
    return CallNode(
        index=index if isinstance(index, int) else -1,
        stage=str(ex.get("stage")),
        digest=str(ex.get("digest")),
        duration_ms=duration_ms(ex),
        prompt_tokens=prompt,
        completion_tokens=completion,
        error=str(error.get("message")) if isinstance(error, Mapping) else None,
    )


def _by_call(items: Any) -> dict[int, list[Mapping[str, Any]]]:
    out: dict[int, list[Mapping[str, Any]]] = {}
    for item in items if isinstance(items, list) else []:
        if isinstance(item, Mapping) and isinstance(item.get("call_index"), int):
            out.setdefault(item["call_index"], []).append(item)
    return out


def session_timeline(doc: Mapping[str, Any]) -> list[ForwardNode]:
    all_exchanges = exchanges(doc)
    nodes: list[ForwardNode] = []
    for fw in forwards(doc):
        raw_index = fw.get("index")
        error = fw.get("error")
        update = fw.get("context_map_update")
        inputs = fw.get("inputs")
        node = ForwardNode(
            index=raw_index if isinstance(raw_index, int) else len(nodes),
            status=str(fw.get("status")),
            inputs=inputs if isinstance(inputs, Mapping) else {},
            output=fw.get("output"),
            error=error if isinstance(error, Mapping) else None,
            context_map_update=update if isinstance(update, Mapping) else None,
        )
        turns_by_call = _by_call(fw.get("turns"))
        searches_by_call = _by_call(fw.get("searches"))
        callbacks_by_call = _by_call(fw.get("callbacks"))
        stages: dict[str, StageNode] = {}
        turn_nodes: dict[tuple[str, int], TurnNode] = {}
        last_actor_turn: TurnNode | None = None
        for ex in all_exchanges:
            if ex.get("forward") != node.index:
                continue
            call = _call(ex)
            stage = call.stage
            raw_turn = ex.get("turn")
            turn_no = raw_turn if isinstance(raw_turn, int) else 0
            turn: TurnNode
            if stage == LLM_QUERY and last_actor_turn is not None:
                turn = last_actor_turn
            else:
                key = (stage, turn_no)
                found = turn_nodes.get(key)
                if found is None:
                    found = TurnNode(stage, turn_no)
                    turn_nodes[key] = found
                    stages.setdefault(stage, StageNode(stage)).turns.append(found)
                turn = found
                if stage in ACTOR_STAGES:
                    last_actor_turn = turn
            turn.calls.append(call)
            for t in turns_by_call.get(call.index, []):
                turn.code = str(t.get("code") or "")
                turn.output = t.get("output")
                turn.is_error = bool(t.get("is_error"))
            turn.searches.extend(searches_by_call.get(call.index, []))
            turn.callbacks.extend(callbacks_by_call.get(call.index, []))
        node.stages = list(stages.values())
        nodes.append(node)
    return nodes
