"""The open workspace as the UI sees it: one owner, change notifications, and polling
for changes made by another app instance or the CLI."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from axmem_gui.core.errors import WorkspaceError
from axmem_gui.services.contextmaps import snapshot_count
from axmem_gui.services.workspace import Workspace, WorkspaceCounts

EXTERNAL_POLL_MS = 1500
#: How long a write on the GUI thread waits for another program's write lock, at most:
#: a stall, never one of seconds. (Catalog edits wait longer, off the GUI thread:
#: ui/writes.py.)
GUI_WRITE_WAIT_S = 1.0


class WorkspaceController(QObject):
    """Owns the GUI thread's connection. Views read through `workspace` and call
    `notify_changed()` after they write, so every view refreshes from one signal."""

    opened = Signal()
    changed = Signal(str)  # what changed: "skills", "memories", "scenarios", ... or "*"
    externally_changed = Signal()
    #: Another program put SQL of its own into the open workspace (the message says
    #: what); every write is refused until it is removed (store/sharing.py).
    schema_refused = Signal(str)
    closing = Signal()  # stop timers and jobs that would read the workspace

    def __init__(self, workspace: Workspace, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ws = workspace
        workspace.set_write_wait(GUI_WRITE_WAIT_S)
        self._closed = False
        self._seen_version = workspace.data_version()
        self._map_snapshots: int | None = None
        self._refused = ""
        # Connected first, so every other receiver of `changed` counts afresh.
        self.changed.connect(self._on_changed)
        self._timer = QTimer(self)
        self._timer.setInterval(EXTERNAL_POLL_MS)
        self._timer.timeout.connect(self._poll)
        self._timer.start()

    @property
    def workspace(self) -> Workspace:
        return self._ws

    @property
    def path(self) -> Path:
        return self._ws.path

    @property
    def read_only(self) -> bool:
        return self._ws.read_only

    def counts(self) -> WorkspaceCounts:
        """Entry counts; context maps as their timelines list them (live-run snapshots
        recorded inside sessions included), recounted only after sessions or maps change."""
        if self._map_snapshots is None:
            self._map_snapshots = snapshot_count(self._ws)
        return dataclasses.replace(self._ws.counts(), contextmaps=self._map_snapshots)

    def _on_changed(self, what: str) -> None:
        if what in ("*", "sessions", "contextmaps"):
            self._map_snapshots = None

    def replace(self, workspace: Workspace) -> None:
        old = self._ws
        self._ws = workspace
        workspace.set_write_wait(GUI_WRITE_WAIT_S)
        self._seen_version = workspace.data_version()
        old.close()
        self.opened.emit()
        self.changed.emit("*")

    def notify_changed(self, what: str = "*") -> None:
        self._seen_version = self._ws.data_version()
        self.changed.emit(what)

    def _poll(self) -> None:
        # Slots return None: PySide6 leaks references to values returned from slots.
        self.check_external_changes()

    def check_external_changes(self) -> bool:
        version = self._ws.data_version()
        if version == self._seen_version:
            return False
        self._seen_version = version
        try:
            self._ws.check_schema()
        except WorkspaceError as exc:
            if str(exc) != self._refused:  # said once, not at every later commit
                self._refused = str(exc)
                self.schema_refused.emit(str(exc))
        self.externally_changed.emit()
        self.changed.emit("*")
        return True

    @property
    def is_closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        if self._closed:
            return
        self.closing.emit()
        self._closed = True
        self._timer.stop()
        self._ws.close()
