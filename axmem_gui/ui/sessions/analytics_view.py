"""Usage analytics: per skill and memory, how many forwards loaded and used it across the
workspace's sessions; filters for "loaded but never used" and "never loaded"."""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from PySide6.QtCore import (
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.session.analytics import (
    LOADED_NEVER_USED,
    NEVER_LOADED,
    USED,
    EntryUsage,
    UsageReport,
)
from axmem_gui.ui.fitted_columns import headers_whole
from axmem_gui.ui.inert_text import inert_tooltips, plain_label
from axmem_gui.ui.table_model import HeaderedTableModel

Index = QModelIndex | QPersistentModelIndex

COLUMNS = ("Kind", "Id", "Loaded", "Used", "Sessions", "Status", "Last session")
KIND, ID, LOADED, USED_COL, SESSIONS, STATUS, LAST = range(len(COLUMNS))
STATUS_COLORS = {LOADED_NEVER_USED: QColor(200, 120, 20), NEVER_LOADED: QColor(130, 130, 140)}
FILTERS = (
    ("All entries", None),
    ("Loaded but never used", LOADED_NEVER_USED),
    ("Never loaded", NEVER_LOADED),
    ("Used", USED),
)


class UsageRole(IntEnum):
    Status = Qt.ItemDataRole.UserRole + 1
    SortKey = Qt.ItemDataRole.UserRole + 2


class UsageModel(HeaderedTableModel):
    headers = COLUMNS

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._entries: tuple[EntryUsage, ...] = ()

    def set_report(self, report: UsageReport | None) -> None:
        self.beginResetModel()
        self._entries = report.entries if report is not None else ()
        self.endResetModel()

    def entry(self, row: int) -> EntryUsage:
        return self._entries[row]

    def row_count(self) -> int:
        return len(self._entries)

    @inert_tooltips
    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not self._row_in_range(index):
            return None
        entry = self._entries[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(entry, column)
        if role == UsageRole.Status:
            return entry.status
        if role == UsageRole.SortKey:
            if column in (LOADED, USED_COL, SESSIONS):
                return (entry.loaded, entry.used, entry.sessions)[column - LOADED]
            return self._display(entry, column).lower()
        if role == Qt.ItemDataRole.ForegroundRole and column == STATUS:
            return STATUS_COLORS.get(entry.status)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (LOADED, USED_COL, SESSIONS):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole and not entry.in_catalog:
            return "No longer in the workspace catalog (loaded by older sessions)."
        return None

    def _display(self, entry: EntryUsage, column: int) -> str:
        if column == KIND:
            return entry.kind
        if column == ID:
            return entry.id if entry.in_catalog else f"{entry.id}  (removed)"
        if column == LOADED:
            return str(entry.loaded)
        if column == USED_COL:
            return str(entry.used)
        if column == SESSIONS:
            return str(entry.sessions)
        if column == STATUS:
            return entry.status
        return entry.last_session or ""


class StatusFilter(QSortFilterProxyModel):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.status: str | None = None
        self.setSortRole(UsageRole.SortKey)

    def set_status(self, status: str | None) -> None:
        self.beginFilterChange()
        self.status = status
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        if self.status is None:
            return True
        index = self.sourceModel().index(source_row, 0, source_parent)
        return bool(index.data(UsageRole.Status) == self.status)


class UsageView(QWidget):
    refresh_requested = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.report: UsageReport | None = None
        self.model = UsageModel(self)
        self.proxy = StatusFilter(self)
        self.proxy.setSourceModel(self.model)
        self.filter = QComboBox()
        for label, status in FILTERS:
            self.filter.addItem(label, status)
        self.filter.currentIndexChanged.connect(
            lambda *_: self.proxy.set_status(self.filter.currentData())
        )
        self.refresh = QPushButton("Refresh")
        self.refresh.clicked.connect(self.refresh_requested)
        self.summary = plain_label("Counting…")
        self.summary.setObjectName("panelCaption")
        self.summary.setWordWrap(True)
        self.table = QTableView()
        self.table.setObjectName("usageTable")
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.setAlternatingRowColors(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        for column, width in enumerate((70, 260, 70, 70, 70, 140)):
            self.table.setColumnWidth(column, width)
        bar = QHBoxLayout()
        bar.addWidget(plain_label("Show"))
        bar.addWidget(self.filter)
        bar.addStretch(1)
        bar.addWidget(self.refresh)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        # Styled and sortable now: "Sessions" and "Loaded" were cut at 70 pixels.
        headers_whole(self.table)

    def set_report(self, report: UsageReport) -> None:
        self.report = report
        self.model.set_report(report)
        if report.sessions == 0:
            self.summary.setText(
                "No sessions yet — record a run or import a .axsession.json; every catalog "
                "entry counts as never loaded until then."
            )
            return
        self.summary.setText(
            f"Across {report.sessions} session(s), {report.forwards} forward(s): "
            f"{len(report.loaded_never_used)} entries loaded but never used, "
            f"{len(report.never_loaded)} catalog entries never loaded. Counts are forwards."
        )

    def set_status_filter(self, status: str | None) -> None:
        self.filter.setCurrentIndex(max(0, self.filter.findData(status)))

    def visible_ids(self) -> list[str]:
        return [
            self.model.entry(self.proxy.mapToSource(self.proxy.index(r, 0)).row()).id
            for r in range(self.proxy.rowCount())
        ]

    def show_error(self, message: str) -> None:
        self.summary.setText(f"Cannot count usage: {message}")
