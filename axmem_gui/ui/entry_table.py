"""Lazy table models over the catalog's skills and memories (smooth at 100,000 rows),
built on the catalog service's paging API (`CatalogTable`).

The model has as many rows as the list (so the scroll bar, Ctrl+End and a drag to the
bottom reach the true end) but holds only the pages that were shown: a page is read
when one of its rows is first asked for, by keyset from the nearest loaded page or
from either end of the list (the last page costs what the first does). A new filter is
counted and read on a job (`runner`): a filter too short for the trigram index reads
every row, which the GUI thread must not wait for."""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)

from axmem_gui.core.catalog_rows import PageCursor, PageRow, StoredEntry
from axmem_gui.core.printable import printable
from axmem_gui.services.catalog import CatalogTable, TableStart
from axmem_gui.ui.inert_text import inert_tooltips
from axmem_gui.ui.tasks import JobContext, TaskRunner

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


def _cursor(row: PageRow) -> PageCursor:
    return (row[1], int(row[0]))  # (sort key, pk) of a (pk, sort key, id, …) row


class EntryTableModel(QAbstractTableModel):
    """Every row of the list, read a page at a time where it is shown.

    Loaded rows stay as the catalog gave them (`PageRow`: tuples of strings and numbers,
    which the cycle collector does not track) and are parsed into entries only when shown
    or asked for: with parsed entries, scrolling through 100,000 memories added half a
    million tracked objects, and each full collection they triggered froze a frame for
    0.4–0.6 s."""

    #: A filter's rows are in the model (the filter's text): what the list shows now.
    filter_applied = Signal(str)

    def __init__(self, table: CatalogTable, runner: TaskRunner | None = None) -> None:
        super().__init__()
        self._table = table
        self._runner = runner
        #: Loaded pages by number: page p holds rows p*PAGE onwards.
        self._pages: dict[int, list[PageRow]] = {}
        self._parsed: dict[int, StoredEntry] = {}
        self._total = 0
        self._filter = ""
        self._order = "pk"
        #: The filter asked for and its job, while its rows are being read.
        self._wanted: str | None = None
        self._job: int | None = None
        #: Pages read so far, and how many rows their queries stepped over by OFFSET
        #: (tests read them: the end of a list is reached by keyset, not by skipping).
        self.pages_read = 0
        self.rows_skipped = 0
        self.columns: tuple[tuple[str, str], ...] = self._columns(table)
        if runner is not None:
            runner.finished.connect(self._on_started)
            runner.failed.connect(self._on_start_failed)
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
        self._cancel_job()
        self.reload()

    def reload(self) -> None:
        """Read the list again (its first page and its count) on this thread."""
        if self._job is not None:
            self._start_job()  # the filter on its way was read before this change
        self._show(self._table.start(PAGE, text_filter=self._filter, order_by=self._order))

    def _show(self, start: TableStart) -> None:
        self.beginResetModel()
        self._filter, self._order = start.text_filter, start.order_by
        self._pages = {0: start.rows} if start.rows else {}
        self._parsed.clear()
        self._total = start.total
        self.endResetModel()

    def set_filter(self, text: str) -> None:
        if text == (self._filter if self._wanted is None else self._wanted):
            return
        if self._runner is None:
            self._filter = text
            self.reload()
            self.filter_applied.emit(text)
            return
        self._wanted = text
        self._start_job()

    def filter_text(self) -> str:
        """The filter whose rows the model holds (another may be on its way)."""
        return self._filter

    def filtering(self) -> bool:
        """A filter's rows are being read."""
        return self._job is not None

    def _start_job(self) -> None:
        assert self._runner is not None and self._wanted is not None
        self._cancel_job()
        run = self._table.first_page_job(PAGE, text_filter=self._wanted, order_by=self._order)

        def job(ctx: JobContext) -> TableStart:
            ctx.check()  # a newer keystroke came first: this filter is not read at all
            return run()

        self._job = self._runner.submit(job)

    def _cancel_job(self) -> None:
        if self._job is not None and self._runner is not None:
            self._runner.cancel(self._job)
        self._job = None

    def _on_started(self, job_id: int, result: object) -> None:
        if job_id != self._job or not isinstance(result, TableStart):
            return
        if result.order_by != self._order:
            self._start_job()  # sorted meanwhile
            return
        self._job = self._wanted = None
        self._show(result)
        self.filter_applied.emit(result.text_filter)

    def _on_start_failed(self, job_id: int, _message: str) -> None:
        if job_id == self._job:  # (the workspace went away): read it here instead
            text = self._wanted or ""
            self._job = self._wanted = None
            self._filter = text
            self.reload()
            self.filter_applied.emit(text)

    def _page_size(self, page: int) -> int:
        return max(0, min(PAGE, self._total - page * PAGE))

    def _row(self, row: int) -> PageRow | None:
        page, at = divmod(row, PAGE)
        rows = self._pages.get(page)
        if rows is None:
            rows = self._load(page)
        return rows[at] if at < len(rows) else None

    def _load(self, page: int) -> list[PageRow]:
        """Read page `page` from the loaded page or end of the list nearest to it: by
        keyset when it is next to one, else stepping over the rows in between."""
        size = self._page_size(page)
        if size == 0:
            return []
        # (distance in rows, cursor, backward): the list's ends are anchors too
        anchors: list[tuple[int, PageCursor | None, bool]] = [
            (page * PAGE, None, False),
            (self._total - page * PAGE - size, None, True),
        ]
        for number, rows in self._pages.items():
            if not rows:
                continue
            if number < page:
                anchors.append(((page - number - 1) * PAGE, _cursor(rows[-1]), False))
            elif number > page:
                anchors.append(((number - page - 1) * PAGE, _cursor(rows[0]), True))
        skip, cursor, backward = min(anchors, key=lambda a: a[0])
        rows = self._table.page(
            cursor, size, text_filter=self._filter, order_by=self._order,
            backward=backward, skip=skip,
        )  # fmt: skip
        self.pages_read += 1
        self.rows_skipped += skip
        self._pages[page] = rows
        return rows

    def entry_at(self, row: int) -> StoredEntry:
        """The entry and metadata of a row (parsed once while it is in view)."""
        found = self._parsed.get(row)
        if found is None:
            raw = self._row(row)
            if raw is None:
                raise IndexError(f"row {row}: not in the list any more")
            if len(self._parsed) >= _PARSED_CACHE:
                self._parsed.clear()
            found = self._parsed[row] = self._table.parse(raw)
        return found

    def entry_id_at(self, row: int) -> str:
        raw = self._row(row)
        return "" if raw is None else raw[2]  # (pk, sort key, id, …)

    def loaded(self) -> list[tuple[int, str]]:
        """(row, id) of every row read so far, in row order (nothing is read for it)."""
        return [
            (number * PAGE + i, raw[2])
            for number in sorted(self._pages)
            for i, raw in enumerate(self._pages[number])
        ]

    def _set_raw(self, row: int, raw: PageRow) -> None:
        page, at = divmod(row, PAGE)
        rows = self._pages.get(page)
        if rows is not None and at < len(rows):
            rows[at] = raw
        self._parsed.pop(row, None)

    def total(self) -> int:
        return self._total

    # model API ----------------------------------------------------------------------
    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._total

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
        if not index.isValid() or not 0 <= index.row() < self._total:
            return None
        if role not in _ROLES:
            return None
        row = index.row()
        if self._row(row) is None:
            return None  # the list changed under the model: its reload is on its way
        if role == EntryRole.EntryId:
            return self.entry_id_at(row)
        if role == EntryRole.Entry:
            return self.entry_at(row).entry
        if role == EntryRole.Revision:
            return self.entry_at(row).revision
        key = self.columns[index.column()][0] if 0 <= index.column() < len(self.columns) else ""
        value = getattr(self.entry_at(row).entry, key, "")
        if key == "tags":
            return ", ".join(value)
        text = str(value)
        if key in SHOWN_ESCAPED:
            # an id or name a reader could be fooled by: a bidi override turned
            # `bidi\u202eevil` into "bidilive"; control characters showed as boxes
            text = printable(text)
        return _one_line(text) if role == Qt.ItemDataRole.DisplayRole else text[:2000]

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(self.columns) or self.columns[column][0] == "tags":
            return
        key = self.columns[column][0]
        self._order = key + (" desc" if order == Qt.SortOrder.DescendingOrder else "")
        self.reload()

    def row_of_id(self, entry_id: str) -> int:
        """The row of `entry_id` among the rows read so far (-1: not read)."""
        for number, rows in self._pages.items():
            for i, raw in enumerate(rows):
                if raw[2] == entry_id:
                    return number * PAGE + i
        return -1

    def find_row(self, entry_id: str) -> int:
        """The row of `entry_id` in the list (-1: not in it), asking the catalog where it
        stands when it was not read yet."""
        row = self.row_of_id(entry_id)
        if row >= 0:
            return row
        found = self._table.position(entry_id, text_filter=self._filter, order_by=self._order)
        if found is None or found >= self._total:
            return -1
        return found if self.entry_id_at(found) == entry_id else -1


_ROLES = frozenset(
    {
        Qt.ItemDataRole.DisplayRole,
        Qt.ItemDataRole.ToolTipRole,
        EntryRole.EntryId,
        EntryRole.Entry,
        EntryRole.Revision,
    }
)
