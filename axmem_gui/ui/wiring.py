"""Feature views installed into the main window (each feature adds its own here)."""

from __future__ import annotations

from axmem_gui.ui.contextmap import install_contextmap_view
from axmem_gui.ui.editor.actions import install_catalog_editing
from axmem_gui.ui.main_window import MainWindow


def install_features(window: MainWindow) -> None:
    install_catalog_editing(window)
    install_contextmap_view(window)
