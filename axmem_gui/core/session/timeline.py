"""A session as a tree for the viewer: forward > stage > turn > model call.

An llmQuery sub-call is placed under the actor turn whose code issued it. Each turn carries
what happened around its calls: the actor code and runtime output, the discover/recall
calls it made, and the loaded/used callbacks that fired.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from axmem_gui.core.records import JsonValue
from axmem_gui.core.session.model import (
    Callback,
    Exchange,
    Forward,
    SearchCall,
    Session,
    Turn,
)
from axmem_gui.core.session.stages import ACTOR_STAGES, LLM_QUERY


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
    output: JsonValue = None
    is_error: bool = False
    searches: list[SearchCall] = field(default_factory=list)
    callbacks: list[Callback] = field(default_factory=list)


@dataclass
class StageNode:
    stage: str
    turns: list[TurnNode] = field(default_factory=list)


@dataclass
class ForwardNode:
    forward: Forward
    stages: list[StageNode] = field(default_factory=list)

    @property
    def index(self) -> int:
        return self.forward.index

    @property
    def status(self) -> str:
        return self.forward.status


def _call(ex: Exchange) -> CallNode:
    prompt, completion = ex.tokens
    return CallNode(
        index=ex.index,
        stage=ex.stage,
        digest=ex.digest,
        duration_ms=ex.ms,
        prompt_tokens=prompt,
        completion_tokens=completion,
        error=ex.error.message if ex.error is not None else None,
    )


_Located = TypeVar("_Located", Turn, SearchCall, Callback)


def _by_call(items: Sequence[_Located] | None) -> defaultdict[int, list[_Located]]:
    out: defaultdict[int, list[_Located]] = defaultdict(list)
    for item in items or ():
        if item.call_index is not None:
            out[item.call_index].append(item)
    return out


def session_timeline(session: Session) -> list[ForwardNode]:
    nodes: list[ForwardNode] = []
    for fw in session.forwards:
        node = ForwardNode(fw)
        turns_by_call = _by_call(fw.turns)
        searches_by_call = _by_call(fw.searches)
        callbacks_by_call = _by_call(fw.callbacks)
        stages: dict[str, StageNode] = {}
        turn_nodes: dict[tuple[str, int], TurnNode] = {}
        last_actor_turn: TurnNode | None = None
        for ex in session.exchanges_of(fw.index):
            call = _call(ex)
            stage = call.stage
            turn: TurnNode
            if stage == LLM_QUERY and last_actor_turn is not None:
                turn = last_actor_turn
            else:
                key = (stage, ex.turn)
                found = turn_nodes.get(key)
                if found is None:
                    found = TurnNode(stage, ex.turn)
                    turn_nodes[key] = found
                    stages.setdefault(stage, StageNode(stage)).turns.append(found)
                turn = found
                if stage in ACTOR_STAGES:
                    last_actor_turn = turn
            turn.calls.append(call)
            for t in turns_by_call[call.index]:
                turn.code = t.code
                turn.output = t.output
                turn.is_error = t.is_error
            turn.searches.extend(searches_by_call[call.index])
            turn.callbacks.extend(callbacks_by_call[call.index])
        node.stages = list(stages.values())
        nodes.append(node)
    return nodes
