"""Central-area pages, one per navigator section."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QItemSelection, QItemSelectionModel, Qt, Signal
from PySide6.QtGui import QAction, QFont, QFontDatabase, QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSplitter,
    QStackedWidget,
    QTableView,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.services.catalog import CatalogService
from axmem_gui.ui.editor.form import EntryForm
from axmem_gui.ui.entry_table import EntryRole, EntryTableModel
from axmem_gui.ui.fitted_columns import WithinWidth
from axmem_gui.ui.inert_text import plain_label
from axmem_gui.ui.resources import style_leaves
from axmem_gui.ui.tasks import TaskRunner

#: Up to this many selected rows are selected again after a reload.
RESELECT_LIMIT = 2_000


def monospace_font() -> QFont:
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)


def empty_state(text: str) -> QLabel:
    label = plain_label(text)
    label.setObjectName("emptyState")
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setWordWrap(True)
    style_leaves(label, "base")
    return label


class CatalogTableModel(EntryTableModel):
    """The lazy entry table, plus refreshing edited rows in place (no reset: scroll
    position, selection and loaded pages stay)."""

    def refresh_entries(self, ids: Iterable[str]) -> bool:
        """Re-read the loaded rows of `ids`. False when a row is gone (reload instead)."""
        wanted = set(ids)
        rows = [(r, entry_id) for r, entry_id in self.loaded() if entry_id in wanted]
        for row, entry_id in rows:
            found = self._table.row(entry_id)
            if found is None:
                return False
            self._set_raw(row, found)
            last = self.columnCount() - 1
            self.dataChanged.emit(self.index(row, 0), self.index(row, last))
        return True


#: Rows measured when the id (and name) columns are first fitted: about two screens.
FIT_ROWS = 64


class CatalogPage(QWidget):
    """Skills or memories: filter, lazy table with multi-select, and the entry form."""

    current_changed = Signal(str)
    #: The Delete key in the table (deleting is undoable, so no confirmation).
    delete_requested = Signal()
    #: The entry the form showed is no longer stored (deleted elsewhere): its id.
    entry_gone = Signal(str)

    def __init__(
        self, kind: str, catalog: CatalogService, runner: TaskRunner | None = None
    ) -> None:
        super().__init__()
        self.kind = kind
        self.catalog = catalog
        #: `runner` reads a new filter's rows off the GUI thread (None: on it).
        self.model = CatalogTableModel(catalog.table(kind), runner)
        self._expected_updates: set[str] | None = None

        self.toolbar = QToolBar()
        self.toolbar.setObjectName("catalogToolbar")
        self.toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText(f"Filter {kind} by id, text or tag  (Ctrl+F)")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self.model.set_filter)
        QShortcut(QKeySequence.StandardKey.Find, self, self.filter_edit.setFocus)
        self.selection_label = plain_label()
        self.selection_label.setObjectName("selectionCount")

        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        # No sort indicator at first: rows stay in catalog order until a header is clicked.
        self.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.table.setSortingEnabled(True)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        widths = (170, 160, 260) if kind == "skills" else (170, 320)
        for column, width in enumerate(widths):
            self.table.setColumnWidth(column, width)
        # Within the view's width: description (or content), then name, give way. Headers
        # start at the left of their column: a wide column's centred title ("Content")
        # was beyond the right edge of a narrow list.
        self.columns_fit = WithinWidth(self.table, (2, 1) if kind == "skills" else (1,))
        self.table.horizontalHeader().setDefaultAlignment(
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        )
        self.table.selectionModel().selectionChanged.connect(self._on_selection)
        self.table.selectionModel().currentRowChanged.connect(lambda *_: self._on_selection())
        self.delete_key_action = QAction("Delete", self.table)
        self.delete_key_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Delete))
        self.delete_key_action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        self.delete_key_action.triggered.connect(self._on_delete_key)
        self.table.addAction(self.delete_key_action)

        self.form = EntryForm(kind)

        self.empty = empty_state(
            f"No {kind} yet — import a catalog (File > Import) or create one with Ctrl+N."
        )
        self.stack = QStackedWidget()
        self.stack.addWidget(self.table)
        self.stack.addWidget(self.empty)

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.setSpacing(4)
        left_layout.addWidget(self.filter_edit)
        left_layout.addWidget(self.stack, 1)
        left_layout.addWidget(self.selection_label)
        self.split = QSplitter(Qt.Orientation.Horizontal)
        self.split.setChildrenCollapsible(False)
        self.split.addWidget(left)
        self.split.addWidget(self.form)
        # The editor gets the room; the list shows ids and names and grows with the window.
        self.split.setStretchFactor(0, 2)
        self.split.setStretchFactor(1, 3)
        self.split.setSizes([360, 600])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 4)
        layout.setSpacing(2)
        layout.addWidget(self.toolbar)
        layout.addWidget(self.split, 1)
        self._columns_fitted = False
        self._update_empty()
        self._fit_columns()
        self.model.modelReset.connect(self._fit_columns)
        self.model.modelReset.connect(self._update_empty)
        self.model.modelReset.connect(self._update_selection_label)
        self._update_selection_label()

    def _fit_columns(self) -> None:
        """Once, when rows first arrive and the page is shown: the id (and name) columns
        as wide as what they hold in the first rows, within bounds; after that the user's
        widths stay. A page not shown yet (memories, at start-up) waits for its showEvent."""
        if self._columns_fitted or self.model.rowCount() == 0 or not self.isVisible():
            return
        self._columns_fitted = True
        header = self.table.horizontalHeader()
        header.setResizeContentsPrecision(FIT_ROWS)
        for column in (0, 1) if self.kind == "skills" else (0,):
            self.table.resizeColumnToContents(column)
            self.table.setColumnWidth(column, min(max(self.table.columnWidth(column), 90), 260))
        self.columns_fit.fit()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._fit_columns()

    def _on_delete_key(self) -> None:
        # A slot, not a lambda returning emit()'s bool: PySide6 6.12 mis-counts returned values.
        self.delete_requested.emit()

    # data ---------------------------------------------------------------------------
    def set_catalog(self, catalog: CatalogService) -> None:
        self.catalog = catalog
        self._expected_updates = None
        # Another workspace: typing not yet committed belonged to the old one (whose
        # connection is already closed), so it is dropped rather than written here.
        self.form.discard_pending()
        self.form.load(None)
        self.model.set_table(catalog.table(self.kind))

    def expect_update(self, ids: Iterable[str] | None) -> None:
        """The next `reload()` follows an edit of these existing entries only (None: no
        hint, reload everything)."""
        self._expected_updates = None if ids is None else set(ids)

    def reload(self) -> None:
        shown = self.form.entry
        self._reload()
        if shown is not None and self.form.entry is None:
            self.entry_gone.emit(shown.id)

    def _reload(self) -> None:
        expected, self._expected_updates = self._expected_updates, None
        if expected is not None and self.model.refresh_entries(expected):
            self._reload_form()
            return
        current = self.current_id()
        selected = self.selected_ids()
        scroll = self.table.verticalScrollBar().value()
        self.model.reload()
        self._reselect(selected if len(selected) <= RESELECT_LIMIT else [], current)
        self.table.verticalScrollBar().setValue(scroll)
        self._reload_form()

    def _reselect(self, ids: list[str], current: str | None) -> None:
        if current is not None and not self.select_id(current):
            self.show_entry(current)
        if len(ids) <= 1:
            return
        wanted = set(ids)
        selection = QItemSelection()
        for row, entry_id in self.model.loaded():
            if entry_id in wanted:
                selection.select(self.model.index(row, 0), self.model.index(row, 0))
        flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
        self.table.selectionModel().select(selection, flags)

    def _reload_form(self) -> None:
        entry = self.form.entry
        self.show_entry(None if entry is None else entry.id)

    def show_entry(self, entry_id: str | None) -> None:
        """Show the stored entry (or nothing) in the form, whatever the table shows."""
        found = None if entry_id is None else self.catalog.get(self.kind, entry_id)
        if found is None:
            self.form.load(None)
            return
        self.form.load(found.entry, found.revision)

    def _update_empty(self) -> None:
        empty = self.model.total() == 0 and not self.filter_edit.text()
        self.stack.setCurrentWidget(self.empty if empty else self.table)

    # selection ----------------------------------------------------------------------
    def current_id(self) -> str | None:
        """The entry shown in the form (the current row of the selection)."""
        if self.form.entry is not None:
            return self.form.entry.id
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        value = rows[0].data(EntryRole.EntryId)
        return str(value) if value is not None else None

    def selected_ids(self) -> list[str]:
        rows = sorted(r.row() for r in self.table.selectionModel().selectedRows())
        ids = [str(self.model.index(r, 0).data(EntryRole.EntryId)) for r in rows]
        if not ids and self.form.entry is not None:
            ids = [self.form.entry.id]
        return ids

    def select_id(self, entry_id: str) -> bool:
        row = self.model.find_row(entry_id)
        if row < 0:
            return False
        index = self.model.index(row, 0)
        selection = self.table.selectionModel()
        selection.setCurrentIndex(
            index,
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows,
        )
        self.table.scrollTo(index)
        return True

    def focus_entry(self, entry_id: str) -> None:
        """Bring an entry into view after a command (created, restored, renamed, undone)."""
        if self.current_row_id() != entry_id and not self.select_id(entry_id):
            self.table.clearSelection()
        self.show_entry(entry_id)

    def current_row_id(self) -> str | None:
        index = self.table.currentIndex()
        if not index.isValid() or not self.table.selectionModel().isRowSelected(index.row()):
            return None
        value = index.data(EntryRole.EntryId)
        return None if value is None else str(value)

    def _on_selection(self, *_: QItemSelection) -> None:
        self._update_selection_label()
        entry_id = self.current_row_id()
        if entry_id is None:
            rows = self.table.selectionModel().selectedRows()
            entry_id = None if not rows else str(rows[0].data(EntryRole.EntryId))
        if entry_id is None:
            return
        if self.form.entry is None or self.form.entry.id != entry_id:
            self.show_entry(entry_id)
            self.current_changed.emit(entry_id)

    def _update_selection_label(self) -> None:
        count = len(self.table.selectionModel().selectedRows())
        total = self.model.total()
        text = f"{total:,} {self.kind}"
        if count > 1:
            text += f" · {count:,} selected"
        self.selection_label.setText(text)
