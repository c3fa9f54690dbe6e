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

    def row_count(self) -> int:
        raise NotImplementedError  # Qt's metaclass does not mix with ABCMeta

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self.row_count()

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.headers)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            role == Qt.ItemDataRole.DisplayRole
            and orientation == Qt.Orientation.Horizontal
            and 0 <= section < len(self.headers)
        ):
            return self.headers[section]
        return None

    def _row_in_range(self, index: Index) -> bool:
        """Whether `index` points at one of the rows (views may ask past the end)."""
        return index.isValid() and 0 <= index.row() < self.row_count()
