"""The main window: navigator, central pages, docks, menus, status bar."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QItemSelection, Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QUndoStack
from PySide6.QtWidgets import (
    QDockWidget,
    QLabel,
    QListView,
    QMainWindow,
    QMenu,
    QSplitter,
    QStackedWidget,
    QWidget,
)

from axmem_gui.core.errors import AxmemError
from axmem_gui.store import Workspace
from axmem_gui.ui.about import AboutDialog
from axmem_gui.ui.actions import make_action
from axmem_gui.ui.controller import WorkspaceController
from axmem_gui.ui.dialogs import ErrorDialog, NewWorkspaceDialog, OpenWorkspaceDialog
from axmem_gui.ui.navigator import NavigatorModel, NavRole
from axmem_gui.ui.pages import CatalogPage, NamedListPage, empty_state
from axmem_gui.ui.resources import icon
from axmem_gui.ui.settings import AppSettings
from axmem_gui.ui.tasks import TaskRunner

#: Opens a workspace path for the window; raises AxmemError with a user message.
WorkspaceOpener = Callable[[Path], Workspace]
WorkspaceCreator = Callable[[Path], Workspace]


class MainWindow(QMainWindow):
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
        self._open_workspace = open_workspace
        self._create_workspace = create_workspace
        #: One runner for all slow work of this window's features.
        self.task_runner = TaskRunner(parent=self)
        self.setWindowIcon(icon("axmem"))
        self.resize(1400, 860)

        self._build_central()
        self._build_docks()
        self._build_menus()
        self._build_status()

        controller.changed.connect(self._on_changed)
        controller.opened.connect(self._on_opened)
        controller.externally_changed.connect(self._on_external_change)
        self._on_opened()

    # construction -------------------------------------------------------------------
    def _build_central(self) -> None:
        ws = self.controller.workspace
        self.nav_model = NavigatorModel()
        self.navigator = QListView()
        self.navigator.setObjectName("navigator")
        self.navigator.setModel(self.nav_model)
        self.navigator.setMaximumWidth(220)
        self.navigator.setMinimumWidth(150)

        self.skills_page = CatalogPage("skills", ws.skills)
        self.memories_page = CatalogPage("memories", ws.memories)
        self.scenarios_page = NamedListPage(
            "Scenarios",
            "No scenarios yet — a scenario is a task plus the discover and recall calls of "
            "each turn; create one to preview what the model sees turn by turn.",
            lambda: self.controller.workspace.scenarios.list(),
        )
        self.suites_page = NamedListPage(
            "Retrieval suites",
            "No suites yet — add cases of search strings with the ids that must and must "
            "not load, then run them after every catalog edit.",
            lambda: self.controller.workspace.suites.list(),
        )
        self.sessions_page = NamedListPage(
            "Sessions",
            "No sessions yet — record a run or import a .axsession.json.",
            lambda: [
                f"{s.name or s.id}  ·  {s.model or 'scripted'}  ·  {s.status}"
                for s in self.controller.workspace.sessions.list()
            ],
        )
        self.contextmaps_page = NamedListPage(
            "Context maps",
            "No context map snapshots yet — they are recorded with each session of an "
            "agent that has a context map.",
            lambda: [
                f"{s.agent or '(no agent)'}  ·  {s.label or 'snapshot'}  ·  {s.created_at}"
                for s in self.controller.workspace.contextmaps.list()
            ],
        )
        self.pages: dict[str, QWidget] = {
            "skills": self.skills_page,
            "memories": self.memories_page,
            "scenarios": self.scenarios_page,
            "suites": self.suites_page,
            "sessions": self.sessions_page,
            "contextmaps": self.contextmaps_page,
        }
        self.stack = QStackedWidget()
        for page in self.pages.values():
            self.stack.addWidget(page)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.navigator)
        split.addWidget(self.stack)
        split.setStretchFactor(1, 1)
        split.setSizes([180, 900])
        self.setCentralWidget(split)
        self.navigator.selectionModel().selectionChanged.connect(self._on_nav)
        self.navigator.setCurrentIndex(self.nav_model.index(0))

    def _dock(self, title: str, name: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _build_docks(self) -> None:
        self.preview_dock = self._dock(
            "Prompt preview",
            "previewDock",
            empty_state("The exact prompt text Ax shows the model appears here."),
            Qt.DockWidgetArea.RightDockWidgetArea,
        )
        self.bench_dock = self._dock(
            "Retrieval bench",
            "benchDock",
            empty_state("Type search strings to see what discover or recall would load."),
            Qt.DockWidgetArea.BottomDockWidgetArea,
        )

    def set_dock_content(self, dock: QDockWidget, widget: QWidget) -> None:
        dock.setWidget(widget)

    def _action(
        self,
        menu: QMenu,
        text: str,
        slot: Callable[[], object],
        shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None,
    ) -> QAction:
        act = make_action(self, text, slot, shortcut)
        menu.addAction(act)
        return act

    def _build_menus(self) -> None:
        bar = self.menuBar()
        self.file_menu = bar.addMenu("&File")
        self._action(self.file_menu, "&New Workspace…", self.new_workspace)
        self._action(
            self.file_menu,
            "&Open Workspace…",
            self.open_workspace_dialog,
            QKeySequence.StandardKey.Open,
        )
        self.recent_menu = self.file_menu.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.file_menu.addSeparator()
        self._action(self.file_menu, "&Quit", self.close, QKeySequence.StandardKey.Quit)

        self.edit_menu = bar.addMenu("&Edit")
        undo = self.undo_stack.createUndoAction(self, "&Undo")
        undo.setShortcut(QKeySequence.StandardKey.Undo)
        redo = self.undo_stack.createRedoAction(self, "&Redo")
        redo.setShortcuts(
            [QKeySequence("Ctrl+Shift+Z"), QKeySequence(QKeySequence.StandardKey.Redo)]
        )
        self.edit_menu.addAction(undo)
        self.edit_menu.addAction(redo)

        self.view_menu = bar.addMenu("&View")
        self.view_menu.addAction(self.preview_dock.toggleViewAction())
        self.view_menu.addAction(self.bench_dock.toggleViewAction())
        self.view_menu.addSeparator()
        for key, page in self.pages.items():
            del page
            row = self.nav_model.row_of(key)
            title = str(self.nav_model.data(self.nav_model.index(row))).split("  ")[0]
            self._action(
                self.view_menu, title, functools.partial(self.show_section_row, row),
                f"Ctrl+{row + 1}",
            )

        self.run_menu = bar.addMenu("&Run")
        self.help_menu = bar.addMenu("&Help")
        self._action(self.help_menu, "&About Ax Memory & Skills Studio", self.show_about)

    def _build_status(self) -> None:
        self.readonly_banner = QLabel("Read-only: this workspace cannot be changed")
        self.readonly_banner.setObjectName("readOnlyBanner")
        self.path_label = QLabel()
        self.counts_label = QLabel()
        status = self.statusBar()
        status.addWidget(self.readonly_banner)
        status.addWidget(self.path_label, 1)
        status.addPermanentWidget(self.counts_label)

    # behaviour ----------------------------------------------------------------------
    def show_section(self, key: str) -> None:
        self.show_section_row(self.nav_model.row_of(key))

    def show_section_row(self, row: int) -> None:
        self.navigator.setCurrentIndex(self.nav_model.index(row))

    def current_section(self) -> str:
        return str(self.navigator.currentIndex().data(NavRole.Key))

    def _on_nav(self, *_: QItemSelection) -> None:
        key = self.navigator.currentIndex().data(NavRole.Key)
        if key in self.pages:
            self.stack.setCurrentWidget(self.pages[key])

    def _on_opened(self) -> None:
        ws = self.controller.workspace
        self.skills_page.set_repository(ws.skills)
        self.memories_page.set_repository(ws.memories)
        for page in (
            self.scenarios_page,
            self.suites_page,
            self.sessions_page,
            self.contextmaps_page,
        ):
            page.reload()
        self.readonly_banner.setVisible(ws.read_only)
        self.setWindowTitle(f"{ws.path.name} — Ax Memory & Skills Studio")
        self.path_label.setText(str(ws.path))
        self.path_label.setToolTip(str(ws.path))
        self.undo_stack.clear()
        path = str(ws.path.resolve())
        self.settings.add_recent_file(path)
        self.settings.set_last_workspace(path)
        self._update_counts()
        self.workspace_opened.emit(path)

    def _on_changed(self, what: str) -> None:
        if what in ("*", "skills"):
            self.skills_page.reload()
        if what in ("*", "memories"):
            self.memories_page.reload()
        if what in ("*", "scenarios"):
            self.scenarios_page.reload()
        if what in ("*", "suites"):
            self.suites_page.reload()
        if what in ("*", "sessions", "contextmaps"):
            self.sessions_page.reload()
            self.contextmaps_page.reload()
        self._update_counts()

    def _on_external_change(self) -> None:
        self.statusBar().showMessage(
            "The workspace was changed by another program; reloaded.", 6000
        )

    def _update_counts(self) -> None:
        counts = self.controller.counts()
        self.nav_model.set_counts(counts)
        saved = "read-only" if self.controller.read_only else "saved"
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

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = self.settings.recent_files()
        if not recent:
            act = self.recent_menu.addAction("No recent workspaces")
            act.setEnabled(False)
            return
        for i, path in enumerate(recent):
            act = self.recent_menu.addAction(f"&{i + 1} {path}" if i < 9 else path)
            act.triggered.connect(lambda _c=False, p=path: self._open_recent(p))
        self.recent_menu.addSeparator()
        clear = self.recent_menu.addAction("Clear list")
        clear.triggered.connect(self._clear_recent)

    def _clear_recent(self) -> None:
        for path in self.settings.recent_files():
            self.settings.remove_recent_file(path)

    def _open_recent(self, path: str) -> None:
        if not Path(path).exists():
            self.settings.remove_recent_file(path)
            ErrorDialog.show(self, "Cannot open workspace", f"{path}: no such workspace any more")
            return
        self.open_path(Path(path))

    def show_about(self) -> None:
        AboutDialog(self).exec()

    # layout persistence -------------------------------------------------------------
    def restore_layout(self) -> None:
        """Call once the features have added their docks, so every dock finds its place."""
        geometry = self.settings.window_geometry()
        if geometry is not None:
            self.restoreGeometry(geometry)
        state = self.settings.window_state()
        if state is not None:
            self.restoreState(state)

    def save_layout(self) -> None:
        self.settings.set_window_geometry(self.saveGeometry())
        self.settings.set_window_state(self.saveState())
        self.settings.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_layout()
        self.task_runner.shutdown()
        super().closeEvent(event)
