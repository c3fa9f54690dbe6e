"""The navigator: the workspace's sections with counts and badges."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from PySide6.QtCore import QAbstractListModel, QEvent, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QListView

from axmem_gui.core.workspace import WorkspaceCounts
from axmem_gui.ui.inert_text import inert_tooltips


class NavRole(IntEnum):
    Key = Qt.ItemDataRole.UserRole + 1
    Count = Qt.ItemDataRole.UserRole + 2
    Badge = Qt.ItemDataRole.UserRole + 3


@dataclass
class Section:
    key: str
    title: str
    count: int = 0
    badge: str = ""


_Index = QModelIndex | QPersistentModelIndex


class NavigatorModel(QAbstractListModel):
    """One row per page the features contributed, in the order they were added."""

    def __init__(self) -> None:
        super().__init__()
        self._sections: list[Section] = []

    def add_section(self, key: str, title: str) -> None:
        row = len(self._sections)
        self.beginInsertRows(QModelIndex(), row, row)
        self._sections.append(Section(key, title))
        self.endInsertRows()

    def title(self, key: str) -> str:
        return self._sections[self.row_of(key)].title

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._sections)

    @inert_tooltips
    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._sections):
            return None
        s = self._sections[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            badge = f"  {s.badge}" if s.badge else ""
            return f"{s.title}  {s.count:,}{badge}"
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{s.count:,} {s.title.lower()}" + (f" — {s.badge}" if s.badge else "")
        if role == NavRole.Key:
            return s.key
        if role == NavRole.Count:
            return s.count
        if role == NavRole.Badge:
            return s.badge
        return None

    def row_of(self, key: str) -> int:
        for i, s in enumerate(self._sections):
            if s.key == key:
                return i
        raise KeyError(key)

    def set_counts(self, counts: WorkspaceCounts) -> None:
        values = counts.to_json()
        for i, s in enumerate(self._sections):
            new = int(values.get(s.key, 0))
            if new != s.count:
                s.count = new
                idx = self.index(i)
                self.dataChanged.emit(idx, idx)

    def set_badge(self, key: str, badge: str) -> None:
        row = self.row_of(key)
        if self._sections[row].badge != badge:
            self._sections[row].badge = badge
            idx = self.index(row)
            self.dataChanged.emit(idx, idx)


class NavigatorView(QListView):
    """The navigator's list: as wide as its widest line ("Memories  100,000" and a badge),
    between `MIN_WIDTH` and `MAX_WIDTH` (past that, lines elide); never scrolled sideways.
    Fitted again when a count or badge changes and when the style sheet sets its font."""

    MIN_WIDTH, MAX_WIDTH = 150, 220
    #: The style sheet's item padding (a side), and some air.
    PADDING, AIR = 8, 8

    def __init__(self, model: NavigatorModel) -> None:
        super().__init__()
        self.setObjectName("navigator")
        self.setModel(model)
        self.setMinimumWidth(self.MIN_WIDTH)
        self.setMaximumWidth(self.MAX_WIDTH)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        model.dataChanged.connect(self.fit)
        model.rowsInserted.connect(self.fit)

    def fit(self) -> None:
        model, metrics = self.model(), self.fontMetrics()
        widest = max(
            (
                metrics.horizontalAdvance(str(model.index(row, 0).data()))
                for row in range(model.rowCount())
            ),
            default=0,
        )
        needed = widest + 2 * self.PADDING + 2 * self.frameWidth() + self.AIR
        self.setMinimumWidth(max(self.MIN_WIDTH, min(needed, self.MAX_WIDTH)))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self.fit()
