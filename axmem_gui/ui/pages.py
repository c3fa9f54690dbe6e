"""Central-area pages, one per navigator section."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QItemSelection, QStringListModel, Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListView,
    QPlainTextEdit,
    QSplitter,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.store.repositories import MemoryRepository, SkillRepository
from axmem_gui.ui.entry_table import EntryRole, EntryTableModel


def monospace_font() -> QFont:
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)


def empty_state(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("emptyState")
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setWordWrap(True)
    return label


class CatalogPage(QWidget):
    """Skills or memories: filter, lazy table, and the selected entry's raw text."""

    current_changed = Signal(str)

    def __init__(self, kind: str, repo: SkillRepository | MemoryRepository) -> None:
        super().__init__()
        self.kind = kind
        self.model = EntryTableModel(repo)
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText(f"Filter {kind} by id, text or tag  (Ctrl+F)")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self.model.set_filter)
        QShortcut(QKeySequence.StandardKey.Find, self, self.filter_edit.setFocus)

        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        # No sort indicator at first: rows stay in catalog order until a header is clicked.
        self.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.table.setSortingEnabled(True)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        widths = (200, 200, 420) if kind == "skills" else (200, 560)
        for column, width in enumerate(widths):
            self.table.setColumnWidth(column, width)
        self.table.selectionModel().selectionChanged.connect(self._on_selection)

        self.detail = QPlainTextEdit()
        self.detail.setReadOnly(True)
        self.detail.setProperty("exactText", True)
        self.detail.setFont(monospace_font())
        self.detail.setPlaceholderText(f"Select one of the {kind} to see its exact text.")

        self.empty = empty_state(
            f"No {kind} yet — import a catalog (File > Import) or create one with Ctrl+N."
        )
        self.stack = QStackedWidget()
        self.stack.addWidget(self.table)
        self.stack.addWidget(self.empty)

        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.stack)
        split.addWidget(self.detail)
        split.setSizes([400, 200])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.filter_edit)
        layout.addWidget(split)
        self._update_empty()
        self.model.modelReset.connect(self._update_empty)

    def set_repository(self, repo: SkillRepository | MemoryRepository) -> None:
        self.model.set_repository(repo)

    def reload(self) -> None:
        current = self.current_id()
        self.model.reload()
        if current is not None:
            self.select_id(current)

    def _update_empty(self) -> None:
        empty = self.model.total() == 0 and not self.filter_edit.text()
        self.stack.setCurrentWidget(self.empty if empty else self.table)

    def current_id(self) -> str | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        value = rows[0].data(EntryRole.EntryId)
        return str(value) if value is not None else None

    def select_id(self, entry_id: str) -> bool:
        while (row := self.model.row_of_id(entry_id)) < 0 and self.model.canFetchMore():
            self.model.fetchMore()
        if row < 0:
            return False
        self.table.selectRow(row)
        self.table.scrollTo(self.model.index(row, 0))
        return True

    def _on_selection(self, *_: QItemSelection) -> None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            self.detail.clear()
            return
        entry = rows[0].data(EntryRole.Entry)
        self.detail.setPlainText(_describe(entry))
        self.current_changed.emit(str(rows[0].data(EntryRole.EntryId)))


def _describe(entry: Skill | Memory) -> str:
    if isinstance(entry, Skill):
        head = f"id: {entry.id}\nname: {entry.name}\ndescription: {entry.description}\n"
    else:
        head = f"id: {entry.id}\n"
    tags = f"tags: {', '.join(entry.tags)}\n" if entry.tags else ""
    return f"{head}{tags}\n{entry.content}"


class NamedListPage(QWidget):
    """Scenarios, suites, sessions, context maps: a list of what the workspace holds."""

    def __init__(self, title: str, empty_text: str, names: Callable[[], list[str]]) -> None:
        super().__init__()
        self._names = names
        self.model = QStringListModel()
        self.view = QListView()
        self.view.setModel(self.model)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.empty = empty_state(empty_text)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.view)
        self.stack.addWidget(self.empty)
        heading = QLabel(title)
        heading.setObjectName("sectionTitle")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(heading)
        layout.addWidget(self.stack)
        self.reload()

    def set_source(self, names: Callable[[], list[str]]) -> None:
        self._names = names
        self.reload()

    def reload(self) -> None:
        items = self._names()
        self.model.setStringList(items)
        self.stack.setCurrentWidget(self.view if items else self.empty)
