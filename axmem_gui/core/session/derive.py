"""The parts of a session that are computed from other parts, in one place.

The recorder writes them, `verify` recomputes them from the file and replay recomputes them
from the replayed run: a file whose derived fields disagree with what they derive from is
reported, never shown as if it were true.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from axmem_gui.core.session.model import Exchange, Forward, MapSnapshot, Turn
from axmem_gui.core.session.payloads import actor_code, executions


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
    """Actor code and runtime output per turn, linked to the model call that wrote it."""
    actor_calls = [e for e in exchanges if e.stage.startswith("actor.")]
    pointer = 0
    out: list[Turn] = []
    for run in executions(trace):
        linked: Exchange | None = None
        for j in range(pointer, len(actor_calls)):
            if (actor_code(actor_calls[j].response) or "").strip() == run.code.strip():
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
