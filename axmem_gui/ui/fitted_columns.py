"""Columns of a small table sized to their headers and cells, and fitted to the view's
width, so a narrow dock shows every header whole instead of a horizontal scroll bar."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QHeaderView, QTableView

#: A flexible column is never made wider than this to show its longest cell (the last
#: column still takes whatever room is left).
FLEX_CAP = 260


class FittedColumns(QObject):
    """Sizes the columns of `view` (a table of tens of rows, not thousands) on every model
    reset and viewport resize:

    - each column is at least as wide as its header (`QHeaderView.sectionSizeHint`: text
      and margins) and `minimum[column]`;
    - a fixed column (a number) is as wide as its widest cell too;
    - a flexible column (`flexible`: ids, terms, search strings) is as wide as its widest
      cell up to `FLEX_CAP`, and gives up room, down to its header's width, when the view
      is narrower than all that (the first of `flexible` first): its cells are elided,
      their tooltips say them whole;
    - the last column takes what room is left.

    A horizontal scroll bar appears only when the headers alone do not fit. Users can
    still drag a column wider or narrower; the next resize of the view fits them again."""

    def __init__(
        self,
        view: QTableView,
        flexible: Sequence[int],
        minimum: Mapping[int, int] | None = None,
    ) -> None:
        super().__init__(view)
        self._view = view
        self._flexible = tuple(flexible)
        self._minimum = dict(minimum or {})
        header = view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        view.viewport().installEventFilter(self)
        model = view.model()
        model.modelReset.connect(self.fit)
        model.layoutChanged.connect(self.fit)
        self.fit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return super().eventFilter(watched, event)

    def widths(self, available: int) -> list[int]:
        """Each column's width for a viewport `available` pixels wide."""
        view = self._view
        header = view.horizontalHeader()
        has_rows = view.model().rowCount() > 0
        floors: list[int] = []
        wants: list[int] = []
        for column in range(header.count()):
            floor = max(header.sectionSizeHint(column), self._minimum.get(column, 0))
            cells = view.sizeHintForColumn(column) if has_rows else 0
            want = max(floor, cells)
            if column in self._flexible:
                want = max(floor, min(want, FLEX_CAP))
            floors.append(floor)
            wants.append(want)
        excess = sum(wants) - available
        # The flexible columns give up room in turn, each down to its header's width (if
        # even the headers alone do not fit, they stay whole: the view scrolls).
        shrunk = list(wants)
        for column in self._flexible:
            if excess <= 0 or column >= len(wants):
                continue
            give = min(excess, wants[column] - floors[column])
            shrunk[column] -= give
            excess -= give
        return shrunk

    def fit(self) -> None:
        view = self._view
        header = view.horizontalHeader()
        if header.count() == 0:
            return
        for column, width in enumerate(self.widths(view.viewport().width())):
            if header.sectionSize(column) != width:
                header.resizeSection(column, width)


class WithinWidth(QObject):
    """Keeps the columns of a big lazy table (the catalog's) within its view's width:
    whenever they are wider than the viewport, the `give_way` columns give up room in
    turn, each down to its header's width, and the last column stretches over what is
    left; when even that would not fit, nothing shrinks (the view scrolls, the columns
    it shows stay readable). Nothing else is touched: widths fitted to the content or
    dragged by the user stay while they fit. (Fixed widths gave every entry table a
    horizontal scroll bar on a laptop, and hid the Memories table's "Content" header off
    to the right.)"""

    def __init__(self, view: QTableView, give_way: Sequence[int]) -> None:
        super().__init__(view)
        self._view = view
        self._give_way = tuple(give_way)
        view.horizontalHeader().setStretchLastSection(True)
        view.viewport().installEventFilter(self)
        view.model().modelReset.connect(self.fit)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return super().eventFilter(watched, event)

    def fit(self) -> None:
        header = self._view.horizontalHeader()
        last = header.count() - 1
        available = self._view.viewport().width()
        if last < 0 or available <= 0:
            return
        widths = [header.sectionSize(c) for c in range(last)]
        # (the stretched last column keeps at least its default size: Qt's own floor)
        excess = header.length() - available
        room = sum(
            max(0, widths[c] - header.sectionSizeHint(c)) for c in self._give_way if c < last
        )
        if excess > room:
            return  # even at their headers' widths they would not fit: scroll instead
        for column in self._give_way:
            if excess <= 0:
                break
            if column >= last:
                continue
            give = min(excess, widths[column] - header.sectionSizeHint(column))
            if give > 0:
                header.resizeSection(column, widths[column] - give)
                excess -= give


def headers_whole(view: QTableView) -> None:
    """Widen each column of `view` narrower than its header (text, margins and a sort
    arrow's room, as the style draws them now) to the header's width."""
    header = view.horizontalHeader()
    for column in range(header.count()):
        wanted = header.sectionSizeHint(column)
        if header.sectionSize(column) < wanted:
            header.resizeSection(column, wanted)
