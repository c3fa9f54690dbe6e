"""Exact text (prompts, code, model replies) in a read-only monospace view with a
whitespace toggle and a copy button. What is shown is the recorded text, byte for byte."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette, QTextCursor, QTextFormat, QTextOption
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QSizePolicy,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.jsout import as_text
from axmem_gui.ui.elided import ElidedLabel
from axmem_gui.ui.inert_text import plain_label
from axmem_gui.ui.pages import monospace_font
from axmem_gui.ui.resources import style_leaves


def set_show_whitespace(edit: QPlainTextEdit, show: bool) -> None:
    option = edit.document().defaultTextOption()
    flags = option.flags()
    marks = QTextOption.Flag.ShowTabsAndSpaces | QTextOption.Flag.ShowLineAndParagraphSeparators
    option.setFlags(flags | marks if show else flags & ~marks)
    edit.document().setDefaultTextOption(option)


def exact_edit() -> QPlainTextEdit:
    edit = QPlainTextEdit()
    edit.setReadOnly(True)
    edit.setProperty("exactText", True)
    edit.setFont(monospace_font())
    edit.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
    edit.setTextInteractionFlags(
        Qt.TextInteractionFlag.TextSelectableByMouse
        | Qt.TextInteractionFlag.TextSelectableByKeyboard
    )
    style_leaves(edit, "base")
    return edit


def tint(palette: QPalette, color: QColor, amount: float = 0.22) -> QColor:
    """`color` mixed into the palette's base: readable in light and dark themes."""
    base = palette.color(QPalette.ColorRole.Base)
    pairs = ((base.red(), color.red()), (base.green(), color.green()), (base.blue(), color.blue()))
    r, g, b = (round(low + (high - low) * amount) for low, high in pairs)
    return QColor(r, g, b)


def shrinkable(label: QLabel) -> QLabel:
    """A one-line label that may be cut off rather than widen its whole panel."""
    label.setSizePolicy(QSizePolicy.Policy.Ignored, label.sizePolicy().verticalPolicy())
    label.setMinimumWidth(8)
    return label


REMOVED = QColor(220, 50, 47)
ADDED = QColor(40, 160, 60)
CHANGED = QColor(200, 140, 20)


#: Longest line shown whole (Qt lays out a line in one piece: 1 MB took 0.7 s).
SHOWN_LINE = 100_000
#: Most characters shown.
SHOWN_TOTAL = 4_000_000


def shown_text(text: str) -> tuple[str, bool]:
    """`text` as an exact view can show it: at most `SHOWN_TOTAL` characters and lines
    of at most `SHOWN_LINE`; and whether anything was cut."""
    if len(text) <= SHOWN_LINE:
        return text, False
    cut = len(text) > SHOWN_TOTAL
    lines = text[:SHOWN_TOTAL].split("\n")
    if max(map(len, lines)) > SHOWN_LINE:
        lines = [line[:SHOWN_LINE] for line in lines]
        cut = True
    return ("\n".join(lines) if cut else text), cut


class ExactTextView(QWidget):
    """A caption, the text, and a small bar: whitespace toggle, wrap toggle, copy."""

    whitespace_toggled = Signal(bool)

    def __init__(self, caption: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.edit = exact_edit()
        self.caption = plain_label(caption)
        self.caption.setObjectName("exactCaption")
        # The caption is whole while the counts beside it can give way (they are cut
        # first, their tooltip has them): a narrow pane showed "Context map befor".
        # Only a pane narrower than the caption and the buttons cuts the caption.
        self.caption.setMinimumWidth(8)
        self.stats = ElidedLabel()
        self.stats.setObjectName("exactStats")
        self.stats.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.whitespace_button = QToolButton()
        self.whitespace_button.setText("·¶")
        self.whitespace_button.setToolTip("Show spaces, tabs and line ends")
        self.whitespace_button.setCheckable(True)
        self.whitespace_button.toggled.connect(self._on_whitespace)
        self.wrap_button = QToolButton()
        self.wrap_button.setText("Wrap")
        self.wrap_button.setToolTip("Wrap long lines")
        self.wrap_button.setCheckable(True)
        self.wrap_button.toggled.connect(self.set_wrap)
        self.copy_button = QToolButton()
        self.copy_button.setText("Copy")
        self.copy_button.setToolTip("Copy the exact text")
        self.copy_button.clicked.connect(self.copy)
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.setSpacing(4)
        bar.addWidget(self.caption)
        bar.addWidget(self.stats, 1)
        bar.addWidget(self.whitespace_button)
        bar.addWidget(self.wrap_button)
        bar.addWidget(self.copy_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(2)
        layout.addLayout(bar)
        layout.addWidget(self.edit, 1)

    # content ------------------------------------------------------------------------
    def set_text(self, text: str, placeholder: str = "") -> None:
        """Show `text`. A text Qt cannot lay out in reasonable time (a line over
        `SHOWN_LINE` characters: a 30 MB prompt on one line took 15 s; or over
        `SHOWN_TOTAL` in all) is shown cut, and says so; `text()` and Copy stay exact."""
        self._text = text
        shown, cut = shown_text(as_text(text))  # a lone surrogate shows as U+FFFD
        self.edit.setPlainText(shown)
        self.edit.setPlaceholderText(placeholder)
        self.edit.moveCursor(QTextCursor.MoveOperation.Start)
        lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
        stats = f"{len(text):,} chars · {lines:,} lines" if text else ""
        if cut:
            stats += " · shown cut (too long to lay out): Copy copies all of it"
        self.stats.setText(stats)

    def text(self) -> str:
        """The exact text given (the view may show it cut)."""
        return getattr(self, "_text", "")

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.text())

    def highlight_lines(self, lines: Iterable[tuple[int, QColor]]) -> None:
        """Tint whole lines (0-based block numbers), e.g. the lines a diff marks (tinted
        again when the theme changes: the tint is mixed into the palette's base)."""
        self._tinted = list(lines)
        selections = []
        doc = self.edit.document()
        for number, color in self._tinted:
            block = doc.findBlockByNumber(number)
            if not block.isValid():
                continue
            sel = QTextEdit.ExtraSelection()
            sel.format.setBackground(tint(self.edit.palette(), color))
            sel.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            sel.cursor = QTextCursor(block)
            selections.append(sel)
        self.edit.setExtraSelections(selections)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and getattr(self, "_tinted", None):
            self.highlight_lines(self._tinted)

    # toggles ------------------------------------------------------------------------
    def set_show_whitespace(self, show: bool) -> None:
        self.whitespace_button.setChecked(show)
        set_show_whitespace(self.edit, show)

    def _on_whitespace(self, show: bool) -> None:
        set_show_whitespace(self.edit, show)
        self.whitespace_toggled.emit(show)

    def set_wrap(self, wrap: bool) -> None:
        self.wrap_button.setChecked(wrap)
        self.edit.setLineWrapMode(
            QPlainTextEdit.LineWrapMode.WidgetWidth if wrap else QPlainTextEdit.LineWrapMode.NoWrap
        )
