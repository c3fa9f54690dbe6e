"""The real desktop app, in its own process, driven line by line from a test (issue 25).

Run as `python app_driver.py [WORKSPACE]`: it starts `axmem_gui.app.main` (the composition
root users run: the same window, features, lock holder and file dialogs), then reads one
command per line on stdin and answers one JSON line on stdout:

  info                          {"pid", "holder", "skills", "status"}
  dialog open cancel            File > Open Workspace…, the real Qt dialog, Cancel
  dialog open accept PATH       ... choose PATH, Open
  dialog folder cancel          File > Import Skills Folder…, Cancel
  dialog folder accept PATH     ... choose PATH, then Import in the preview
  new                           Edit > New (a skill), answered once it is saved
  stress SECONDS SEED [BOUND_S]  edit as fast as a user types, with file dialogs opening
                                at random, for SECONDS; answers the figures (stress.py)
  quit                          close the window (the app exits normally)

A file dialog is answered only after it listed its folder and painted it: that is when
Qt reads each file to guess its type. The test can kill the process at any point.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QSocketNotifier, QTimer
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QFileSystemModel,
    QLineEdit,
    QMessageBox,
)

from axmem_gui import app as app_module

POLL_MS = 20


def _say(value: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


class Driver:
    def __init__(self, qapp: QApplication) -> None:
        self.qapp = qapp
        self.window: Any = None
        self._buffer = b""
        self._notifier = QSocketNotifier(0, QSocketNotifier.Type.Read)
        self._notifier.activated.connect(self._read)
        self._notifier.setEnabled(False)

    def start(self) -> None:
        """Once the event loop runs: find the window, then take commands."""
        from axmem_gui.ui.main_window import MainWindow

        found = [w for w in self.qapp.topLevelWidgets() if isinstance(w, MainWindow)]
        if not found or not found[0].isVisible():
            QTimer.singleShot(POLL_MS, self.start)
            return
        self.window = found[0]
        self._notifier.setEnabled(True)
        _say({"ready": True, "pid": os.getpid()})

    # commands -----------------------------------------------------------------------
    def _read(self) -> None:
        chunk = os.read(0, 4096)
        if not chunk:
            self.window.close()
            return
        self._buffer += chunk
        if b"\n" in self._buffer:
            self._read_buffered()

    def _next_command(self) -> None:
        self._notifier.setEnabled(True)
        if b"\n" in self._buffer:
            self._read_buffered()

    def _read_buffered(self) -> None:
        line, self._buffer = self._buffer.split(b"\n", 1)
        self._notifier.setEnabled(False)  # one command at a time
        QTimer.singleShot(0, lambda: self._run(line.decode().split()))

    def _answer(self, value: dict[str, Any]) -> None:
        _say(value)
        self._next_command()

    def _run(self, words: list[str]) -> None:
        sys.stderr.write(f"driver: {' '.join(words)}\n")
        if words == ["info"]:
            self._answer(self.info())
        elif words[:1] == ["dialog"]:
            self.dialog(words[1], words[2], words[3] if len(words) > 3 else None)
        elif words == ["new"]:
            self.new_skill()
        elif words[:1] == ["stress"]:
            from tests.reliability.stress import AppStress

            bound = float(words[3]) if len(words) > 3 else None
            AppStress(self.window, float(words[1]), int(words[2]), bound, self._answer).start()
        elif words == ["quit"]:
            self.window.close()
        else:
            self._answer({"error": f"unknown command {words}"})

    def info(self) -> dict[str, Any]:
        controller = self.window.controller
        ws = controller.workspace
        return {
            "pid": os.getpid(),
            "holder": getattr(ws, "lock_holder_pid", None),
            "path": str(ws.path),
            "skills": ws.counts().skills,
            "status": self.window.counts_label.text(),
        }

    # file dialogs ---------------------------------------------------------------------
    def dialog(self, which: str, answer: str, path: str | None) -> None:
        opened: list[bool] = []
        if which == "open":
            menu = self.window.menus["file"].actions()
            action = next(a for a in menu if "Open Workspace" in a.text())
        else:
            action = self.window.action_registry.get("transfer.import-folder")

        ticks: list[int] = []

        def drive() -> None:
            widget = QApplication.activeModalWidget()
            ticks.append(1)
            if len(ticks) % 250 == 0:  # every ~5 s: what the app shows (in the test's log)
                sys.stderr.write(f"driver: waiting; modal {type(widget).__name__}\n")
            if isinstance(widget, QFileDialog) and not opened:
                if self._listed(widget):
                    widget.grab()  # painted: every listed file's type was asked for
                    if answer == "cancel":
                        opened.append(True)
                        widget.reject()
                    else:
                        assert path is not None
                        # As a user does: the path typed into the name field, then Open.
                        # (selectFile leaves the field alone while it has the focus.)
                        name_field = widget.findChild(QLineEdit, "fileNameEdit")
                        assert name_field is not None  # (Qt's own dialog)
                        name_field.setText(path)
                        opened.append(True)
                        widget.accept()
                    if opened and (answer == "cancel" or which == "open"):
                        QTimer.singleShot(0, self._after_dialog(which, answer))
                        return
            elif opened and which == "folder" and self._accept_import_preview(widget):
                return
            QTimer.singleShot(POLL_MS, drive)

        QTimer.singleShot(0, action.trigger)
        QTimer.singleShot(POLL_MS, drive)

    @staticmethod
    def _listed(dialog: QFileDialog) -> bool:
        model = dialog.findChild(QFileSystemModel)
        if model is None or not dialog.isVisible():
            return False
        root = model.index(dialog.directory().absolutePath())
        return root.isValid() and model.rowCount(root) > 0 and not model.canFetchMore(root)

    def _after_dialog(self, which: str, answer: str) -> Callable[[], None]:
        def check() -> None:
            widget = QApplication.activeModalWidget()
            if widget is not None:
                sys.stderr.write(f"driver: dialog closed? modal {type(widget).__name__}\n")
                QTimer.singleShot(POLL_MS, check)
                return
            self._answer({"dialog": which, "answer": answer, **self.info()})

        return check

    def _accept_import_preview(self, widget: Any) -> bool:
        from axmem_gui.ui.transfer.actions import TRANSFER
        from axmem_gui.ui.transfer.preview_dialog import ImportPreviewDialog

        transfer = self.window.feature(TRANSFER)
        if isinstance(widget, ImportPreviewDialog) and widget.import_button.isEnabled():
            widget.accept()
        elif widget is None and not transfer.busy and transfer.last_result is not None:
            self._answer({"dialog": "folder", "answer": "accept", **self.info()})
            return True
        return False

    # edits ------------------------------------------------------------------------------
    def new_skill(self) -> None:
        from axmem_gui.ui.catalog.feature import CATALOG

        self.window.show_section("skills")
        catalog = self.window.feature(CATALOG)
        before = self.window.controller.workspace.counts().skills
        shown: list[str] = []

        def saved() -> None:
            modal = QApplication.activeModalWidget()
            if isinstance(modal, QMessageBox):  # an error: say what the user saw
                shown.append(modal.text())
                modal.reject()
            writes = getattr(catalog, "writes", None)
            if (writes is not None and writes.busy) or not started:
                QTimer.singleShot(POLL_MS, saved)
                return
            form = catalog.pages["skills"].form
            entry = None if form.entry is None else form.entry.id
            count = self.window.controller.workspace.counts().skills
            saved_ = count == before + 1 and not shown
            self._answer({"new": entry, "saved": saved_, "shown": shown, **self.info()})

        started: list[bool] = []
        QTimer.singleShot(POLL_MS, saved)  # (also runs while an error dialog is open)
        catalog.new_entry("skills")
        started.append(True)


def main() -> int:
    qapp = QApplication(["axmem-gui"])
    driver = Driver(qapp)
    QTimer.singleShot(0, driver.start)
    return app_module.main(sys.argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())
