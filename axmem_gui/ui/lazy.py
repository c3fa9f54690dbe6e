"""A module imported when one of its names is first used, not when the importer loads.

Feature modules are imported when the window is wired, before the first paint; the modules
behind a page that is built later (the engine, axllm, the sessions and evals services) are
not needed until then. A feature module names such a module with `lazy_module` (and the
real import under `TYPE_CHECKING`, so types are checked as usual):

    if TYPE_CHECKING:
        from axmem_gui.services import sessions
    else:
        sessions = lazy_module("axmem_gui.services.sessions")
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class LazyModule:
    """Stands for a module; the first attribute read imports it."""

    __slots__ = ("_module", "_name")

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attr)

    def __repr__(self) -> str:
        state = "imported" if self._module is not None else "not imported yet"
        return f"<lazy module {self._name!r} ({state})>"


def lazy_module(name: str) -> Any:
    return LazyModule(name)
