"""Chips: small styled labels (an entry id, a state) that wrap like words in a paragraph."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QMargins, QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLabel, QLayout, QLayoutItem, QSizePolicy, QWidget

from axmem_gui.ui.inert_text import inert, plain_label


class FlowLayout(QLayout):
    """Lays children left to right and wraps to the next line when the width runs out."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 4) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing
        self.setContentsMargins(QMargins(0, 0, 0, 0))

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:
        return self.minimumSize()

    def minimumSize(self) -> QSize:
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        m = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    def _arrange(self, rect: QRect, move: bool) -> int:
        m = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        x, y, line_height = area.x(), area.y(), 0
        for item in self._items:
            hint = item.sizeHint()
            if x + hint.width() > area.right() + 1 and line_height > 0:
                x, y = area.x(), y + line_height + self._spacing
                line_height = 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + self._spacing
            line_height = max(line_height, hint.height())
        return y + line_height - rect.y() + m.bottom()


def chip(text: str, kind: str, tooltip: str = "") -> QLabel:
    """A chip; `kind` selects its style in sessions.qss (used, loaded, added, removed...)."""
    label = plain_label(text)
    label.setObjectName("chip")
    label.setProperty("kind", kind)
    label.setToolTip(inert(tooltip))
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class ChipRow(QWidget):
    """A caption and a wrapping row of chips; an italic note when there are none."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.flow = FlowLayout(self)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)

    def set_chips(self, chips: Iterable[QLabel], empty_text: str = "none") -> None:
        while (item := self.flow.takeAt(0)) is not None:
            widget = item.widget()
            if widget is not None:
                widget.hide()  # deleted later; hidden now so no stale chip shows meanwhile
                widget.deleteLater()
        added = False
        for c in chips:
            self.flow.addWidget(c)
            added = True
        if not added:
            self.flow.addWidget(chip(empty_text, "none"))
        self.updateGeometry()

    def texts(self) -> list[str]:
        out = []
        for i in range(self.flow.count()):
            item = self.flow.itemAt(i)
            widget = item.widget() if item is not None else None
            if isinstance(widget, QLabel) and widget.property("kind") != "none":
                out.append(widget.text())
        return out

    def kinds(self) -> dict[str, str]:
        out = {}
        for i in range(self.flow.count()):
            item = self.flow.itemAt(i)
            widget = item.widget() if item is not None else None
            if isinstance(widget, QLabel) and widget.property("kind") != "none":
                out[widget.text()] = str(widget.property("kind"))
        return out
