"""A dialog starts with the focus on its first input, and Tab visits the inputs top to
bottom before the buttons.

Qt gives the first focus to the first widget of the dialog's focus chain, which is the
order widgets were parented in: a dialog that made its button box before its form rows
(the form dialogs did) opened with the focus on Save, so typed letters were lost and
Space saved."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QLineEdit,
    QPlainTextEdit,
    QRadioButton,
    QTextEdit,
    QWidget,
)

#: What a user types into, picks from or ticks (push buttons are not inputs).
INPUT_TYPES = (
    QLineEdit,
    QCheckBox,
    QRadioButton,
    QAbstractSpinBox,
    QComboBox,
    QPlainTextEdit,
    QTextEdit,
    QAbstractItemView,
)


def inputs(dialog: QWidget) -> list[QWidget]:
    """The dialog's enabled inputs that take the focus from the keyboard, top to bottom
    and left to right as they are laid out (hidden ones included if shown with it)."""
    found = [
        w
        for w in dialog.findChildren(QWidget)
        if isinstance(w, INPUT_TYPES)
        and w.isVisibleTo(dialog)
        and w.isEnabled()
        and w.focusPolicy() & Qt.FocusPolicy.TabFocus
        # the line edit of a combo or spin box is part of that input
        and not isinstance(w.parentWidget(), (QComboBox, QAbstractSpinBox))
    ]

    def place(w: QWidget) -> tuple[int, int]:
        at = w.mapTo(dialog, w.rect().topLeft())
        return at.y(), at.x()

    return sorted(found, key=place)


def first_input(dialog: QWidget) -> QWidget | None:
    found = inputs(dialog)
    return found[0] if found else None


def focus_first_input(dialog: QDialog) -> None:
    """Focus the first input and put the button boxes after the last one in the tab
    order. Call it once the dialog's rows exist and are laid out (on its first show)."""
    layout = dialog.layout()
    if layout is not None:
        layout.activate()  # positions are read from the layout
    found = inputs(dialog)
    if not found:
        return
    for box in dialog.findChildren(QDialogButtonBox):
        QWidget.setTabOrder(found[-1], box)
    found[0].setFocus(Qt.FocusReason.TabFocusReason)
