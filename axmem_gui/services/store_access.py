"""The store's connection behind an `OpenWorkspace`, for services only.

A service module that works on the store itself (the context maps, which span sessions
and agents) takes the open workspace its caller holds and reaches the connection here.
ui/, cli/ and app.py may not import this module (pyproject.toml's contracts).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from axmem_gui.services.workspace import OpenWorkspace
    from axmem_gui.store import Workspace


def store_of(ws: OpenWorkspace) -> Workspace:
    return ws._store
