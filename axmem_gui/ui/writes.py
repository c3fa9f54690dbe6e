"""Writes that wait for another program, briefly and visibly, off the GUI thread.

The workspace is shared with the CLI and other programs (design pattern 14); while one
of them writes, ours waits for the write lock. The GUI thread must never stall for
seconds, and an edit must never be dropped, so a write goes:

1. on the GUI thread, waiting at most `TRY_WAIT_S` for the write lock (almost always
   enough: another program's single change takes milliseconds);
2. if the workspace is still busy, on a worker with its own connection, waiting up to
   the store's bound (`WRITE_WAIT_S`) while the window says "waiting for another
   program…"; later writes queue behind it, in order;
3. and only once it is saved does the caller push its undo command (or move the undo
   stack); a write refused after the bound is reported, and its caller keeps the edit.

Writes are plain functions of a workspace (`Write = Callable[[Workspace], T]`): they
hold data computed on the GUI thread and touch no widget, so either thread can run them.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QKeySequence, QUndoCommand, QUndoStack

from axmem_gui.core.errors import AxmemError, WorkspaceBusyError
from axmem_gui.services.aggregates import WorkspaceAddress
from axmem_gui.services.workspace import OpenWorkspace, write_at
from axmem_gui.ui.tasks import JobContext, TaskRunner

#: How long a write on the GUI thread waits for the lock before moving to a worker.
TRY_WAIT_S = 0.2

Write = Callable[[OpenWorkspace], Any]
Done = Callable[[Any], None]
Failed = Callable[[AxmemError], None]


class _Controller(Protocol):
    @property
    def workspace(self) -> OpenWorkspace: ...

    @property
    def is_closed(self) -> bool: ...


@dataclass
class _Pending:
    write: Write
    done: Done
    failed: Failed


@dataclass(frozen=True)
class _Outcome:
    value: Any = None
    error: AxmemError | None = None


class DeferredCommand(Protocol):
    """An undo command whose write can run before the stack moves (see `WriteQueue.undo`):
    `prepare` (GUI thread) returns the write for undo or redo, or raises AxmemError;
    `settled` records the outcome so the stack's next undo()/redo() call only shows it,
    and says whether the stack should move (not for a write that was refused)."""

    def prepare(self, undo: bool) -> Write: ...

    def settled(
        self, undo: bool, value: Any, error: AxmemError | None, *, elsewhere: bool = False
    ) -> bool: ...


class WriteQueue(QObject):
    """The writes of one window, in order. `waiting` is True while one waits for another
    program (on a worker)."""

    waiting = Signal(bool)
    #: A write that waited for another program settled and nothing is queued any more.
    idle = Signal()

    def __init__(self, controller: _Controller, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._controller = controller
        self._queue: deque[_Pending] = deque()
        self._running: int | None = None
        self._runner = TaskRunner(max_threads=1, parent=self)
        self._runner.finished.connect(self._on_finished)
        self._runner.failed.connect(self._on_failed)
        self._runner.cancelled.connect(self._on_cancelled)
        #: Longest time a write waited for the lock, on either thread (for the status
        #: and the stress test's figures).
        self.longest_wait_s = 0.0
        #: Writes that went to the worker because the workspace was busy.
        self.waited = 0
        #: How long the worker waits for the lock (None: the store's bound, WRITE_WAIT_S).
        self.wait_s: float | None = None
        #: Undo/redo asked for while a write waited: run in order once it is done.
        self._after: list[Callable[[], None]] = []
        self._waiting = False
        #: Whether the write `done` reports was made on a worker's connection (whose
        #: notices reach no view of this window), not on the window's own.
        self.elsewhere = False

    @property
    def is_waiting(self) -> bool:
        """A write waits for another program, on a worker (what the window shows)."""
        return self._waiting

    @property
    def busy(self) -> bool:
        """A write waits or is queued: a new edit of the same entry must wait for it."""
        return self._running is not None or bool(self._queue)

    def submit(self, write: Write, done: Done, failed: Failed) -> None:
        """Run `write`, then `done(value)` or `failed(error)` on the GUI thread (at once
        when it runs on the GUI thread)."""
        self._queue.append(_Pending(write, done, failed))
        self._next()

    def _next(self) -> None:
        if self._controller.is_closed:
            self._queue.clear()  # the window is gone with its workspace
            return
        while self._running is None and self._queue:
            pending = self._queue[0]
            ws = self._controller.workspace
            bound = ws.write_wait_s
            ws.set_write_wait(TRY_WAIT_S)
            try:
                value = pending.write(ws)
            except WorkspaceBusyError:
                self._note_wait(ws.last_write_wait_s)
                self._wait_off_thread(pending)
                return
            except AxmemError as exc:
                self._queue.popleft()
                pending.failed(exc)
                continue
            finally:
                ws.set_write_wait(bound)
            self._note_wait(ws.last_write_wait_s)
            self._queue.popleft()
            self.elsewhere = False
            pending.done(value)
        if self._running is None:
            self._set_waiting(False)

    def _wait_off_thread(self, pending: _Pending) -> None:
        address: WorkspaceAddress = self._controller.workspace.address
        write, wait_s = pending.write, self.wait_s

        def job(_ctx: JobContext) -> _Outcome:
            # A connection of its own (connections belong to their thread), waiting the
            # store's bound for the write lock.
            try:
                return _Outcome(value=write_at(address, write, wait_s=wait_s))
            except AxmemError as exc:
                waited = exc.waited_s if isinstance(exc, WorkspaceBusyError) else 0.0
                return _Outcome(value=(None, waited), error=exc)

        self.waited += 1
        self._running = self._runner.submit(job)
        self._set_waiting(True)

    def _set_waiting(self, waiting: bool) -> None:
        if waiting != self._waiting:
            self._waiting = waiting
            self.waiting.emit(waiting)

    def _note_wait(self, seconds: float) -> None:
        self.longest_wait_s = max(self.longest_wait_s, seconds)

    def _on_finished(self, job_id: int, outcome: object) -> None:
        if job_id != self._running:
            return
        self._running = None
        pending = self._queue.popleft()
        assert isinstance(outcome, _Outcome)
        value, waited = outcome.value
        self._note_wait(TRY_WAIT_S + waited)
        self.elsewhere = True
        if outcome.error is None:
            pending.done(value)
        else:
            pending.failed(outcome.error)
        self._next()
        self._settle()

    def _on_failed(self, job_id: int, message: str) -> None:
        if job_id != self._running:
            return
        self._running = None
        self._queue.popleft().failed(AxmemError(message))
        self._next()
        self._settle()

    def _settle(self) -> None:
        while self._after and not self.busy:
            self._after.pop(0)()
        if not self.busy:
            self.idle.emit()

    def _on_cancelled(self, job_id: int) -> None:
        if job_id == self._running:
            self._running = None
            self._next()

    def wait_for_writes(self, msecs: int) -> None:
        """At shutdown: let a write that waits for another program finish (its result is
        in the file; the window is going away, so nothing more is shown)."""
        self._runner.wait(msecs)

    def forget(self) -> None:
        """Another workspace was opened: what is queued belonged to the old one."""
        self._queue.clear()
        self._after.clear()
        self._runner.shutdown()
        self._running = None
        self._set_waiting(False)

    # the undo stack -------------------------------------------------------------------
    def push(
        self,
        stack: QUndoStack,
        command: QUndoCommand,
        then: Callable[[], object] | None = None,
        *,
        before: Sequence[QUndoCommand] = (),
    ) -> None:
        """Push `command` once its write is saved (a command that cannot defer its write
        is pushed at once, as before); then call `then` (not when it was not pushed).
        `before`: steps that write nothing when pushed (the word steps of one commit of
        typing), pushed right before `command`, and only if it is."""
        self._move(stack, command, undo=False, push=True, then=then, before=before)

    def undo(self, stack: QUndoStack) -> None:
        if self.busy:  # which command is next is known once the waiting write is done
            self._after.append(lambda: self.undo(stack))
        elif stack.canUndo():
            self._move(stack, stack.command(stack.index() - 1), undo=True, push=False)

    def redo(self, stack: QUndoStack) -> None:
        if self.busy:
            self._after.append(lambda: self.redo(stack))
        elif stack.canRedo():
            self._move(stack, stack.command(stack.index()), undo=False, push=False)

    def _move(
        self,
        stack: QUndoStack,
        command: QUndoCommand,
        *,
        undo: bool,
        push: bool,
        then: Callable[[], object] | None = None,
        before: Sequence[QUndoCommand] = (),
    ) -> None:
        def go() -> None:
            if push:
                for step in before:
                    stack.push(step)
                stack.push(command)
            elif stack.command(stack.index() - (1 if undo else 0)) is not command:
                # Another feature pushed meanwhile: this write is in the file, and the
                # command's next check sees that, but the stack must not move another one.
                return
            elif undo:
                stack.undo()
            else:
                stack.redo()
            if then is not None:
                then()

        if not _is_deferred(command) or getattr(command, "failed", False):
            go()  # (a failed command's undo and redo write nothing)
            return
        deferred: Any = command
        try:
            write = deferred.prepare(undo)
        except AxmemError as exc:
            if deferred.settled(undo, None, exc):
                go()
            return

        def done(value: Any) -> None:
            if deferred.settled(undo, value, None, elsewhere=self.elsewhere):
                go()

        def failed(error: AxmemError) -> None:
            if deferred.settled(undo, None, error):
                go()  # a conflict: the command asks whose version to keep

        self.submit(write, done, failed)


def _is_deferred(command: QUndoCommand) -> bool:
    return callable(getattr(command, "prepare", None)) and callable(
        getattr(command, "settled", None)
    )


def undo_actions(parent: QObject, stack: QUndoStack, writes: WriteQueue) -> tuple[QAction, QAction]:
    """Edit > Undo / Redo, as `QUndoStack.createUndoAction` makes them (text and enabled
    state follow the stack), but moving the stack through `writes`."""
    undo = QAction("&Undo", parent)
    redo = QAction("&Redo", parent)
    undo.triggered.connect(lambda: writes.undo(stack))
    redo.triggered.connect(lambda: writes.redo(stack))

    # Fed by the stack's own signals (never by asking it: it emits while destroyed).
    stack.canUndoChanged.connect(undo.setEnabled)
    stack.canRedoChanged.connect(redo.setEnabled)
    stack.undoTextChanged.connect(lambda text: undo.setText(f"&Undo {text}".rstrip()))
    stack.redoTextChanged.connect(lambda text: redo.setText(f"&Redo {text}".rstrip()))
    undo.setEnabled(stack.canUndo())
    redo.setEnabled(stack.canRedo())
    undo.setShortcut(QKeySequence.StandardKey.Undo)
    return undo, redo
