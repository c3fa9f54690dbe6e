"""Realistic context-map histories for tests: every state is made by core's `apply_update`
from the previous one, exactly as Ax evolves a map, and stored through the store API."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from axmem_gui.core.contextmap import (
    ContextMapState,
    UpdateResult,
    apply_update,
    axllm_state_value,
    update_result_to_json,
)
from axmem_gui.services.workspace import OpenWorkspace, init_workspace
from axmem_gui.store import Workspace
from tests.helpers.store import raw

AGENT = "ops"
OTHER_AGENT = "triage"

UPDATE_1: dict[str, Any] = {
    "diagnosis": "Orientation: requests are about releases and incidents.",
    "operations": [
        {"type": "ADD", "section": "context_understanding", "content": "Requests concern releases"},
        {"type": "ADD", "section": "reusable_results", "content": "Load the guide with discover"},
    ],
}
UPDATE_2: dict[str, Any] = {
    "diagnosis": "cu-00001 was too narrow; the guide tip helped.",
    "itemTags": {"cu-00001": "harmful", "rr-00002": "helpful"},
    "operations": [
        {
            "type": "REPLACE",
            "item_id": "cu-00001",
            "content": "Requests concern releases and pages",
        },
        {"type": "ADD", "section": "error_patterns", "content": "Staging proxy times out at 30 s"},
    ],
}


@dataclass(frozen=True)
class Stored:
    pk: int
    label: str
    state: ContextMapState
    result: UpdateResult | None


def history(max_chars: int = 1200) -> list[tuple[str, ContextMapState, UpdateResult | None]]:
    """before forward 1, after forward 1, after forward 2 (two real updates)."""
    start = ContextMapState(max_chars=max_chars)
    first = apply_update(start, UPDATE_1)
    second = apply_update(first.state, UPDATE_2)
    return [
        ("before forward 1", start, None),
        ("after forward 1", first.state, first),
        ("after forward 2", second.state, second),
    ]


def session_doc(session_id: str, agent: str, created_at: str, name: str) -> dict[str, Any]:
    return {"id": session_id, "name": name, "agent": {"name": agent}, "created_at": created_at}


def store_history(
    ws: OpenWorkspace | Workspace,
    agent: str = AGENT,
    session_id: str = "run-1",
    created_at: str = "2026-01-01T10:00:00.000Z",
    max_chars: int = 1200,
) -> list[Stored]:
    """A recorded session of `agent` with its map before/after each of two updates."""
    raw(ws).sessions.save(session_doc(session_id, agent, created_at, f"{agent} run {session_id}"))
    out = []
    for label, state, result in history(max_chars):
        value = axllm_state_value(state)
        info = update_result_to_json(result, value) if result is not None else None
        pk = raw(ws).contextmaps.add(
            agent, value, label=label, session_id=session_id, update_info=info
        )
        out.append(Stored(pk, label, state, result))
    return out


def open_workspace_with_history(path: Path) -> tuple[OpenWorkspace, list[Stored]]:
    ws = init_workspace(path)
    stored = store_history(ws)
    return ws, stored
