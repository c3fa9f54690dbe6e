"""The open workspace as the UI sees it: one owner, change notifications, and polling
for changes made by another app instance or the CLI.

The services announce what they wrote (`OpenWorkspace.notices`); the controller turns
each notice into its signals, so a view refreshes after, and only after, a write that
committed, whoever made it on this connection."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from axmem_gui.core.errors import WorkspaceError
from axmem_gui.core.workspace import WorkspaceCounts
from axmem_gui.services.aggregates import Change
from axmem_gui.services.contextmaps import snapshot_count
from axmem_gui.services.workspace import OpenWorkspace

EXTERNAL_POLL_MS = 1500
#: How long a write on the GUI thread waits for another program's write lock, at most:
#: a stall, never one of seconds. (Catalog edits wait longer, off the GUI thread:
#: ui/writes.py.)
GUI_WRITE_WAIT_S = 1.0


class WorkspaceController(QObject):
    """Owns the GUI thread's connection. Views read and write through `workspace`'s
    services; every notice of a write becomes `written` then `changed`, so every view
    refreshes from one signal. Writes this connection's services do not make (a job's
    own connection, sessions and context maps) are announced with `notify_changed`."""

    opened = Signal()
    #: what, ids, structural: the details of a write, emitted right before `changed`.
    written = Signal(str, list, bool)
    changed = Signal(str)  # what changed: "skills", "memories", "scenarios", ... or "*"
    #: what: every receiver of the `changed` that follows a write has run.
    settled = Signal(str)
    externally_changed = Signal()
    #: Another program put SQL of its own into the open workspace (the message says
    #: what); every write is refused until it is removed (store/sharing.py).
    schema_refused = Signal(str)
    closing = Signal()  # stop timers and jobs that would read the workspace

    def __init__(self, workspace: OpenWorkspace, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ws = workspace
        workspace.set_write_wait(GUI_WRITE_WAIT_S)
        workspace.notices.subscribe(self._on_notice)
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
    def workspace(self) -> OpenWorkspace:
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

    def replace(self, workspace: OpenWorkspace) -> None:
        old = self._ws
        old.notices.unsubscribe(self._on_notice)
        self._ws = workspace
        workspace.set_write_wait(GUI_WRITE_WAIT_S)
        workspace.notices.subscribe(self._on_notice)
        self._seen_version = workspace.data_version()
        old.close()
        self.opened.emit()
        self.changed.emit("*")

    def notify_changed(self, what: str = "*") -> None:
        """Announce a write the services of this connection did not announce."""
        self.announce(Change(what))

    def announce(self, change: Change) -> None:
        """Announce a write made on another connection (a job's, a worker's), with the
        details its own services published there."""
        self._on_notice(change)

    def _on_notice(self, change: Change) -> None:
        self._seen_version = self._ws.data_version()
        self.written.emit(change.what, list(change.ids), change.structural)
        self.changed.emit(change.what)
        self.settled.emit(change.what)

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
        self._ws.notices.unsubscribe(self._on_notice)
        self._ws.close()
