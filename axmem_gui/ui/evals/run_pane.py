"""The Evals page's left column: the sets and their cases above, the run controls below,
shown whole whenever the window has the room (on a laptop the provider form ran off the
bottom of the page, below a scroll bar that moved the whole column)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QScrollArea, QSplitter, QWidget


class WholeBelow(QSplitter):
    """A vertical splitter: `top` above, `bottom` below in a scroll area. Whenever the
    splitter is resized or `bottom` asks for more room, `bottom` gets its whole height
    and `top` gives up room down to its minimum; past that `bottom` scrolls. Its minimum
    stays small, so it never makes the window taller than the screen allows."""

    def __init__(self, top: QWidget, bottom: QWidget) -> None:
        super().__init__(Qt.Orientation.Vertical)
        self.area = QScrollArea()
        self.area.setFrameShape(QFrame.Shape.NoFrame)
        self.area.setWidgetResizable(True)
        # The controls wrap and scroll down, never sideways.
        self.area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.area.setWidget(bottom)
        self.addWidget(top)
        self.addWidget(self.area)
        self.setChildrenCollapsible(False)
        self.setStretchFactor(0, 1)
        bottom.installEventFilter(self)

    def needed(self) -> int:
        """The height that shows `bottom` whole at the scroll area's width."""
        content = self.area.widget()
        assert content is not None  # set in __init__
        width = self.area.viewport().width()
        height = (
            content.heightForWidth(width)
            if content.hasHeightForWidth()
            else content.sizeHint().height()
        )
        return max(height, content.minimumSizeHint().height()) + 2 * self.area.frameWidth()

    def fit(self) -> None:
        sizes = self.sizes()
        total = sum(sizes)
        if total <= 0:
            return
        top = self.widget(0)
        room = total - (top.minimumSizeHint().height() if top is not None else 0)
        bottom = max(min(self.needed(), room), self.area.minimumSizeHint().height())
        if sizes[1] != bottom:
            self.setSizes([total - bottom, bottom])

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.area.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.fit()
        return super().eventFilter(watched, event)
