"""Making QActions the one way every feature does."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence


def make_action(
    parent: QObject,
    text: str,
    slot: Callable[[], object],
    shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None,
    tip: str = "",
) -> QAction:
    """An action that calls `slot` when triggered, with an optional shortcut and tip (shown
    as tooltip and status tip)."""
    action = QAction(text, parent)
    if shortcut is not None and shortcut != "":
        action.setShortcut(QKeySequence(shortcut))
    if tip:
        action.setToolTip(tip)
        action.setStatusTip(tip)

    def run(_checked: bool = False) -> None:
        # Returns None whatever `slot` returns: PySide6 mis-counts the references of values
        # returned by Python slots.
        slot()

    action.triggered.connect(run)
    return action
