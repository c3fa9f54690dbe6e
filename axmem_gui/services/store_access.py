"""The store's connection behind an `OpenWorkspace`, for services only.

A service that works on the store itself (sessions, agents and context maps, until
they have services of their own on `OpenWorkspace`) takes the open workspace its caller
holds and reaches the connection here. ui/, cli/ and app.py may not import this module
(pyproject.toml: "ui, cli and app reach the store only through services"); the lines
that still do are listed there, by name, until their services land.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from axmem_gui.services.workspace import OpenWorkspace
    from axmem_gui.store import Workspace


def store_of(ws: OpenWorkspace) -> Workspace:
    return ws._store
