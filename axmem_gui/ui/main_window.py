"""The main window: navigator, central pages, docks, menus, status bar.

It lays out what the installed features contribute (see `axmem_gui.ui.feature`) and owns
only the workspace commands (new, open, recent, quit), undo/redo and the layout. Its menu
bar is the mixin `WindowMenus` (window_menus.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QItemSelection, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QPaintEvent,
    QUndoStack,
)
from PySide6.QtWidgets import (
    QDockWidget,
    QSplitter,
    QStackedWidget,
    QWidget,
)

from axmem_gui.core.errors import AxmemError
from axmem_gui.services.agent_runner import AgentRunner
from axmem_gui.services.workspace import OpenWorkspace
from axmem_gui.ui.collector import COLLECTOR
from axmem_gui.ui.controller import WorkspaceController
from axmem_gui.ui.dialogs import ErrorDialog, NewWorkspaceDialog, OpenWorkspaceDialog
from axmem_gui.ui.feature import (
    STATUS_MS,
    ActionRegistry,
    DropTarget,
    F,
    FeatureContext,
    FeatureError,
    FeatureSpec,
    InstalledFeatures,
    PageSpec,
    Shell,
    install,
)
from axmem_gui.ui.inert_text import inert, plain_label
from axmem_gui.ui.navigator import NavigatorModel, NavigatorView, NavRole
from axmem_gui.ui.page_docks import PageDocks
from axmem_gui.ui.resources import icon, style_leaves
from axmem_gui.ui.screen_fit import CentralArea, ScreenFit
from axmem_gui.ui.settings import AppSettings
from axmem_gui.ui.tasks import TaskRunner
from axmem_gui.ui.window_menus import WindowMenus
from axmem_gui.ui.window_pages import WindowPages
from axmem_gui.ui.writes import WriteQueue

#: Opens a workspace path for the window; raises AxmemError with a user message.
WorkspaceOpener = Callable[[Path], OpenWorkspace]
WorkspaceCreator = Callable[[Path], OpenWorkspace]


#: The size the window opens with when no layout was saved yet (when the screen allows).
PREFERRED_SIZE = QSize(1400, 860)


#: Most of the window's height (width) a dock above or below (beside) the pages takes on a
#: first start: on a laptop the pages keep the room (the bench's 280 pixels left the
#: skill editor three lines).
FIRST_DOCK_SHARE = (0.25, 0.35)


def first_dock_size(wanted: int, vertical: bool, window: QSize) -> int:
    share = FIRST_DOCK_SHARE[0] if vertical else FIRST_DOCK_SHARE[1]
    room = window.height() if vertical else window.width()
    return min(wanted, int(room * share))


def first_start_size(available: QSize) -> QSize:
    """The preferred size, shrunk to leave a margin on a smaller screen (a 1366×768 laptop
    shows the whole window, title bar and panel included)."""
    return QSize(
        min(PREFERRED_SIZE.width(), available.width() - 16),
        min(PREFERRED_SIZE.height(), available.height() - 48),
    )


#: How long work waiting for the first paint waits, at most, once the window is shown.
FIRST_PAINT_WAIT_MS = 1000


class _WindowShell(Shell):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self._window = window

    @property
    def dialog_parent(self) -> QWidget:
        return self._window

    def show_section(self, key: str) -> None:
        self._window.show_section(key)

    def current_section(self) -> str:
        return self._window.current_section()

    def set_badge(self, key: str, text: str) -> None:
        self._window.nav_model.set_badge(key, text)

    def show_message(self, text: str, msecs: int = STATUS_MS) -> None:
        self._window.statusBar().showMessage(text, msecs)

    def show_dock(self, name: str) -> None:
        dock = self._window.docks[name]
        dock.show()
        dock.raise_()

    def hide_dock(self, name: str) -> None:
        self._window.docks[name].hide()

    def after_first_paint(self, callback: Callable[[], object]) -> None:
        self._window.after_first_paint(callback)


class MainWindow(WindowMenus):
    workspace_opened = Signal(str)

    def __init__(
        self,
        controller: WorkspaceController,
        settings: AppSettings,
        undo_stack: QUndoStack,
        open_workspace: WorkspaceOpener,
        create_workspace: WorkspaceCreator,
    ) -> None:
        super().__init__()
        self.controller = controller
        self.settings = settings
        self.undo_stack = undo_stack
        if undo_stack.parent() is None:
            # Qt deletes the stack, and its commands, with the window: a stack freed by the
            # cycle collector together with its commands' wrappers deletes them twice.
            undo_stack.setParent(self)
        self._open_workspace = open_workspace
        self._create_workspace = create_workspace
        #: One runner for all slow work of this window's features.
        self.task_runner = TaskRunner(parent=self)
        #: Agent runs and replays happen in child processes it starts (one kept warm).
        self.agent_runner = AgentRunner()
        #: Catalog writes, waiting for another program off the GUI thread (ui/writes.py).
        self.writes = WriteQueue(controller, self)
        #: What waits for the first paint (Shell.after_first_paint); None once it is done.
        self._after_paint: list[Callable[[], object]] | None = []
        self.action_registry = ActionRegistry(self)
        self.shell = _WindowShell(self)
        self.installed = InstalledFeatures()
        self._build_central()
        #: Pages by section key; a page built later is prepared and built when first
        #: opened, or built when read (see WindowPages).
        self.pages = WindowPages(self.stack, self)
        #: While True, opening a section builds its page at once (`show_section`).
        self._build_now = False
        self.docks: dict[str, QDockWidget] = {}
        #: The View menu's toggle of each dock (see `dock_toggle`).
        self.dock_toggles: dict[str, QAction] = {}
        #: Which docks each page shows (DockSpec.pages, and the user's choices per page).
        self.page_docks = PageDocks(settings, self)
        self.page_docks.focus_changed.connect(self.shell.focus_changed)
        self._drop_targets: list[DropTarget] = []
        self.setWindowIcon(icon("axmem"))
        self.resize(first_start_size(self.screen().availableGeometry().size()))

        self._build_menus()
        self._build_status()

        controller.changed.connect(self._on_changed)
        controller.opened.connect(self._on_opened)
        controller.externally_changed.connect(self._on_external_change)
        self.writes.waiting.connect(lambda _waiting: self._update_counts())
        controller.schema_refused.connect(
            lambda message: ErrorDialog.show(self, "Workspace changed by another program", message)
        )
        # The one shutdown path: features stop before the workspace's connection closes.
        controller.closing.connect(self._shutdown)
        self._on_opened()

    # features -----------------------------------------------------------------------
    def install(self, specs: Sequence[FeatureSpec[Any]]) -> InstalledFeatures:
        """Install `specs` (once) and lay out what they contribute."""
        if self.installed.features:
            raise FeatureError("this window's features are already installed")
        base = FeatureContext(
            self.controller,
            self.task_runner,
            self.undo_stack,
            self.action_registry,
            self.settings,
            self.shell,
            self.agent_runner,
            writes=self.writes,
        )
        self.installed = install(specs, base)
        # Pages in the order of registration; everything else in the order of installing.
        for spec in specs:
            for page in self.installed.contributions[spec].pages:
                self._add_page(page)
        for contributed in self.installed.contributions.values():
            for dock in contributed.docks:
                self._add_dock(dock.name, dock.title, dock.widget, dock.area, dock.banner)
            for widget in contributed.status_widgets:
                self.statusBar().addPermanentWidget(widget)
            if contributed.drop_target is not None:
                self._drop_targets.append(contributed.drop_target)
        self._lay_out_docks()
        self._fill_menus()
        self.setAcceptDrops(bool(self._drop_targets))
        if self.pages:
            self.navigator.setCurrentIndex(self.nav_model.index(0))
        self._update_counts()
        # What the application's style sheet did: per widget (see `style_leaves`).
        style_leaves(self, "base")
        return self.installed

    def feature(self, spec: FeatureSpec[F]) -> F:
        """An installed feature (tests and the composition root reach them here)."""
        return self.installed.get(spec)

    def _add_page(self, page: PageSpec) -> None:
        self.pages.add(page)
        self.nav_model.add_section(page.key, page.title)

    def _add_dock(
        self,
        name: str,
        title: str,
        widget: QWidget,
        area: Qt.DockWidgetArea,
        banner: bool = False,
    ) -> None:
        if name in self.docks:
            raise FeatureError(f"dock {name!r}: contributed twice")
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        if banner:
            dock.setTitleBarWidget(QWidget(dock))
        self.addDockWidget(area, dock)
        self.docks[name] = dock

    def _lay_out_docks(self) -> None:
        first_start = self.settings.window_state() is None
        for contributed in self.installed.contributions.values():
            for spec in contributed.docks:
                dock = self.docks[spec.name]
                front = self.docks.get(spec.tabify_with)
                if front is not None:
                    self.tabifyDockWidget(front, dock)
                    front.raise_()
                self.page_docks.add(spec.name, dock, spec.pages)
                if not spec.shown:
                    dock.hide()
                if first_start and spec.first_size > 0:
                    vertical = spec.area in (
                        Qt.DockWidgetArea.TopDockWidgetArea,
                        Qt.DockWidgetArea.BottomDockWidgetArea,
                    )
                    orientation = Qt.Orientation.Vertical if vertical else Qt.Orientation.Horizontal
                    size = first_dock_size(spec.first_size, vertical, self.size())
                    self.resizeDocks([dock], [size], orientation)

    def _shutdown(self) -> None:
        self.installed.shutdown()
        self.task_runner.shutdown()
        self.pages.shutdown()
        self.agent_runner.shutdown()

    # construction -------------------------------------------------------------------
    def _build_central(self) -> None:
        self.nav_model = NavigatorModel()
        self.navigator = NavigatorView(self.nav_model)
        self.stack = QStackedWidget()

        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.navigator)
        split.addWidget(self.stack)
        split.setStretchFactor(1, 1)
        split.setSizes([150, 900])
        # Never taller or wider than the screen (the page scrolls instead).
        self.setCentralWidget(CentralArea(split))
        self.screen_fit = ScreenFit(self)
        self.navigator.selectionModel().selectionChanged.connect(self._on_nav)

    def _build_status(self) -> None:
        self.readonly_banner = plain_label("Read-only: this workspace cannot be changed")
        self.readonly_banner.setObjectName("readOnlyBanner")
        self.path_label = plain_label()
        self.counts_label = plain_label()
        status = self.statusBar()
        status.addWidget(self.readonly_banner)
        status.addWidget(self.path_label, 1)
        status.addPermanentWidget(self.counts_label)

    # behaviour ----------------------------------------------------------------------
    def show_section(self, key: str) -> None:
        """Show section `key` with its page built (code that uses the page next)."""
        self._build_now = True
        try:
            self.show_section_row(self.nav_model.row_of(key))
        finally:
            self._build_now = False
        if key in self.pages and self.stack.currentWidget() is not self.pages[key]:
            self.stack.setCurrentWidget(self.pages[key])

    def show_section_row(self, row: int) -> None:
        """Open a section as the user does (the navigator, View > section): a page not
        built yet shows "Loading…" while it is prepared off the GUI thread."""
        self.navigator.setCurrentIndex(self.nav_model.index(row))

    def current_section(self) -> str:
        return str(self.navigator.currentIndex().data(NavRole.Key))

    def _on_nav(self, *_: QItemSelection) -> None:
        key = self.navigator.currentIndex().data(NavRole.Key)
        if key in self.pages:
            if self._build_now:
                self.stack.setCurrentWidget(self.pages[key])
            else:
                self.pages.open(str(key))
            self.page_docks.show_page(str(key))
            self.shell.section_changed.emit(key)

    def _on_opened(self) -> None:
        ws = self.controller.workspace
        self.readonly_banner.setVisible(ws.read_only)
        self.setWindowTitle(f"{ws.path.name} — Ax Memory & Skills Studio")
        self.path_label.setText(str(ws.path))
        self.path_label.setToolTip(inert(str(ws.path)))  # a file name may look like HTML
        self.undo_stack.clear()
        self.writes.forget()  # what waited to be written belonged to the other workspace
        path = str(ws.path.resolve())
        self.settings.add_recent_file(path)
        self.settings.set_last_workspace(path)
        self._update_counts()
        self.workspace_opened.emit(path)

    def _on_changed(self, _what: str) -> None:
        self._update_counts()

    def _on_external_change(self) -> None:
        self.statusBar().showMessage(
            "The workspace was changed by another program; reloaded.", 6000
        )

    def _update_counts(self) -> None:
        counts = self.controller.counts()
        self.nav_model.set_counts(counts)
        saved = "read-only" if self.controller.read_only else "saved"
        if self.writes.is_waiting:
            saved = "waiting for another program…"
        self.counts_label.setText(
            f"{counts.skills:,} skills · {counts.memories:,} memories · {saved}"
        )

    def open_path(self, path: Path) -> bool:
        try:
            ws = self._open_workspace(path)
        except AxmemError as exc:
            ErrorDialog.show(self, "Cannot open workspace", str(exc))
            return False
        self.controller.replace(ws)
        return True

    def open_workspace_dialog(self) -> None:
        start = str(self.controller.path.parent)
        path = OpenWorkspaceDialog.ask(self, start)
        if path is not None:
            self.open_path(path)

    def new_workspace(self) -> None:
        path = NewWorkspaceDialog.ask(self, str(self.controller.path.parent))
        if path is None:
            return
        try:
            ws = self._create_workspace(path)
        except AxmemError as exc:
            ErrorDialog.show(self, "Cannot create workspace", str(exc))
            return
        self.controller.replace(ws)

    def show_about(self) -> None:
        from axmem_gui.ui.about import AboutDialog  # not needed for the first paint

        AboutDialog(self).exec()

    # layout persistence -------------------------------------------------------------
    def restore_layout(self) -> None:
        """Call once the features have added their docks, so every dock finds its place."""
        geometry = self.settings.window_geometry()
        with self.page_docks.applying():
            if geometry is not None:
                self.restoreGeometry(geometry)
            state = self.settings.window_state()
            if state is not None:
                self.restoreState(state)
        # Never wider or taller than the screen it opens on (a layout saved on a larger one).
        available = self.screen().availableGeometry()
        if self.width() > available.width() or self.height() > available.height():
            self.resize(first_start_size(available.size()))
        # The saved layout holds the docks of the page it was saved on; this page decides.
        self.page_docks.apply()

    def save_layout(self) -> None:
        self.settings.set_window_geometry(self.saveGeometry())
        self.settings.set_window_state(self.saveState())
        self.settings.sync()

    # the first paint ----------------------------------------------------------------
    def after_first_paint(self, callback: Callable[[], object]) -> None:
        """See Shell.after_first_paint."""
        if self._after_paint is None:
            callback()
            return
        if not self._after_paint:
            QTimer.singleShot(0, self, self._on_first_turn)
        self._after_paint.append(callback)

    def _on_first_turn(self) -> None:
        """The event loop's first turn: a window not shown never paints (run now); a
        shown one that has not painted yet gets a second to do so (e.g. minimized)."""
        if self._after_paint is None:
            return
        if self.isVisible():
            QTimer.singleShot(FIRST_PAINT_WAIT_MS, self, self._run_after_paint)
        else:
            self._run_after_paint()

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self._after_paint is not None:
            # Once this paint is on screen (the next turn of the event loop).
            QTimer.singleShot(0, self, self._run_after_paint)

    def _run_after_paint(self) -> None:
        if self._after_paint is not None and self.windowHandle() is not None:
            COLLECTOR.watch_input(self.windowHandle())  # majors wait for the user to pause
        callbacks, self._after_paint = self._after_paint, None
        for callback in callbacks or ():
            callback()
        if callbacks is not None:
            self._warm_up_when_idle()

    def _warm_up_when_idle(self) -> None:
        """Once the start-up's background work is done, the pages not opened yet are
        prepared (see WindowPages): their first visit then only builds widgets."""
        if not self.task_runner.busy:
            self.pages.warm_up()
            return

        def on_busy(busy: bool) -> None:
            if not busy:
                self.task_runner.busy_changed.disconnect(on_busy)
                self.pages.warm_up()

        self.task_runner.busy_changed.connect(on_busy)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_layout()
        # Closing the window closes its workspace: `controller.closing` stops the features.
        self.controller.close()
        super().closeEvent(event)

    # files dropped on the window ----------------------------------------------------
    def _drop(self, event: QDropEvent) -> tuple[DropTarget, list[Path]] | None:
        """The first drop target that takes the event's local files, and the files."""
        mime = event.mimeData()
        if mime is None or not mime.hasUrls():
            return None
        paths = [Path(u.toLocalFile()) for u in mime.urls() if u.isLocalFile()]
        if not paths:
            return None
        for target in self._drop_targets:
            if target.accepts_drop(paths):
                return target, paths
        return None

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._drop(event) is not None:
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if self._drop(event) is not None:
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        found = self._drop(event)
        if found is None:
            super().dropEvent(event)
            return
        event.acceptProposedAction()
        target, paths = found
        target.drop(paths)
