"""The session a run's child process left when it died or was stopped: what it streamed
(the session's head, each finished model call, each finished forward), the forward it was
in ended with the error that says what happened, the rest not run.

Built as the JSON the child would have written and read by the session parser, as every
document from outside is: the child ran model-written code, and what it sent is data.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from axmem_gui.core.session.contextmap_update import describe_update
from axmem_gui.core.session.derive import forward_turns, map_snapshots
from axmem_gui.core.session.format import NOT_RUN_KEYS, parse_session
from axmem_gui.core.session.model import CANCELLED, FAILED, INCOMPLETE, NOT_RUN, Session
from axmem_gui.core.session.redact import scrub_secrets
from axmem_gui.engine.agent_factory import forward_options
from axmem_gui.services.agent_protocol import LiveJob


def partial_session(
    head: dict[str, Any],
    exchanges: list[dict[str, Any]],
    forwards: list[dict[str, Any]],
    job: LiveJob,
    error: dict[str, Any],
    secrets: tuple[str, ...],
) -> Session:
    """`head` (the session before its first forward) with the calls and forwards that were
    finished, the forward under way ended by `error` (kind, type, message, detail, and
    the call it was in)."""
    done = [f for f in forwards if isinstance(f, dict)][: len(job.inputs)]
    index = len(done)
    first = 0
    if done and isinstance(done[-1].get("exchange_range"), list):
        first = int(done[-1]["exchange_range"][1])
    options = forward_options(job.config)
    status = CANCELLED if error.get("kind") == "cancelled" else FAILED
    calls = [e for e in exchanges if isinstance(e, dict)]
    full_error = {**error, "forward": index, "call_index": error.get("call_index")}
    out = list(done)
    if index < len(job.inputs):
        out.append(
            {
                "index": index,
                "inputs": job.inputs[index],
                "forward_options": options,
                "status": status,
                "output": None,
                "error": full_error,
                "exchange_range": [min(first, len(calls)), len(calls)],
            }
        )
    for i in range(len(out), len(job.inputs)):
        not_run = {
            "index": i,
            "inputs": job.inputs[i],
            "forward_options": options,
            "status": NOT_RUN,
            "output": None,
            "error": None,
        }
        out.append({k: not_run[k] for k in NOT_RUN_KEYS})
    doc = {
        **head,
        "status": INCOMPLETE,
        "error": full_error,
        "forwards": out,
        "exchanges": calls,
    }
    session = parse_session(scrub_secrets(doc, secrets), f"session {head.get('id')}")
    return _derived(session, index)


def _derived(session: Session, index: int) -> Session:
    """The interrupted forward's derived fields (turns, map update) and the session's map
    snapshots, computed as the recorder does from what there is."""
    forwards = list(session.forwards)
    if index < len(forwards):
        fw = forwards[index]
        mine = session.exchanges_of(index)
        before = forwards[index - 1].context_map_after if index else None
        changes: dict[str, Any] = {"turns": forward_turns(session.version, None, mine, fw.error)}
        if session.agent.has_context_map:
            changes["context_map_before"] = before
            changes["context_map_update"] = describe_update(mine, before, None)
        forwards[index] = replace(fw, **changes)
    session = replace(session, forwards=tuple(forwards))
    if session.agent.has_context_map:
        session = replace(session, map_snapshots=tuple(map_snapshots(session.forwards)))
    return session
