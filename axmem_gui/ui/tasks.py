"""One task runner for slow work (LLM calls, imports, replays, suite runs).

A job is a plain function that receives a `JobContext` (cancel token + progress
reporting) and returns a result. It runs on a thread pool and never touches a widget:
it reports through signals owned by the runner, which Qt delivers on the GUI thread.
Every job has an id so the UI can drop results of jobs it no longer cares about.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from axmem_gui.core.errors import AxmemError


class _GuiThreadCollection:
    """Python's cyclic garbage collector runs in whichever thread allocates when a
    threshold is crossed. On a worker thread it may destroy leftover Qt wrappers there,
    which crashes Qt. So while any job runs, automatic collection pauses; the GUI thread
    collects the young generations when the last job ends. Shared by every runner."""

    def __init__(self) -> None:
        self.holds = 0
        self.was_enabled = True

    def hold(self) -> None:
        if self.holds == 0:
            self.was_enabled = gc.isenabled()
            gc.disable()
        self.holds += 1

    def release(self) -> None:
        if self.holds == 0:
            return
        self.holds -= 1
        if self.holds == 0 and self.was_enabled:
            gc.collect(1)  # what piled up meanwhile; a full collection can take ~60 ms
            gc.enable()


_COLLECTION = _GuiThreadCollection()


class Cancelled(Exception):
    """Raised inside a job when its cancel token was set."""


@dataclass
class JobContext:
    job_id: int
    _cancel: threading.Event = field(default_factory=threading.Event)
    _progress: Callable[[int, float, str], None] = lambda _i, _f, _m: None
    _partial: Callable[[int, object], None] = lambda _i, _v: None

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    @property
    def cancel_event(self) -> threading.Event:
        return self._cancel

    def check(self) -> None:
        """Call between steps: raises Cancelled once the user asked to stop."""
        if self._cancel.is_set():
            raise Cancelled()

    def progress(self, fraction: float, message: str = "") -> None:
        self._progress(self.job_id, max(0.0, min(1.0, fraction)), message)

    def partial(self, value: object) -> None:
        self._partial(self.job_id, value)


Job = Callable[[JobContext], Any]


class _Signals(QObject):
    progressed = Signal(int, float, str)
    partial = Signal(int, object)
    finished = Signal(int, object)
    failed = Signal(int, str)
    cancelled = Signal(int)


class _Runnable(QRunnable):
    def __init__(self, job: Job, ctx: JobContext, signals: _Signals) -> None:
        super().__init__()
        self._job, self._ctx, self._signals = job, ctx, signals
        self.setAutoDelete(True)

    def run(self) -> None:
        try:
            result = self._job(self._ctx)
        except Cancelled:
            self._emit(self._signals.cancelled, self._ctx.job_id)
        except AxmemError as exc:
            self._emit(self._signals.failed, self._ctx.job_id, str(exc))
        except Exception as exc:  # report, never crash the app
            detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            self._emit(self._signals.failed, self._ctx.job_id, f"Unexpected error: {detail}")
        else:
            if self._ctx.cancelled:
                self._emit(self._signals.cancelled, self._ctx.job_id)
            else:
                self._emit(self._signals.finished, self._ctx.job_id, result)

    @staticmethod
    def _emit(signal: Any, *args: object) -> None:
        # The runner may be destroyed while the job ran: then nobody wants the result.
        with contextlib.suppress(RuntimeError):
            signal.emit(*args)


class TaskRunner(QObject):
    """Submit jobs; listen to the runner's signals, filtering by job id."""

    progressed = Signal(int, float, str)
    partial = Signal(int, object)
    finished = Signal(int, object)
    failed = Signal(int, str)
    cancelled = Signal(int)
    busy_changed = Signal(bool)

    def __init__(self, max_threads: int = 2, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(max_threads)
        self._ids = itertools.count(1)
        self._running: dict[int, JobContext] = {}
        self._signals = _Signals()
        self._signals.progressed.connect(self.progressed)
        self._signals.partial.connect(self.partial)
        self._signals.finished.connect(self._on_done_finished)
        self._signals.failed.connect(self._on_done_failed)
        self._signals.cancelled.connect(self._on_done_cancelled)

    def submit(self, job: Job) -> int:
        job_id = next(self._ids)
        ctx = JobContext(
            job_id,
            _progress=self._signals.progressed.emit,
            _partial=self._signals.partial.emit,
        )
        was_busy = bool(self._running)
        self._running[job_id] = ctx
        _COLLECTION.hold()
        self._pool.start(_Runnable(job, ctx, self._signals))
        if not was_busy:
            self.busy_changed.emit(True)
        return job_id

    def cancel(self, job_id: int) -> None:
        ctx = self._running.get(job_id)
        if ctx is not None:
            ctx.cancel_event.set()

    def cancel_all(self) -> None:
        for ctx in self._running.values():
            ctx.cancel_event.set()

    def shutdown(self) -> None:
        """The owner is going away: cancel every job and forget it, so no result arrives
        later and the garbage-collection pause of its jobs ends now."""
        self.cancel_all()
        for _ in range(len(self._running)):
            _COLLECTION.release()
        was_busy = bool(self._running)
        self._running.clear()
        if was_busy:
            self.busy_changed.emit(False)

    def is_running(self, job_id: int) -> bool:
        return job_id in self._running

    @property
    def busy(self) -> bool:
        return bool(self._running)

    def wait(self, msecs: int = 30000) -> bool:
        return bool(self._pool.waitForDone(msecs))

    def _done(self, job_id: int) -> None:
        if self._running.pop(job_id, None) is not None:
            _COLLECTION.release()
        if not self._running:
            self.busy_changed.emit(False)

    def _on_done_finished(self, job_id: int, result: object) -> None:
        self._done(job_id)
        self.finished.emit(job_id, result)

    def _on_done_failed(self, job_id: int, message: str) -> None:
        self._done(job_id)
        self.failed.emit(job_id, message)

    def _on_done_cancelled(self, job_id: int) -> None:
        self._done(job_id)
        self.cancelled.emit(job_id)
