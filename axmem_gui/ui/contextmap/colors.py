"""Colours for diff marks, score badges and eviction marks, derived from the palette so
light and dark themes both stay readable (a hue mixed into the base colour)."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette

from axmem_gui.ui.contextmap.rows import Change

_HUES = {
    Change.ADDED: QColor(40, 160, 60),
    Change.REMOVED: QColor(220, 50, 47),
    Change.REPLACED: QColor(210, 150, 0),
    Change.MOVED: QColor(150, 80, 200),
    Change.RESCORED: QColor(0, 140, 170),
}
_POSITIVE = QColor(40, 160, 60)
_NEGATIVE = QColor(220, 50, 47)
_EVICT = QColor(214, 120, 0)
_PENDING = QColor(220, 50, 47)
#: Which mark wins the row background when an item changed in several ways.
PRIORITY = (Change.REMOVED, Change.ADDED, Change.REPLACED, Change.MOVED, Change.RESCORED)


def mix(a: QColor, b: QColor, amount: float) -> QColor:
    """`a` moved `amount` (0..1) of the way toward `b`."""
    return QColor(
        round(a.red() + (b.red() - a.red()) * amount),
        round(a.green() + (b.green() - a.green()) * amount),
        round(a.blue() + (b.blue() - a.blue()) * amount),
    )


def base(palette: QPalette) -> QColor:
    return palette.color(QPalette.ColorRole.Base)


def change_background(palette: QPalette, change: Change) -> QColor:
    return mix(base(palette), _HUES[change], 0.24)


def change_accent(palette: QPalette, change: Change) -> QColor:
    return mix(base(palette), _HUES[change], 0.8)


def main_change(changes: frozenset[Change]) -> Change | None:
    return next((c for c in PRIORITY if c in changes), None)


def score_badge(palette: QPalette, score: float | None) -> tuple[QColor, QColor]:
    """Background and text colour of a score badge."""
    text = palette.color(QPalette.ColorRole.Text)
    if score is None or score == 0:
        return mix(base(palette), text, 0.12), mix(text, base(palette), 0.25)
    hue = _POSITIVE if score > 0 else _NEGATIVE
    return mix(base(palette), hue, 0.35), text


def evict_mark(palette: QPalette, pending: bool) -> QColor:
    return mix(base(palette), _PENDING if pending else _EVICT, 0.85)


def muted(palette: QPalette) -> QColor:
    return palette.color(QPalette.ColorRole.PlaceholderText)
