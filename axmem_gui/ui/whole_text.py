"""Fields that show their hint whole: a line edit at least as wide as its placeholder."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QLineEdit, QStyle, QStyleOptionFrame

#: QLineEdit's own margin left and right of its text (qlineedit_p.h: horizontalMargin).
LINE_EDIT_MARGIN = 2


def placeholder_width(edit: QLineEdit) -> int:
    """The width `edit` needs to show its placeholder whole: the text, the edit's margins,
    and the style's frame and padding (a style sheet's too)."""
    option = QStyleOptionFrame()
    edit.initStyleOption(option)
    margins = edit.textMargins()
    metrics = edit.fontMetrics()
    text = (
        metrics.horizontalAdvance(edit.placeholderText())
        + 2 * LINE_EDIT_MARGIN
        + margins.left()
        + margins.right()
    )
    contents = QSize(text, metrics.height())
    size = edit.style().sizeFromContents(QStyle.ContentsType.CT_LineEdit, option, contents, edit)
    return size.width()


def fit_placeholder(edit: QLineEdit) -> QLineEdit:
    """Never narrower than its placeholder (a layout short of room cut "memory id…" to
    "memor…")."""
    edit.setMinimumWidth(placeholder_width(edit))
    return edit
