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
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

from axmem_gui.core.errors import AxmemError


class GuiThreadCollector:
    """Keeps the cyclic garbage collector on, and its freeing on the GUI thread.

    A collection runs in whichever thread allocates when a threshold is crossed. On a
    worker thread it could destroy Qt wrappers that became garbage on the GUI thread, and
    destroying a QObject off its thread crashes Qt. So a collection that starts on another
    thread first freezes every tracked object (`gc.freeze`: they move to the permanent
    generation, which collections do not scan): it finds nothing, and nothing is destroyed
    there. The next collection on the GUI thread unfreezes them (back to the oldest
    generation, collected there), and while jobs run the task runner makes the GUI thread
    collect at safe points (`safe_point`), so the garbage of a long job does not pile up.

    One per process, because `gc.callbacks` is; installed by the first task runner."""

    def __init__(self) -> None:
        #: Collections started off the GUI thread since the GUI thread last unfroze.
        self.deferred = 0
        #: Full collections made by `collect_deferred` (tests and benchmarks read it).
        self.collections = 0
        self._gui_thread: int | None = None
        self._last_collect = time.monotonic()

    def install(self) -> None:
        """Call on the GUI thread; once is enough."""
        if self._gui_thread is None:
            self._gui_thread = threading.get_ident()
            gc.callbacks.append(self._on_collection)

    def _on_collection(self, phase: str, info: dict[str, int]) -> None:
        del info
        if phase != "start":
            return
        if threading.get_ident() != self._gui_thread:
            gc.freeze()
            self.deferred += 1
        elif self.deferred:
            self.deferred = 0
            gc.unfreeze()

    def safe_point(self, min_interval_s: float) -> None:
        """On the GUI thread: collect what collections on other threads left, at most
        once per `min_interval_s` (a full collection: what they froze is old now)."""
        if self.deferred and time.monotonic() - self._last_collect >= min_interval_s:
            self.collect_deferred()

    def collect_deferred(self) -> None:
        if threading.get_ident() != self._gui_thread or not self.deferred:
            return
        gc.collect()  # its start unfreezes what the other threads froze
        self.collections += 1
        self._last_collect = time.monotonic()


COLLECTOR = GuiThreadCollector()
#: While jobs run, the GUI thread collects what they left at most this often.
COLLECT_INTERVAL_MS = 5000


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

    def __init__(
        self,
        max_threads: int = 2,
        parent: QObject | None = None,
        collect_interval_ms: int = COLLECT_INTERVAL_MS,
    ) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(max_threads)
        self._ids = itertools.count(1)
        self._running: dict[int, JobContext] = {}
        self._collect_interval_s = collect_interval_ms / 1000
        #: Safe points for the GUI thread's collections while jobs run and report nothing.
        self._collect_timer = QTimer(self)
        self._collect_timer.setInterval(max(collect_interval_ms, 1))
        self._collect_timer.timeout.connect(self._safe_point)
        COLLECTOR.install()
        self._signals = _Signals()
        self._signals.progressed.connect(self._on_progressed)
        self._signals.partial.connect(self._on_partial)
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
        self._pool.start(_Runnable(job, ctx, self._signals))
        if not was_busy:
            self._collect_timer.start()
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
        later."""
        self.cancel_all()
        was_busy = bool(self._running)
        self._running.clear()
        self._collect_timer.stop()
        if was_busy:
            self.busy_changed.emit(False)

    def is_running(self, job_id: int) -> bool:
        return job_id in self._running

    @property
    def busy(self) -> bool:
        return bool(self._running)

    def wait(self, msecs: int = 30000) -> bool:
        return bool(self._pool.waitForDone(msecs))

    def _safe_point(self) -> None:
        COLLECTOR.safe_point(self._collect_interval_s)

    def _on_progressed(self, job_id: int, fraction: float, message: str) -> None:
        self._safe_point()
        self.progressed.emit(job_id, fraction, message)

    def _on_partial(self, job_id: int, value: object) -> None:
        self._safe_point()
        self.partial.emit(job_id, value)

    def _done(self, job_id: int) -> None:
        self._running.pop(job_id, None)
        self._safe_point()
        if not self._running:
            self._collect_timer.stop()
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
