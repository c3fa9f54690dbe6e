"""Colours derived from the active palette, so light and dark themes both stay readable.

Highlights are the palette's base colour pulled a little toward a hue: on a dark base they
stay dark (text keeps its contrast), on a light base they stay light."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette

_RED = QColor(220, 50, 47)
_GREEN = QColor(40, 160, 60)
_AMBER = QColor(200, 140, 20)


def mix(a: QColor, b: QColor, amount: float) -> QColor:
    """`a` moved `amount` (0..1) of the way toward `b`."""
    return QColor(
        round(a.red() + (b.red() - a.red()) * amount),
        round(a.green() + (b.green() - a.green()) * amount),
        round(a.blue() + (b.blue() - a.blue()) * amount),
    )


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


def added_background(palette: QPalette) -> QColor:
    return mix(palette.color(QPalette.ColorRole.Base), _GREEN, 0.28)


def removed_background(palette: QPalette) -> QColor:
    return mix(palette.color(QPalette.ColorRole.Base), _RED, 0.25)


def unsearched_background(palette: QPalette) -> QColor:
    """The shade behind content that Ax's search never sees."""
    return mix(palette.color(QPalette.ColorRole.Base), _AMBER, 0.16)


def code_background(palette: QPalette) -> QColor:
    base = palette.color(QPalette.ColorRole.Base)
    return mix(base, palette.color(QPalette.ColorRole.Text), 0.07)


def muted_text(palette: QPalette) -> QColor:
    return palette.color(QPalette.ColorRole.PlaceholderText)
