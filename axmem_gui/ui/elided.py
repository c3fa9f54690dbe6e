"""One-line labels that never widen their window: long text is cut with an ellipsis and
shown whole in the tooltip."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QStyleOption, QWidget

from axmem_gui.ui.inert_text import inert

#: Characters of a text an `ElidedLabel` hands to Qt (and its tooltip): no screen line
#: shows more, and a stranger's five-million-character session name was measured and
#: elided on every paint (the window froze for half a minute).
SHOWN_CHARS = 2000


def _shown(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…"


class ElidedLabel(QLabel):
    """A plain-text QLabel whose minimum width is a few characters: what does not fit is
    elided (…) at `mode`, and the tooltip then carries the whole text (its first
    `SHOWN_CHARS` characters), inert: a tooltip has no plain-text switch, and a session
    name like `<img src="/dev/zero">` read as rich text aborted the app on hover."""

    def __init__(
        self,
        text: str = "",
        parent: QWidget | None = None,
        mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight,
    ) -> None:
        super().__init__(parent)
        self._mode = mode
        self._full = ""
        self._line = ""  # what is shown of it
        self._own_tip = ""
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setText(text)

    def setText(self, text: str) -> None:
        self._full = text
        self._line = _shown(text)
        super().setText(self._line)
        self._update_tip()

    def full_text(self) -> str:
        return self._full

    def setToolTip(self, tip: str) -> None:
        """`tip` is plain text (it is shown as written, never as rich text)."""
        self._own_tip = tip
        self._update_tip()

    def is_elided(self) -> bool:
        return self.fontMetrics().horizontalAdvance(self._line) > self.contentsRect().width()

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        return QSize(
            min(hint.width(), self.fontMetrics().horizontalAdvance("M" * 3)), hint.height()
        )

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._update_tip()

    def _update_tip(self) -> None:
        tip = self._own_tip
        if self._line and "\n" not in self._line and self.is_elided():
            tip = self._line if not tip else f"{self._line}\n\n{tip}"
        super().setToolTip(inert(tip))

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        option = QStyleOption()
        option.initFrom(self)
        rect = self.contentsRect()
        line = self._line.replace("\n", " ")
        shown = self.fontMetrics().elidedText(line, self._mode, rect.width())
        self.style().drawItemText(
            painter,
            rect,
            int(self.alignment()),
            option.palette,
            self.isEnabled(),
            shown,
            self.foregroundRole(),
        )


def elided(text: str = "", object_name: str = "") -> ElidedLabel:
    label = ElidedLabel(text)
    if object_name:
        label.setObjectName(object_name)
    return label
