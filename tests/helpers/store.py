"""The store behind an open workspace, for tests that arrange or inspect what the
services wrote (tests may look below services; the app's layers may not)."""

from __future__ import annotations

from typing import Any

from axmem_gui.services.store_access import store_of
from axmem_gui.services.workspace import OpenWorkspace
from axmem_gui.store import Workspace


def raw(ws: OpenWorkspace | Workspace) -> Workspace:
    """The store workspace of `ws` (itself when it is one)."""
    return ws if isinstance(ws, Workspace) else store_of(ws)


def scenario_doc(ws: OpenWorkspace | Workspace, name: str) -> dict[str, Any]:
    """The stored document of scenario `name`, which the test expects to exist."""
    doc = raw(ws).scenarios.get(name)
    assert doc is not None, f"no scenario {name!r}"
    return doc


def agent_doc(ws: OpenWorkspace | Workspace, name: str) -> dict[str, Any]:
    """The stored document of agent `name`, which the test expects to exist."""
    doc = raw(ws).agents.get(name)
    assert doc is not None, f"no agent {name!r}"
    return doc
