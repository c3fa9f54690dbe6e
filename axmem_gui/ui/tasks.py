"""One task runner for slow work (LLM calls, imports, replays, suite runs).

A job is a plain function that receives a `JobContext` (cancel token + progress
reporting) and returns a result. It runs on a thread pool and never touches a widget:
it reports through signals owned by the runner, which Qt delivers on the GUI thread.
Every job has an id so the UI can drop results of jobs it no longer cares about.

While jobs run, the runner gives the garbage collector's policy (collector.py) its safe
points, and tells it when the jobs end.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import traceback
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

from axmem_gui.core.errors import AxmemError
from axmem_gui.ui import collector

#: While jobs run, the GUI thread's safe points come at least this often.
COLLECT_INTERVAL_MS = 50
#: Threads for jobs that wait on another process (agent runs): as many as a window runs.
WAITING_THREADS = 16
#: After the last job, the GUI thread waits this long before its idle point.
IDLE_MAJOR_DELAY_MS = 1500


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
    """The one emitter of every job's reports, made on the GUI thread by the first runner
    and never destroyed: a worker's reference to it is never the last one."""

    progressed = Signal(int, float, str)
    partial = Signal(int, object)
    done = Signal(int)


_EMITTER: list[_Signals] = []


def _emitter() -> _Signals:
    if not _EMITTER:
        _EMITTER.append(_Signals())
    return _EMITTER[0]


class _Ticket:
    """What a job carries in and out: the callable (and whatever its closure holds), its
    context and its outcome. Held in `_CUSTODY` for the GUI thread, which alone lets go of
    it: nothing the GUI thread handed a job (a bound method connected to a widget's
    signal, a Qt object) has its last reference dropped on a worker thread, where PySide
    would disconnect or destroy Qt objects behind the GUI thread's back."""

    __slots__ = ("ctx", "delivered", "job", "outcome", "runner", "value", "worker_done")

    def __init__(self, job: Job, ctx: JobContext, runner: TaskRunner) -> None:
        self.job: Job | None = job
        self.ctx: JobContext | None = ctx
        self.outcome = ""  # finished | failed | cancelled
        self.value: object = None
        self.worker_done = False  # the worker thread holds nothing of it any more
        self.delivered = False  # the GUI thread took the outcome (or nobody wants it)
        self.runner = weakref.ref(runner)

    def release(self) -> None:
        self.job = self.ctx = self.value = None


#: Every job from submission until the GUI thread releases it (`_reap`), by job id. Job
#: ids are unique in the process.
_CUSTODY: dict[int, _Ticket] = {}
_JOB_IDS = itertools.count(1)


def _reap() -> None:
    """On the GUI thread: release the tickets that neither side needs any more."""
    for job_id, ticket in list(_CUSTODY.items()):
        if ticket.worker_done and (ticket.delivered or ticket.runner() is None):
            del _CUSTODY[job_id]
            ticket.release()


class _Runnable(QRunnable):
    """Runs on a pool thread, and Qt deletes it there when `run` returns: so it holds only
    the job id; the job, its context and its result live in `_CUSTODY`."""

    def __init__(self, job_id: int) -> None:
        super().__init__()
        self._job_id = job_id
        self.setAutoDelete(True)

    def run(self) -> None:
        ticket = _CUSTODY.get(self._job_id)
        if ticket is None:
            return
        ticket.outcome, ticket.value = _outcome(ticket)
        # Whatever this thread referenced (the job's locals, a traceback) is gone now; the
        # ticket still holds the job, its context and its result for the GUI thread.
        ticket.worker_done = True
        del ticket
        # After the app quit, PySide has deleted the emitter (as every parentless QObject)
        # while this job still ran: nobody listens any more, and Qt's pool would print
        # the RuntimeError as a traceback.
        with contextlib.suppress(RuntimeError):
            _EMITTER[0].done.emit(self._job_id)


def _outcome(ticket: _Ticket) -> tuple[str, object]:
    job, ctx = ticket.job, ticket.ctx
    if job is None or ctx is None:
        return "cancelled", None
    try:
        result = job(ctx)
    except Cancelled:
        return "cancelled", None
    except AxmemError as exc:
        return "failed", str(exc)
    except Exception as exc:  # report, never crash the app
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return "failed", f"Unexpected error: {detail}"
    if ctx.cancelled:
        return "cancelled", None
    return "finished", result


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
        idle_major_delay_ms: int = IDLE_MAJOR_DELAY_MS,
    ) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(max_threads)
        #: Jobs that wait on another process (an agent run's child) have threads of their
        #: own: a stuck run never holds one the rest of the window's work needs.
        self._waiting = QThreadPool(self)
        self._waiting.setMaxThreadCount(WAITING_THREADS)
        #: The jobs whose outcome this runner will deliver.
        self._running: set[int] = set()
        #: Safe points for the GUI thread's young collections while jobs run.
        self._collect_timer = QTimer(self)
        self._collect_timer.setInterval(max(collect_interval_ms, 1))
        self._collect_timer.timeout.connect(self._safe_point)
        self._idle_delay_ms = idle_major_delay_ms
        collector.COLLECTOR.install()
        signals = _emitter()
        signals.progressed.connect(self._on_progressed)
        signals.partial.connect(self._on_partial)
        signals.done.connect(self._on_done)

    def submit(self, job: Job, *, waits: bool = False) -> int:
        """Run `job` on the pool; `waits`: it spends its time waiting on another process
        (its own pool then, see `_waiting`)."""
        _reap()
        job_id = next(_JOB_IDS)
        signals = _emitter()
        ctx = JobContext(job_id, _progress=signals.progressed.emit, _partial=signals.partial.emit)
        _CUSTODY[job_id] = _Ticket(job, ctx, self)
        was_busy = bool(self._running)
        self._running.add(job_id)
        (self._waiting if waits else self._pool).start(_Runnable(job_id))
        if not was_busy:
            self._set_busy(True)
        return job_id

    def cancel(self, job_id: int) -> None:
        ticket = _CUSTODY.get(job_id) if job_id in self._running else None
        if ticket is not None and ticket.ctx is not None:
            ticket.ctx.cancel_event.set()

    def cancel_all(self) -> None:
        for job_id in self._running:
            self.cancel(job_id)

    def shutdown(self) -> None:
        """The owner is going away: cancel every job and forget it, so no result arrives
        later. (What the jobs hold stays in custody until their threads let go of it.)"""
        self.cancel_all()
        was_busy = bool(self._running)
        for job_id in self._running:
            ticket = _CUSTODY.get(job_id)
            if ticket is not None:
                ticket.delivered = True  # nobody wants it
        self._running.clear()
        _reap()
        if was_busy:
            self._set_busy(False)

    def is_running(self, job_id: int) -> bool:
        return job_id in self._running

    @property
    def busy(self) -> bool:
        return bool(self._running)

    def wait(self, msecs: int = 30000) -> bool:
        done = bool(self._pool.waitForDone(msecs)) and bool(self._waiting.waitForDone(msecs))
        _reap()
        return done

    def _set_busy(self, busy: bool) -> None:
        if busy:
            self._collect_timer.start()
        else:
            self._collect_timer.stop()
        collector.COLLECTOR.set_busy(self, busy, self._idle_delay_ms)
        self.busy_changed.emit(busy)

    def _safe_point(self) -> None:
        collector.COLLECTOR.safe_point()

    def _on_progressed(self, job_id: int, fraction: float, message: str) -> None:
        if job_id in self._running:
            self._safe_point()
            self.progressed.emit(job_id, fraction, message)

    def _on_partial(self, job_id: int, value: object) -> None:
        if job_id in self._running:
            self._safe_point()
            self.partial.emit(job_id, value)

    def _on_done(self, job_id: int) -> None:
        ticket = _CUSTODY.get(job_id)
        if job_id not in self._running or ticket is None:
            _reap()  # another runner's job, or one this runner forgot at shutdown
            return
        self._running.discard(job_id)
        outcome, value = ticket.outcome, ticket.value
        ticket.delivered = True
        del ticket
        _reap()
        if not self._running:
            self._set_busy(False)
        else:
            self._safe_point()
        if outcome == "finished":
            self.finished.emit(job_id, value)
        elif outcome == "failed":
            self.failed.emit(job_id, str(value))
        else:
            self.cancelled.emit(job_id)
