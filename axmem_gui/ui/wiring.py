"""Feature views installed into the main window (each feature adds its own here)."""

from __future__ import annotations

from axmem_gui.ui.main_window import MainWindow


def install_features(window: MainWindow) -> None:
    del window
