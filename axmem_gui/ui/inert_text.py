"""User strings shown as plain text, never as Qt rich text.

Qt guesses: a label, tooltip or message box whose text *looks* like HTML is rendered as
HTML, and `<img src="/dev/zero">` in a skill name then makes Qt read /dev/zero (the app
aborts). Every widget that shows user data uses these helpers: labels and message boxes are
created in plain-text mode; tooltips (which have no plain-text switch) are escaped."""

from __future__ import annotations

import functools
import html
from collections.abc import Callable
from typing import Any

from PySide6 import QtGui
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMessageBox, QWidget


def inert(text: str) -> str:
    """A tooltip (or any AutoText string) that shows `text` literally: unchanged when Qt
    would take it as plain text, else escaped inside a paragraph that keeps line breaks."""
    if not QtGui.Qt.mightBeRichText(text):
        return text
    return f'<p style="white-space:pre-wrap">{html.escape(text)}</p>'


def plain_label(text: str = "", parent: QWidget | None = None) -> QLabel:
    """A QLabel that never interprets its text (now or after any later setText)."""
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    return label


def plain_message_box(
    parent: QWidget | None, icon: QMessageBox.Icon, title: str, text: str
) -> QMessageBox:
    box = QMessageBox(parent)
    box.setIcon(icon)
    box.setWindowTitle(title)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(text)
    return box


def inert_tooltips(data: Callable[..., Any]) -> Callable[..., Any]:
    """Decorates a model's `data`: every tooltip string it answers comes out inert."""

    @functools.wraps(data)
    def wrapper(self: Any, index: Any, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        value = data(self, index, role)
        if role == Qt.ItemDataRole.ToolTipRole and isinstance(value, str):
            return inert(value)
        return value

    return wrapper
