from __future__ import annotations

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from axmem_gui.ui.theme import apply_theme


def test_light_and_dark_palettes(qapp: QApplication) -> None:
    try:
        assert apply_theme(qapp, "dark") == "dark"
        dark = qapp.palette().color(QPalette.ColorRole.Window).lightness()
        assert apply_theme(qapp, "light") == "light"
        light = qapp.palette().color(QPalette.ColorRole.Window).lightness()
        assert dark < 100 < light
        assert qapp.styleSheet() == ""  # the window styles the widgets "base" names
    finally:
        apply_theme(qapp, "light")
