"""The Sessions page: the session list, usage analytics, and one closable tab per opened
session or comparison; progress strips for running jobs; drop .axsession.json files here.

The page is the view; `SessionsFeature` (controller.py) fills it and reacts to it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import (
    QItemSelection,
    QItemSelectionModel,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QTabBar,
    QTableView,
    QTabWidget,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.session.format import FILE_SUFFIX
from axmem_gui.ui.elided import elided
from axmem_gui.ui.inert_text import inert, plain_label
from axmem_gui.ui.pages import empty_state
from axmem_gui.ui.resources import style_sheet
from axmem_gui.ui.sessions.analytics_view import UsageView
from axmem_gui.ui.sessions.list_model import CREATED, SessionListModel, SessionRole
from axmem_gui.ui.sessions.viewer import set_banner

EMPTY_TEXT = "No sessions yet — record a run (Run > Run agent…) or import a .axsession.json."
PROGRESS_STEPS = 1000


def session_files(paths: list[Path]) -> list[Path]:
    return [p for p in paths if p.name.endswith(FILE_SUFFIX) or p.suffix == ".json"]


class JobStrip(QWidget):
    """One running job: what it is, a progress bar, live status, Cancel."""

    cancel_clicked = Signal()

    def __init__(self, title: str) -> None:
        super().__init__()
        self.setObjectName("jobStrip")
        self.title = elided(title, "jobTitle")
        self.title.setMaximumWidth(self.fontMetrics().horizontalAdvance("M" * 28))
        self.bar = QProgressBar()
        self.bar.setRange(0, PROGRESS_STEPS)
        self.bar.setTextVisible(False)
        self.bar.setMinimumWidth(80)
        self.bar.setMaximumWidth(220)
        # Progress messages change every call: elided, they never widen the window.
        self.status = elided("starting…", "jobStatus")
        self.cancel = QPushButton("Cancel")
        self.cancel.clicked.connect(self._on_cancel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 3, 6, 3)
        layout.addWidget(self.title, 1)
        layout.addWidget(self.bar)
        layout.addWidget(self.status, 1)
        layout.addWidget(self.cancel)

    def _on_cancel(self) -> None:
        self.cancel.setEnabled(False)
        self.status.setText("cancelling…")
        self.cancel_clicked.emit()

    def set_progress(self, fraction: float, message: str) -> None:
        self.bar.setValue(round(fraction * PROGRESS_STEPS))
        if message and self.cancel.isEnabled():
            self.status.setText(message)


class SessionsPage(QWidget):
    files_dropped = Signal(list)  # list[Path]
    open_requested = Signal(str)
    tab_closed = Signal(QWidget)
    usage_shown = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("sessionsPage")
        self.setStyleSheet(style_sheet("sessions"))
        self.setAcceptDrops(True)

        self.toolbar = QToolBar()
        self.toolbar.setObjectName("sessionsToolbar")
        self.toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)

        self.model = SessionListModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SessionRole.SortKey)
        self.table = QTableView()
        self.table.setObjectName("sessionsTable")
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(CREATED, Qt.SortOrder.DescendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        header = self.table.horizontalHeader()
        # The name takes the room; the other columns are as wide as what they hold.
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setStretchLastSection(False)
        header.setMinimumSectionSize(40)
        # Enter (and a double-click) activates a row; opening twice only focuses its tab.
        self.table.activated.connect(lambda *_: self._open_current())
        self.table.doubleClicked.connect(lambda *_: self._open_current())

        self.empty = empty_state(EMPTY_TEXT)
        self.list_stack = QStackedWidget()
        self.list_stack.addWidget(self.table)
        self.list_stack.addWidget(self.empty)
        self.usage = UsageView()

        self.tabs = QTabWidget()
        self.tabs.setObjectName("sessionTabs")
        self.tabs.setDocumentMode(True)
        self.tabs.setTabsClosable(True)
        self.tabs.setMovable(True)
        self.tabs.addTab(self.list_stack, "All sessions")
        self.tabs.addTab(self.usage, "Usage analytics")
        for fixed in (self.list_stack, self.usage):
            self._fix_tab(fixed)
        self.tabs.tabCloseRequested.connect(self._on_close_tab)
        self.tabs.currentChanged.connect(self._on_tab)

        self.notice = plain_label()
        self.notice.setObjectName("sessionBanner")
        self.notice.setWordWrap(True)
        self.notice.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notice_close = QToolButton()
        self.notice_close.setText("✕")
        self.notice_close.setToolTip("Dismiss")
        self.notice_close.clicked.connect(self.clear_notice)
        notice_row = QHBoxLayout()
        notice_row.setContentsMargins(0, 0, 0, 0)
        notice_row.addWidget(self.notice, 1)
        notice_row.addWidget(self.notice_close, 0, Qt.AlignmentFlag.AlignTop)
        self.strips = QVBoxLayout()
        self.strips.setContentsMargins(0, 0, 0, 0)
        self.strips.setSpacing(2)

        heading = plain_label("Sessions")
        heading.setObjectName("sectionTitle")
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(heading)
        top.addWidget(self.toolbar, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 4)
        layout.setSpacing(3)
        layout.addLayout(top)
        layout.addLayout(self.strips)
        layout.addLayout(notice_row)
        layout.addWidget(self.tabs, 1)
        self.clear_notice()

    def _fix_tab(self, widget: QWidget) -> None:
        index = self.tabs.indexOf(widget)
        bar = self.tabs.tabBar()
        for side in (QTabBar.ButtonPosition.RightSide, QTabBar.ButtonPosition.LeftSide):
            if bar.tabButton(index, side) is not None:
                bar.setTabButton(index, side, None)

    # list ---------------------------------------------------------------------------
    def show_list(self) -> None:
        self.tabs.setCurrentWidget(self.list_stack)

    def update_empty(self) -> None:
        empty = self.model.rowCount() == 0
        self.list_stack.setCurrentWidget(self.empty if empty else self.table)

    def selected_ids(self) -> list[str]:
        rows = sorted(self.table.selectionModel().selectedRows(), key=lambda i: i.row())
        return [str(i.data(SessionRole.Id)) for i in rows]

    def select_id(self, session_id: str) -> bool:
        """Make this session the (only) selected row."""
        return self.select_ids([session_id]) == 1

    def select_ids(self, ids: list[str]) -> int:
        """Select exactly these sessions (those still listed); returns how many."""
        selection = QItemSelection()
        current = None
        found = 0
        for session_id in ids:
            row = self.model.row_of(session_id)
            if row < 0:
                continue
            index = self.proxy.mapFromSource(self.model.index(row, 0))
            selection.select(index, index)
            if current is None:
                current = index
            found += 1
        flags = QItemSelectionModel.SelectionFlag
        model = self.table.selectionModel()
        model.select(selection, flags.ClearAndSelect | flags.Rows)
        if current is not None:
            model.setCurrentIndex(current, flags.NoUpdate)
            self.table.scrollTo(current)
        return found

    def _open_current(self) -> None:
        index = self.table.currentIndex()
        if index.isValid():
            self.open_requested.emit(str(index.data(SessionRole.Id)))

    # tabs ---------------------------------------------------------------------------
    def add_tab(self, widget: QWidget, title: str, tooltip: str = "") -> None:
        short = title if len(title) <= 40 else title[:39] + "…"
        index = self.tabs.addTab(widget, short)
        self.tabs.setTabToolTip(index, inert(tooltip or title))
        self.tabs.setCurrentIndex(index)

    def closable_tabs(self) -> list[QWidget]:
        fixed = (self.list_stack, self.usage)
        widgets = [self.tabs.widget(i) for i in range(self.tabs.count())]
        return [w for w in widgets if w is not None and w not in fixed]

    def close_tab(self, widget: QWidget) -> None:
        index = self.tabs.indexOf(widget)
        if index >= 0:
            self.tabs.removeTab(index)
            self.tab_closed.emit(widget)
            widget.deleteLater()

    def _on_close_tab(self, index: int) -> None:
        widget = self.tabs.widget(index)
        if widget is not None and widget not in (self.list_stack, self.usage):
            self.close_tab(widget)

    def _on_tab(self, index: int) -> None:
        if self.tabs.widget(index) is self.usage:
            self.usage_shown.emit()

    # jobs and notices ---------------------------------------------------------------
    def add_strip(self, title: str, on_cancel: Callable[[], None]) -> JobStrip:
        strip = JobStrip(title)
        strip.cancel_clicked.connect(on_cancel)
        self.strips.addWidget(strip)
        return strip

    def remove_strip(self, strip: JobStrip) -> None:
        self.strips.removeWidget(strip)
        strip.deleteLater()

    def show_notice(self, text: str, level: str = "info") -> None:
        set_banner(self.notice, text, level)
        self.notice_close.setVisible(True)

    def clear_notice(self) -> None:
        set_banner(self.notice, "", "info")
        self.notice_close.setVisible(False)

    # drag and drop ------------------------------------------------------------------
    @staticmethod
    def _dropped_paths(event: QDragEnterEvent | QDropEvent) -> list[Path]:
        mime = event.mimeData()
        if not mime.hasUrls():
            return []
        return session_files([Path(u.toLocalFile()) for u in mime.urls() if u.isLocalFile()])

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._dropped_paths(event):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = self._dropped_paths(event)
        if not paths:
            event.ignore()
            return
        event.acceptProposedAction()
        self.files_dropped.emit(paths)
