"""The window never grows past the screen, whatever a page shows.

A page's minimum size was the window's (Qt's layouts make the window at least as large as
everything in it at its minimum): the lint box of a new skill's empty description raised
the minimum height to 710 pixels, and on a 768-pixel laptop the window outgrew the screen
and could not be shrunk back. Now the pages sit in a scroll area (`CentralArea`), and the
window's minimum is what its layout asks for, bounded by the available geometry of its
screen (`ScreenFit`): past that the docks stay at their minimum and the page scrolls
inside the window."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize
from PySide6.QtWidgets import QFrame, QLayout, QMainWindow, QScrollArea, QWidget


class CentralArea(QScrollArea):
    """The window's central widget: `content` resized to fit, scrolling only when the
    window cannot give it its minimum size."""

    def __init__(self, content: QWidget) -> None:
        super().__init__()
        self.setObjectName("centralArea")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setWidgetResizable(True)
        self.setWidget(content)
        content.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # A page that needs more (or less) room: the window's layout asks again (a
        # scroll area would only update its scroll bars).
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()
        return super().eventFilter(watched, event)

    def minimumSizeHint(self) -> QSize:
        content = self.widget()
        return content.minimumSizeHint() if content is not None else super().minimumSizeHint()

    def sizeHint(self) -> QSize:
        content = self.widget()
        return content.sizeHint() if content is not None else super().sizeHint()


def screen_room(window: QWidget) -> QSize:
    """The largest size of `window` (without its frame) that its screen can show."""
    available = window.screen().availableGeometry().size()
    frame = window.frameGeometry().size() - window.geometry().size()
    room = available - frame
    return QSize(max(room.width(), 1), max(room.height(), 1))


class ScreenFit(QObject):
    """Keeps `window`'s minimum size at its layout's minimum, bounded by the screen: the
    window still grows to show a larger page where the screen has room, never past it."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self._window = window
        layout = window.layout()
        assert layout is not None  # a QMainWindow always has its layout
        self._layout = layout
        layout.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)
        window.installEventFilter(self)
        self.fit()

    def fit(self) -> None:
        wanted = self._layout.minimumSize().boundedTo(screen_room(self._window))
        if self._window.minimumSize() != wanted:
            self._window.setMinimumSize(wanted)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._window and event.type() in (
            QEvent.Type.LayoutRequest,
            QEvent.Type.ScreenChangeInternal,
            QEvent.Type.Show,
        ):
            self.fit()
        return super().eventFilter(watched, event)
