"""The parts of a session that are computed from other parts, in one place.

The recorder writes them, `verify` recomputes them from the file and replay recomputes them
from the replayed run: a file whose derived fields disagree with what they derive from is
reported, never shown as if it were true.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from axmem_gui.core.session.views import actor_code


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


def exchange_usage(response: Any) -> dict[str, int] | None:
    """An exchange's `usage`: the token counts of its response's `model_usage`."""
    if not isinstance(response, Mapping):
        return None
    model_usage = response.get("model_usage")
    tokens = model_usage.get("tokens") if isinstance(model_usage, Mapping) else None
    if not isinstance(tokens, Mapping):
        return None
    return {
        k: int(tokens[k])
        for k in ("prompt_tokens", "completion_tokens", "total_tokens")
        if isinstance(tokens.get(k), int) and not isinstance(tokens.get(k), bool)
    }


def turns(trace: Any, exchanges: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Actor code and runtime output per turn, linked to the model call that wrote it."""
    events = trace.get("events") if isinstance(trace, Mapping) else None
    actor_calls = [e for e in exchanges if str(e.get("stage", "")).startswith("actor.")]
    pointer = 0
    out: list[dict[str, Any]] = []
    for event in events if isinstance(events, list) else []:
        if not isinstance(event, Mapping) or event.get("kind") != "runtime_execute":
            continue
        raw = event.get("payload")
        p: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        code = str(p.get("code") or "")
        linked: Mapping[str, Any] | None = None
        for j in range(pointer, len(actor_calls)):
            if (actor_code(actor_calls[j].get("response")) or "").strip() == code.strip():
                linked = actor_calls[j]
                pointer = j + 1
                break
        out.append(
            {
                "stage": f"actor.{p.get('stage')}",
                "turn": linked.get("turn") if linked else None,
                "call_index": linked.get("index") if linked else None,
                "runtime_turn": p.get("turn"),
                "kind": p.get("kind"),
                "code": code,
                "output": p.get("output"),
                "result": p.get("result"),
                "is_error": bool(p.get("is_error")),
                "error": p.get("error"),
            }
        )
    return out


def map_snapshots(forwards: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """`contextMapSnapshots`: the map before the first forward and after each forward."""
    out: list[dict[str, Any]] = []
    for fw in forwards:
        if fw.get("status") == "not_run":
            continue
        n = int(fw.get("index") or 0) + 1
        if not out and fw.get("context_map_before"):
            out.append({"label": f"before forward {n}", "state": fw["context_map_before"]})
        if fw.get("context_map_after"):
            out.append(
                {
                    "label": f"after forward {n}",
                    "state": fw["context_map_after"],
                    "update": fw.get("context_map_update"),
                }
            )
    return out


def map_warnings(forwards: Sequence[Mapping[str, Any]]) -> list[str]:
    """The session's `warnings`: one per forward whose context-map update failed."""
    return [
        f"forward {int(f.get('index') or 0) + 1}: the context-map update failed; "
        "the map was left unchanged"
        for f in forwards
        if (f.get("context_map_update") or {}).get("status") == "failed"
    ]
