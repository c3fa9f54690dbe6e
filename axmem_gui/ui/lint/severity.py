"""Severity icons and labels shared by the lint views and the import preview."""

from __future__ import annotations

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QStyle

_PIXMAPS = {
    "error": QStyle.StandardPixmap.SP_MessageBoxCritical,
    "warning": QStyle.StandardPixmap.SP_MessageBoxWarning,
    "info": QStyle.StandardPixmap.SP_MessageBoxInformation,
}
_cache: dict[str, QIcon] = {}


def severity_icon(severity: str) -> QIcon:
    """The style's own message-box icon (follows the platform theme and scales)."""
    found = _cache.get(severity)
    if found is None:
        pixmap = _PIXMAPS.get(severity)
        app = QApplication.instance()
        if pixmap is None or not isinstance(app, QApplication):
            return QIcon()
        found = app.style().standardIcon(pixmap)
        _cache[severity] = found
    return found


def plural(count: int, noun: str, plural_noun: str | None = None) -> str:
    word = noun if count == 1 else (plural_noun or f"{noun}s")
    return f"{count:,} {word}"


def counts_text(counts: dict[str, int]) -> str:
    """ "2 errors · 14 warnings · 1 info", leaving out zeros ("no findings" if all are)."""
    parts = [
        plural(counts.get("error", 0), "error"),
        plural(counts.get("warning", 0), "warning"),
        f"{counts.get('info', 0):,} info",
    ]
    shown = [p for p, n in zip(parts, ("error", "warning", "info"), strict=True) if counts.get(n)]
    return " · ".join(shown) if shown else "no findings"
