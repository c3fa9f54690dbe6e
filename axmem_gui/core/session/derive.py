"""The parts of a session that are computed from other parts, in one place.

The recorder writes them, `verify` recomputes them from the file and replay recomputes them
from the replayed run: a file whose derived fields disagree with what they derive from is
reported, never shown as if it were true.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from axmem_gui.core.session.map_records import MapSnapshot
from axmem_gui.core.session.model import (
    CANCELLED,
    FAILED,
    INVALID_OUTPUT,
    RAN,
    REFUSED,
    TIMEOUT,
    UNUSED,
    Exchange,
    Forward,
    RunError,
    Turn,
)
from axmem_gui.core.session.payloads import (
    POLICY_PREFIX,
    Execution,
    actor_code,
    actor_code_v1,
    correction,
    executions,
    policy_refusals,
    prompt_field,
    runtime_code,
    unfixable_reply,
)
from axmem_gui.core.session.stages import ACTOR_STAGES


def trace_without_logs(trace: Any) -> Any:
    """The stored trace: the chat log repeats every prompt already stored in the exchanges;
    the action log is kept once, at the forward level. The run's cancellation token (an
    object, shown as a placeholder) is left out: it says nothing about the run."""
    if isinstance(trace, Mapping):
        return {
            k: without_run_token(v) for k, v in trace.items() if k not in ("chat_log", "action_log")
        }
    return trace


def without_run_token(value: Any) -> Any:
    """`value` without the run's cancellation token (an object: a placeholder string)."""
    if isinstance(value, Mapping):
        return {
            k: without_run_token(v)
            for k, v in value.items()
            if not (k == "cancellation" and v == "<AxCancellationToken>")
        }
    if isinstance(value, list):
        return [without_run_token(v) for v in value]
    return value


def turns(trace: Any, exchanges: Sequence[Exchange]) -> tuple[Turn, ...]:
    """Version 1 turns: actor code and runtime output per turn whose code ran, linked to
    the model call that wrote it (`call_turns` is version 2's)."""
    actor_calls = [e for e in exchanges if e.stage.startswith("actor.")]
    pointer = 0
    out: list[Turn] = []
    for run in executions(trace):
        linked: Exchange | None = None
        for j in range(pointer, len(actor_calls)):
            if (actor_code_v1(actor_calls[j].response) or "").strip() == run.code.strip():
                linked = actor_calls[j]
                pointer = j + 1
                break
        out.append(
            Turn(
                stage=f"actor.{run.stage}",
                turn=linked.turn if linked else None,
                call_index=linked.index if linked else None,
                runtime_turn=run.turn,
                kind=run.kind,
                code=run.code,
                output=run.output,
                result=run.result,
                is_error=run.is_error,
                error=run.error,
            )
        )
    return tuple(out)


def _same_code(reply: str, ran: str) -> bool:
    return reply.strip() == ran.strip() or runtime_code(reply) == runtime_code(ran)


#: The input field in which an actor stage shows the model its earlier turns.
ACTION_LOG = "Action Log"


def _next_view(call: Exchange, following: Exchange | None) -> str | None:
    """What the next call of the stage shows the model about `call`'s turn: the part of
    its Action Log that is new (all of it when the log was rewritten, e.g. summarised)."""
    if following is None:
        return None
    after = prompt_field(following.request, ACTION_LOG)
    if after is None:
        return None
    before = prompt_field(call.request, ACTION_LOG) or ""
    return after[len(before) :].lstrip("\n") if after.startswith(before) else after


def _ran(call: Exchange, run: Execution, following: Exchange | None) -> Turn:
    return Turn(
        stage=call.stage,
        turn=call.turn,
        call_index=call.index,
        runtime_turn=run.turn,
        kind=run.kind,
        code=run.code,
        output=run.output,
        result=run.result,
        is_error=run.is_error,
        error=run.error,
        outcome=RAN,
        next_view=_next_view(call, following),
    )


def _stopped(
    call: Exchange,
    code: str,
    outcome: str,
    message: str,
    *,
    retry: int | None = None,
    next_view: str | None = None,
) -> Turn:
    return Turn(
        stage=call.stage,
        turn=call.turn,
        call_index=call.index,
        code=code,
        is_error=outcome != UNUSED,
        outcome=outcome,
        retry=retry,
        message=message,
        next_view=next_view,
    )


def _not_ran(
    call: Exchange, code: str, following: Exchange | None, forward_error: RunError | None
) -> Turn:
    """An actor call whose code never ran: the call failed, the reply was unusable, or the
    forward ended with it."""
    if call.error is not None:
        kind = call.error.kind
        outcome = TIMEOUT if kind == TIMEOUT else CANCELLED if kind == CANCELLED else FAILED
        return _stopped(call, code, outcome, call.error.message)
    fix = correction(following.request) if following is not None else None
    if fix is not None:
        return _stopped(call, code, INVALID_OUTPUT, fix.error, retry=fix.count, next_view=fix.text)
    if following is None and forward_error is not None:
        detail = forward_error.detail or forward_error.message
        gave_up = unfixable_reply(detail)
        if gave_up is not None:
            return _stopped(call, code, INVALID_OUTPUT, gave_up)
        outcome = CANCELLED if forward_error.kind == CANCELLED else FAILED
        return _stopped(call, code, outcome, detail)
    return _stopped(call, code, UNUSED, "Ax did not act on this reply")


def call_turns(
    trace: Any, exchanges: Sequence[Exchange], forward_error: RunError | None = None
) -> tuple[Turn, ...]:
    """Version 2 turns: one per actor call, in order, with what came of it: its code ran
    (the trace's runtime execution), the runtime's policy refused it (the trace's error
    event), the reply could not be used (the next call of the stage asks for a fix, or
    the forward failed giving up), or the call itself failed. `forward_error`: how the
    forward ended, for its last call."""
    calls = [e for e in exchanges if e.stage in ACTOR_STAGES]
    runs = executions(trace)
    refusals = policy_refusals(trace)
    r = q = 0
    out: list[Turn] = []
    for k, call in enumerate(calls):
        following = next((e for e in calls[k + 1 :] if e.stage == call.stage), None)
        code = actor_code(call.response) if call.error is None else None
        if code is not None and r < len(runs) and _same_code(code, runs[r].code):
            out.append(_ran(call, runs[r], following))
            r += 1
        elif code is not None and q < len(refusals) and refusals[q].code == code:
            out.append(
                Turn(
                    stage=call.stage,
                    turn=call.turn,
                    call_index=call.index,
                    code=code,
                    output=refusals[q].output,
                    is_error=True,
                    outcome=REFUSED,
                    message=refusals[q].output,
                    next_view=_next_view(call, following),
                )
            )
            q += 1
        else:
            out.append(_not_ran(call, code or "", following, forward_error))
    for run in runs[r:]:  # code the runtime ran that no call wrote (none expected): kept
        out.append(
            Turn(
                stage=f"actor.{run.stage}",
                runtime_turn=run.turn,
                kind=run.kind,
                code=run.code,
                output=run.output,
                result=run.result,
                is_error=run.is_error,
                error=run.error,
                outcome=RAN,
            )
        )
    return tuple(out)


def policy_message(output: Any) -> str | None:
    """The runtime's `[POLICY]` refusal in a turn's output as an app recorded it: the
    output's line that starts with it (Ax TS prints a thrown refusal as `Error: [POLICY] …`,
    after any native tool activity), None when the runtime refused nothing."""
    if not isinstance(output, str):
        return None
    for line in output.split("\n"):
        text = line.removeprefix("Error: ")
        if text.startswith(POLICY_PREFIX):
            return output[output.index(text) :]
    return None


def recorded_call_turns(
    recorded: Sequence[Turn], exchanges: Sequence[Exchange], forward_error: RunError | None
) -> tuple[Turn, ...]:
    """`call_turns` for an app that recorded its turns itself and no trace (TypeScript Ax's
    actor-turn callback): one per actor call with the same outcomes, the code and output as
    Ax reported them. A turn whose output is the runtime's `[POLICY]` refusal was refused,
    as the trace's refusal says for a studio run; an actor call no recorded turn points at
    did not run (failed, retried, or not acted on, as `call_turns` decides)."""
    calls = [e for e in exchanges if e.stage in ACTOR_STAGES]
    by_call: dict[int, list[Turn]] = {}
    for t in recorded:
        if t.call_index is not None:
            by_call.setdefault(t.call_index, []).append(t)
    linked = {i for i in by_call if any(c.index == i for c in calls)}
    out: list[Turn] = []
    for k, call in enumerate(calls):
        following = next((e for e in calls[k + 1 :] if e.stage == call.stage), None)
        for t in by_call.get(call.index, []):
            refusal = policy_message(t.output)
            out.append(
                replace(
                    t,
                    outcome=RAN if refusal is None else REFUSED,
                    message=refusal,
                    next_view=_next_view(call, following),
                )
            )
        if call.index not in by_call:
            code = actor_code(call.response) if call.error is None else None
            out.append(_not_ran(call, code or "", following, forward_error))
    out.extend(t for t in recorded if t.call_index not in linked)  # kept as recorded
    return tuple(out)


def forward_turns(
    version: int, trace: Any, exchanges: Sequence[Exchange], forward_error: RunError | None
) -> tuple[Turn, ...]:
    """A forward's `turns` as a file of `version` derives them."""
    if version >= 2:
        return call_turns(trace, exchanges, forward_error)
    return turns(trace, exchanges)


_BEFORE_KEYS = ("label", "state")
#: After a forward the entry names its update, null when the forward recorded none.
_AFTER_KEYS = ("label", "state", "update")


def map_snapshots(forwards: Sequence[Forward]) -> list[MapSnapshot]:
    """`contextMapSnapshots`: the map before the first forward and after each forward."""
    out: list[MapSnapshot] = []
    for fw in forwards:
        if not fw.ran:
            continue
        n = fw.index + 1
        if not out and fw.context_map_before:
            out.append(
                MapSnapshot(
                    label=f"before forward {n}",
                    state=fw.context_map_before,
                    key_order=_BEFORE_KEYS,
                )
            )
        if fw.context_map_after:
            out.append(
                MapSnapshot(
                    label=f"after forward {n}",
                    state=fw.context_map_after,
                    update=fw.context_map_update,
                    key_order=_AFTER_KEYS,
                )
            )
    return out


def map_warnings(forwards: Sequence[Forward]) -> list[str]:
    """The session's `warnings`: one per forward whose context-map update failed."""
    return [
        f"forward {f.index + 1}: the context-map update failed; the map was left unchanged"
        for f in forwards
        if f.context_map_update is not None and f.context_map_update.status == "failed"
    ]
