"""Fusion style with a light or dark palette that follows the system colour scheme."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication


def system_prefers_dark() -> bool:
    hints = QGuiApplication.styleHints()
    return bool(hints.colorScheme() == Qt.ColorScheme.Dark)


def dark_palette() -> QPalette:
    p = QPalette()
    base, window, text = QColor(30, 32, 36), QColor(40, 43, 48), QColor(222, 226, 232)
    p.setColor(QPalette.ColorRole.Window, window)
    p.setColor(QPalette.ColorRole.WindowText, text)
    p.setColor(QPalette.ColorRole.Base, base)
    p.setColor(QPalette.ColorRole.AlternateBase, QColor(36, 38, 43))
    p.setColor(QPalette.ColorRole.Text, text)
    p.setColor(QPalette.ColorRole.Button, window)
    p.setColor(QPalette.ColorRole.ButtonText, text)
    p.setColor(QPalette.ColorRole.ToolTipBase, base)
    p.setColor(QPalette.ColorRole.ToolTipText, text)
    p.setColor(QPalette.ColorRole.PlaceholderText, QColor(140, 146, 156))
    p.setColor(QPalette.ColorRole.Highlight, QColor(58, 110, 180))
    p.setColor(QPalette.ColorRole.HighlightedText, QColor(255, 255, 255))
    p.setColor(QPalette.ColorRole.Link, QColor(120, 170, 255))
    for role in (
        QPalette.ColorRole.Text,
        QPalette.ColorRole.WindowText,
        QPalette.ColorRole.ButtonText,
    ):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor(110, 114, 120))
    return p


def apply_theme(app: QApplication, preference: str = "system") -> str:
    """Apply Fusion + palette; returns the scheme used ('light' or 'dark')."""
    app.setStyle("Fusion")
    dark = preference == "dark" or (preference == "system" and system_prefers_dark())
    palette = dark_palette() if dark else app.style().standardPalette()
    changed = app.palette() != palette
    app.setPalette(palette)
    if changed:
        restyle(app)
    # No application style sheet: it would send every widget through Qt's style-sheet
    # style (see `style_leaves`); the window styles the widgets "base" names.
    return "dark" if dark else "light"


def restyle(app: QApplication) -> None:
    """Let every widget take the application's new palette. A widget styled by a style
    sheet (its own or a container's) was given a palette when it was polished, resolved
    from the palette of that time: it kept the old theme (light pages and trees in the
    dark theme, dark docks and invisible headings in the light one) until it is polished
    again."""
    for widget in app.allWidgets():
        style = widget.style()
        if style is not app.style():  # a style-sheet style: polished with old colours
            style.unpolish(widget)
            style.polish(widget)
            widget.update()
