"""Session documents for tests that change what a file holds: the JSON of a session to
tamper with, and the session parser to read it back (as a file or the store would be)."""

from __future__ import annotations

import copy
import json
from importlib import resources
from typing import Any

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.session.agent_config import AgentConfig
from axmem_gui.core.session.format import parse_session, session_to_json
from axmem_gui.core.session.model import (
    Callback,
    Forward,
    Session,
    SessionAgent,
    SessionCatalog,
    SessionProvider,
    Versions,
)
from tests.helpers.store import raw


def sample_session_json() -> dict[str, Any]:
    """The document of the sample session the app ships (a fresh copy, free to change)."""
    folder = resources.files("axmem_gui") / "sample"
    name = next(p.name for p in folder.iterdir() if p.name.endswith(".axsession.json"))
    doc: dict[str, Any] = json.loads((folder / name).read_text(encoding="utf-8"))
    return doc


def session_json(session: Session) -> dict[str, Any]:
    """A deep copy of the document `session` is written as (free to change)."""
    return copy.deepcopy(session_to_json(session))


def reparse(doc: Any, source: str = "test session") -> Session:
    """`doc` read as the session parser reads a file (raises InputError as it does)."""
    return parse_session(doc, source)


def make_session(
    session_id: str = "s",
    *,
    created_at: str = "2026-01-01T00:00:00Z",
    forwards: tuple[Forward, ...] = (),
    **fields: Any,
) -> Session:
    """A typed session built in code with only what a test cares about (the rest the
    smallest valid values)."""
    values: dict[str, Any] = {
        "id": session_id,
        "created_at": created_at,
        "status": "complete",
        "versions": Versions(axllm="25.4.6"),
        "agent": SessionAgent.of(AgentConfig(name="agent", signature="q:string -> a:string")),
        "catalog": SessionCatalog.of(Catalog()),
        "provider": SessionProvider(name="openai-compatible"),
        "forwards": forwards,
    }
    values.update(fields)
    return Session(**values)


def make_forward(index: int = 0, *, status: str = "complete", **fields: Any) -> Forward:
    return Forward(index=index, inputs=fields.pop("inputs", {}), status=status, **fields)


def callback(kind: str, *ids: str) -> Callback:
    """An observer callback reporting entries `ids`."""
    return Callback(kind=kind, payload=[{"id": i} for i in ids])


def stored_session(ws: Any, session_id: str) -> Session:
    """A session stored in the workspace `ws`, read through its service."""
    from axmem_gui.services.sessions import SessionService

    return SessionService(raw(ws)).get(session_id)


def stored_json(ws: Any, session_id: str) -> dict[str, Any]:
    """The document of a stored session (a copy of its own to change)."""
    return session_json(stored_session(ws, session_id))
