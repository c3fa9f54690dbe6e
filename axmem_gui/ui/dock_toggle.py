"""View-menu toggles for docks that bring a dock to the front when it is tabbed behind
another, instead of hiding it.

Qt's own `toggleViewAction` only shows or hides: Lint tabbed behind the bench counts as
shown, so Ctrl+Shift+L hid it, and the second press put it back behind the bench."""

from __future__ import annotations

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QWidget


def in_front(dock: QDockWidget) -> bool:
    """Shown and not covered by another dock of its tab group."""
    return dock.isVisible() and not dock.visibleRegion().isEmpty()


def raise_or_toggle(dock: QDockWidget) -> None:
    """Hidden: show it in front. Tabbed behind another dock: bring it to the front.
    In front: hide it."""
    if dock.isHidden():
        dock.show()
        dock.raise_()
    elif not in_front(dock):
        dock.raise_()
    else:
        dock.close()


def dock_toggle(dock: QDockWidget, parent: QWidget) -> QAction:
    """A checkable action (checked while the dock is not hidden, as Qt's own toggle) whose
    trigger is `raise_or_toggle`; it takes the text and shortcuts of Qt's toggle."""
    qt_toggle = dock.toggleViewAction()
    action = QAction(qt_toggle.text(), parent)
    action.setObjectName(f"{dock.objectName()}Toggle")
    action.setCheckable(True)
    action.setChecked(qt_toggle.isChecked())
    action.setShortcuts(qt_toggle.shortcuts())
    qt_toggle.setShortcuts([])  # one action per key, or Qt calls it ambiguous
    qt_toggle.toggled.connect(action.setChecked)
    # `triggered` flips the check mark first; the dock's real state decides it again.
    action.triggered.connect(lambda _checked=False: _trigger(dock, action))
    return action


def _trigger(dock: QDockWidget, action: QAction) -> None:
    raise_or_toggle(dock)
    action.setChecked(not dock.isHidden())
