"""The context map viewer and editor: timeline, sections with scored items, diff, budget."""

from __future__ import annotations

from axmem_gui.ui.contextmap.page import ContextMapPage

__all__ = ["ContextMapPage"]
