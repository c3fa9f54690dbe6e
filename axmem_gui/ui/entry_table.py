"""Lazy table models over the catalog's skills and memories (smooth at 100,000 rows),
built on the catalog service's paging API (`CatalogTable`)."""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from axmem_gui.core.catalog_rows import PageCursor, PageRow, StoredEntry
from axmem_gui.core.printable import printable
from axmem_gui.services.catalog import CatalogTable
from axmem_gui.ui.inert_text import inert_tooltips

PAGE = 256
_Index = QModelIndex | QPersistentModelIndex
#: Parsed rows kept for painting (the visible ones, a few times over).
_PARSED_CACHE = 256

#: Columns shown with control characters and bidi marks as visible escapes.
SHOWN_ESCAPED = frozenset({"id", "name"})


class EntryRole(IntEnum):
    EntryId = Qt.ItemDataRole.UserRole + 1
    Entry = Qt.ItemDataRole.UserRole + 2
    Revision = Qt.ItemDataRole.UserRole + 3


def _one_line(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class EntryTableModel(QAbstractTableModel):
    """Rows are fetched page by page as the view scrolls (`canFetchMore`/`fetchMore`).

    Loaded rows stay as the catalog gave them (`PageRow`: tuples of strings and numbers,
    which the cycle collector does not track) and are parsed into entries only when shown
    or asked for: with parsed entries, scrolling through 100,000 memories added half a
    million tracked objects, and each full collection they triggered froze a frame for
    0.4–0.6 s."""

    def __init__(self, table: CatalogTable) -> None:
        super().__init__()
        self._table = table
        self._rows: list[PageRow] = []
        self._parsed: dict[int, StoredEntry] = {}
        self._total = 0
        self._filter = ""
        self._order = "pk"
        self._cursor: PageCursor | None = None
        self._fetching = False
        self.columns: tuple[tuple[str, str], ...] = self._columns(table)
        self.reload()

    @staticmethod
    def _columns(table: CatalogTable) -> tuple[tuple[str, str], ...]:
        if table.kind == "skills":
            return (
                ("id", "Id"), ("name", "Name"), ("description", "Description"), ("tags", "Tags")
            )
        return (("id", "Id"), ("content", "Content"), ("tags", "Tags"))

    # loading ------------------------------------------------------------------------
    def set_table(self, table: CatalogTable) -> None:
        self._table = table
        self.columns = self._columns(table)
        self.reload()

    def entry_at(self, row: int) -> StoredEntry:
        """The entry and metadata of a loaded row (parsed once while it is in view)."""
        found = self._parsed.get(row)
        if found is None:
            if len(self._parsed) >= _PARSED_CACHE:
                self._parsed.clear()
            found = self._parsed[row] = self._table.parse(self._rows[row])
        return found

    def entry_id_at(self, row: int) -> str:
        return self._rows[row][2]  # (pk, sort key, id, …)

    def _set_raw(self, row: int, raw: PageRow) -> None:
        self._rows[row] = raw
        self._parsed.pop(row, None)

    def set_filter(self, text: str) -> None:
        if text != self._filter:
            self._filter = text
            self.reload()

    def reload(self) -> None:
        self.beginResetModel()
        self._rows = []
        self._parsed.clear()
        self._cursor = None
        # A short first page is the whole result: only a full one needs counting (each
        # is a scan of the table when filtering, i.e. per keystroke in the filter box).
        if self._fetch(PAGE) < PAGE:
            self._total = len(self._rows)
        else:
            self._total = self._table.count(self._filter)
        self.endResetModel()

    def _page(self, n: int) -> list[PageRow]:
        """The next `n` rows, by keyset (a page near the end costs what the first does)."""
        page, cursor = self._table.page_after(
            self._cursor, n, text_filter=self._filter, order_by=self._order
        )
        if cursor is not None:
            self._cursor = cursor
        return page

    def _fetch(self, n: int) -> int:
        page = self._page(n)
        self._rows.extend(page)
        return len(page)

    def total(self) -> int:
        return self._total

    def canFetchMore(self, parent: _Index = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and not self._fetching and len(self._rows) < self._total

    def fetchMore(self, parent: _Index = QModelIndex()) -> None:  # noqa: B008
        # Views and testers may call back into fetchMore while rows are being inserted.
        if parent.isValid() or self._fetching:
            return
        self._fetching = True
        try:
            self._fetch_next_page()
        finally:
            self._fetching = False

    def _fetch_next_page(self) -> None:
        start = len(self._rows)
        want = min(PAGE, self._total - start)
        if want <= 0:
            return
        page = self._page(want)
        if not page:
            self._total = start
            return
        self.beginInsertRows(QModelIndex(), start, start + len(page) - 1)
        self._rows.extend(page)
        self.endInsertRows()

    # model API ----------------------------------------------------------------------
    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        horizontal = orientation == Qt.Orientation.Horizontal
        if role == Qt.ItemDataRole.DisplayRole and horizontal and 0 <= section < len(self.columns):
            return self.columns[section][1]
        return None

    @inert_tooltips
    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        if role == EntryRole.EntryId:
            return self.entry_id_at(index.row())
        if role == EntryRole.Entry:
            return self.entry_at(index.row()).entry
        if role == EntryRole.Revision:
            return self.entry_at(index.row()).revision
        key = self.columns[index.column()][0] if 0 <= index.column() < len(self.columns) else ""
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            value = getattr(self.entry_at(index.row()).entry, key, "")
            if key == "tags":
                return ", ".join(value)
            text = str(value)
            if key in SHOWN_ESCAPED:
                # an id or name a reader could be fooled by: a bidi override turned
                # `bidi\u202eevil` into "bidilive"; control characters showed as boxes
                text = printable(text)
            return _one_line(text) if role == Qt.ItemDataRole.DisplayRole else text[:2000]
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(self.columns) or self.columns[column][0] == "tags":
            return
        key = self.columns[column][0]
        self._order = key + (" desc" if order == Qt.SortOrder.DescendingOrder else "")
        self.reload()

    def row_of_id(self, entry_id: str) -> int:
        for i, raw in enumerate(self._rows):
            if raw[2] == entry_id:
                return i
        return -1
