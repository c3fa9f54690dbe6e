"""The context map viewer and editor: timeline, sections with scored items, diff, budget."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from axmem_gui.ui.contextmap.page import ContextMapPage

__all__ = ["ContextMapPage"]


def __getattr__(name: str) -> Any:
    # The page is imported when first named: the feature (ui/contextmap/feature.py) builds
    # it on the page's first visit, not before the window's first paint.
    if name == "ContextMapPage":
        from axmem_gui.ui.contextmap.page import ContextMapPage

        return ContextMapPage
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
