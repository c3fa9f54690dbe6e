"""Composition root of the desktop app: QApplication, the workspace, services, MainWindow."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from axmem_gui import __version__
from axmem_gui.core.errors import AxmemError

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance

SESSION_SUFFIX = ".axsession.json"


def _parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="axmem-gui", description="Ax Memory & Skills Studio (desktop app)"
    )
    parser.add_argument(
        "path",
        nargs="?",
        type=Path,
        help="workspace to open (.axmem), or a session (.axsession.json) to import into the "
        "default workspace and show",
    )
    parser.add_argument("--workspace", "-w", type=Path, help="workspace to open (same as PATH)")
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="open the workspace, show the main window, optionally save a screenshot, exit",
    )
    parser.add_argument("--screenshot", type=Path, metavar="OUT.png", help="with --self-test")
    parser.add_argument("--version", action="version", version=f"axmem-gui {__version__}")
    return parser.parse_args(list(argv))


#: How long a thread may keep the GIL while another waits for it (CPython's default is
#: 5 ms). The task runner's workers compute in Python while the GUI thread and the
#: workers that wait in SQLite take the GIL back hundreds of times a second: each time
#: they waited up to a whole interval, and with two busy workers often several in a row
#: (GUI frames of 50-100 ms at 100,000 memories; the BM25 build, which releases the GIL
#: at every row, ran several times slower than its CPU time).
SWITCH_INTERVAL_S = 0.001


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse(sys.argv[1:] if argv is None else argv)
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    target = args.workspace or args.path
    session_file: Path | None = None
    if args.path is not None and args.path.name.endswith(SESSION_SUFFIX):
        # `-w WORKSPACE FILE.axsession.json`: imported into that workspace
        session_file, target = args.path, args.workspace
    elif target is not None and target.name.endswith(SESSION_SUFFIX):
        session_file, target = target, None

    from axmem_gui.platform_check import check as check_platform_libraries

    missing = check_platform_libraries()
    if missing is not None:
        print(missing, file=sys.stderr)
        return 2

    from PySide6.QtGui import QUndoStack
    from PySide6.QtWidgets import QApplication

    from axmem_gui.services.workspace import OpenWorkspace, init_workspace, open_workspace
    from axmem_gui.ui.controller import WorkspaceController
    from axmem_gui.ui.dialogs import ErrorDialog
    from axmem_gui.ui.main_window import MainWindow
    from axmem_gui.ui.settings import AppSettings
    from axmem_gui.ui.theme import apply_theme
    from axmem_gui.ui.wiring import install_features

    app = QApplication.instance() or QApplication(["axmem-gui"])
    assert isinstance(app, QApplication)
    app.setApplicationName("Ax Memory & Skills Studio")
    app.setOrganizationName("axmem")
    app.setApplicationVersion(__version__)
    app.setDesktopFileName("io.github.axmem.Studio")
    settings = AppSettings()
    apply_theme(app, settings.theme())  # View > Theme changes it and follows the system

    try:
        # The app's opens keep a lock holder process (store/lockholder.py): Qt's file
        # dialogs and other libraries in this process may close a descriptor of the file
        # at any time, which drops every POSIX lock this process holds on it.
        workspace = open_workspace(target, hold_locks=True)
        imported = None
        if session_file is not None:
            imported = workspace.sessions.import_file(session_file)
    except AxmemError as exc:
        print(f"axmem-gui: error: {exc}", file=sys.stderr)
        if not args.self_test:
            ErrorDialog.show(None, "Cannot open workspace", str(exc))
        return 2

    controller = WorkspaceController(workspace)
    undo_stack = QUndoStack()

    def open_path(path: Path) -> OpenWorkspace:
        return open_workspace(path, hold_locks=True)

    def create(path: Path) -> OpenWorkspace:
        return init_workspace(path, hold_locks=True)

    window = MainWindow(controller, settings, undo_stack, open_path, create)
    install_features(window)
    window.restore_layout()
    window.show()
    forget_module_sources(window.task_runner.busy_changed)
    if not args.self_test:
        # The first agent run finds its child process started and the engine loaded.
        window.after_first_paint(window.agent_runner.prewarm)
    if imported is not None:
        show_imported_session(window, imported.id, session_file, imported.stored)

    if args.self_test:
        return _self_test(app, window, args.screenshot)
    code = app.exec()
    controller.close()
    return int(code)


def forget_module_sources(busy_changed: SignalInstance) -> None:
    """Empty `linecache` whenever the task runner goes idle. PySide6's import hook reads
    the source of every module imported after it (shibokensupport's `feature_imported`
    calls `inspect.getsource` on the module) into `linecache`, where it stays: about
    20 MB of source lines at 10,000 skills, once lint and the bench are loaded. Only a
    traceback reads them again (from the files)."""
    import linecache

    def forget(busy: bool) -> None:
        if not busy:
            linecache.clearcache()

    busy_changed.connect(forget)


def show_imported_session(
    window: object, session_id: str, source: Path | None, stored: bool = True
) -> None:
    """`axmem-gui FILE.axsession.json`: the imported session opens in the viewer (when
    it was already in the workspace, the stored one does, and the status bar says so)."""
    from axmem_gui.ui.main_window import MainWindow
    from axmem_gui.ui.sessions.controller import SESSIONS

    assert isinstance(window, MainWindow)
    window.show_section("sessions")
    window.feature(SESSIONS).open_session(session_id)
    if stored:
        message = f"Imported session {session_id} from {source}"
    else:
        message = f"Session {session_id} from {source} is already in the workspace"
    # After the first paint: shown before, the window's first show put the status bar's
    # path back on screen under the message (the two texts drawn over each other).
    window.after_first_paint(lambda: window.statusBar().showMessage(message, 8000))


def _self_test(app: object, window: object, screenshot: Path | None) -> int:
    from PySide6.QtWidgets import QApplication, QMainWindow

    assert isinstance(app, QApplication) and isinstance(window, QMainWindow)
    for _ in range(5):
        app.processEvents()
    if screenshot is not None:
        if not window.grab().save(str(screenshot)):
            print(f"axmem-gui: error: cannot write screenshot {screenshot}", file=sys.stderr)
            return 2
        print(f"screenshot saved to {screenshot}")
    window.close()
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
