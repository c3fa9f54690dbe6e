"""The prompt preview dock, and the shared live catalog of the retrieval views."""

from __future__ import annotations

from axmem_gui.ui.preview.install import RetrievalViews, install_retrieval_views

__all__ = ["RetrievalViews", "install_retrieval_views"]
