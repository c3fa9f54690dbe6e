"""The shape every flat table model of the app shares: fixed column headers, one row per
item, no children."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

Index = QModelIndex | QPersistentModelIndex


class HeaderedTableModel(QAbstractTableModel):
    """A table whose columns are `headers` and whose rows number `row_count()`.

    Subclasses set `headers`, implement `row_count` and `data`. Only the horizontal header
    has text: the vertical one answers None (no row numbers).
    """

    headers: tuple[str, ...] = ()
    #: Each header's tooltip ("" or past the end: none).
    header_tips: tuple[str, ...] = ()

    def row_count(self) -> int:
        raise NotImplementedError  # Qt's metaclass does not mix with ABCMeta

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self.row_count()

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.headers)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self.headers):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.headers[section]
        if role == Qt.ItemDataRole.ToolTipRole and section < len(self.header_tips):
            return self.header_tips[section] or None
        return None

    def _row_in_range(self, index: Index) -> bool:
        """Whether `index` points at one of the rows (views may ask past the end)."""
        return index.isValid() and 0 <= index.row() < self.row_count()
