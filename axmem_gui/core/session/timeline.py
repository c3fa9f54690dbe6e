"""A session as a tree for the viewer: forward > stage > turn > model call.

An llmQuery sub-call is placed under the actor turn whose code issued it. Each turn carries
what happened around its calls: the actor code and runtime output, what came of the call
(its code ran, the runtime refused it, the reply was unusable and retried, ...), what the
next call shows the model about it, the discover/recall calls it made, and the loaded/used
callbacks that fired. A version 1 file's turns have no outcomes: they are derived here
from its trace and calls, as a version 2 file stores them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from axmem_gui.core.records import JsonValue
from axmem_gui.core.session.derive import call_turns, recorded_call_turns
from axmem_gui.core.session.model import (
    Callback,
    Exchange,
    Forward,
    SearchCall,
    Session,
    Turn,
)
from axmem_gui.core.session.payloads import Correction, correction
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
    outcome: str | None = None
    retry: int | None = None
    message: str | None = None
    next_view: str | None = None
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


def _retried_calls(calls: Sequence[Exchange]) -> dict[int, Correction]:
    """Calls whose reply could not be used: the next call of their stage asks to fix it."""
    out: dict[int, Correction] = {}
    last: dict[str, Exchange] = {}
    for ex in calls:
        before = last.get(ex.stage)
        fix = correction(ex.request) if before is not None else None
        if before is not None and fix is not None:
            out[before.index] = fix
        last[ex.stage] = ex
    return out


def turns_with_outcomes(session: Session, fw: Forward) -> tuple[Turn, ...]:
    """The forward's turns, one per actor call with its outcome (derived on read for a
    file whose turns have none)."""
    stored = fw.turns or ()
    if session.version >= 2 or any(t.outcome is not None for t in stored):
        return stored
    if fw.trace is None:  # a TypeScript app's recording: its recorder saw the turns itself
        return recorded_call_turns(stored, session.exchanges_of(fw.index), fw.error)
    return call_turns(fw.trace, session.exchanges_of(fw.index), fw.error)


def session_timeline(session: Session) -> list[ForwardNode]:
    nodes: list[ForwardNode] = []
    for fw in session.forwards:
        node = ForwardNode(fw)
        turns_by_call = _by_call(turns_with_outcomes(session, fw))
        searches_by_call = _by_call(fw.searches)
        callbacks_by_call = _by_call(fw.callbacks)
        stages: dict[str, StageNode] = {}
        turn_nodes: dict[tuple[str, int], TurnNode] = {}
        last_actor_turn: TurnNode | None = None
        mine = session.exchanges_of(fw.index)
        retried = _retried_calls(mine)
        for ex in mine:
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
            fix = retried.get(call.index)
            if fix is not None and stage not in (*ACTOR_STAGES, LLM_QUERY):
                turn.outcome, turn.retry = "invalid_output", fix.count
                turn.message, turn.next_view = fix.error, fix.text
            for t in turns_by_call[call.index]:
                turn.code = t.code
                turn.output = t.output
                turn.is_error = t.is_error
                turn.outcome = t.outcome
                turn.retry = t.retry
                turn.message = t.message
                turn.next_view = t.next_view
            turn.searches.extend(searches_by_call[call.index])
            turn.callbacks.extend(callbacks_by_call[call.index])
        node.stages = list(stages.values())
        nodes.append(node)
    return nodes


#: How the viewer names each outcome of an actor call.
_PHRASES = {
    "ran": "ran",
    "refused": "refused by policy",
    "invalid_output": "invalid output",
    "timeout": "timed out",
    "cancelled": "cancelled",
    "failed": "failed",
    "unused": "not acted on",
}


def outcome_phrase(outcome: str | None, retry: int | None = None) -> str:
    """`refused by policy`, `invalid output (retry 1)`, `invalid output (gave up)`, ...;
    "" for none."""
    if outcome is None:
        return ""
    phrase = _PHRASES.get(outcome, outcome)
    if outcome == "invalid_output":
        phrase += f" (retry {retry})" if retry is not None else " (gave up)"
    return phrase


def is_trouble(outcome: str | None) -> bool:
    """An outcome the viewer marks: the call's code did not run as the model meant."""
    return outcome is not None and outcome != "ran"
