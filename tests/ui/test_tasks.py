from __future__ import annotations

import gc
import threading
import weakref

import pytest
import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QThread, Signal
from pytestqt.qtbot import QtBot

from axmem_gui.core.errors import InputError
from axmem_gui.ui import collector, tasks
from axmem_gui.ui.collector import COLLECTOR
from axmem_gui.ui.tasks import JobContext, TaskRunner


def test_job_result_arrives_on_gui_thread(qtbot: QtBot) -> None:
    runner = TaskRunner()
    seen_threads: list[object] = []
    runner.finished.connect(lambda _id, _r: seen_threads.append(QThread.currentThread()))

    def job(ctx: JobContext) -> int:
        ctx.progress(0.5, "half")
        return sum(range(1000))

    with qtbot.waitSignal(runner.finished, timeout=5000) as blocker:
        job_id = runner.submit(job)
    assert blocker.args == [job_id, 499500]
    assert seen_threads == [QThread.currentThread()]
    assert not runner.busy


def test_cancel_token_stops_job(qtbot: QtBot) -> None:
    runner = TaskRunner()
    started = threading.Event()

    def job(ctx: JobContext) -> None:
        started.set()
        while True:
            ctx.check()
            ctx.cancel_event.wait(0.01)

    with qtbot.waitSignal(runner.cancelled, timeout=5000):
        job_id = runner.submit(job)
        assert started.wait(5)
        runner.cancel(job_id)
    assert not runner.is_running(job_id)


def test_errors_become_messages(qtbot: QtBot) -> None:
    runner = TaskRunner()

    def bad_input(ctx: JobContext) -> None:
        raise InputError("catalog.json: skills[2]: field 'name' must be a string")

    def crash(ctx: JobContext) -> None:
        raise ZeroDivisionError("division by zero")

    with qtbot.waitSignal(runner.failed, timeout=5000) as blocker:
        runner.submit(bad_input)
    assert blocker.args[1] == "catalog.json: skills[2]: field 'name' must be a string"
    with qtbot.waitSignal(runner.failed, timeout=5000) as blocker:
        runner.submit(crash)
    assert "ZeroDivisionError" in blocker.args[1] and "Traceback" not in blocker.args[1]


def test_partial_results_and_progress_are_delivered(qtbot: QtBot) -> None:
    runner = TaskRunner()
    partials: list[object] = []
    progress: list[float] = []
    runner.partial.connect(lambda _i, v: partials.append(v))
    runner.progressed.connect(lambda _i, f, _m: progress.append(f))

    def job(ctx: JobContext) -> str:
        for i in range(3):
            ctx.partial(i)
            ctx.progress((i + 1) / 3)
        return "done"

    with qtbot.waitSignal(runner.finished, timeout=5000):
        runner.submit(job)
    assert partials == [0, 1, 2]
    assert progress[-1] == 1.0


def test_garbage_collection_stays_on_while_jobs_run(qtbot: QtBot) -> None:
    runner = TaskRunner()
    release = threading.Event()
    seen: list[bool] = []

    def job(ctx: JobContext) -> None:
        seen.append(gc.isenabled())
        release.wait(5)

    assert gc.isenabled()
    with qtbot.waitSignal(runner.finished, timeout=5000):
        runner.submit(job)
        qtbot.waitUntil(lambda: bool(seen))
        assert gc.isenabled()  # on the GUI thread too, while the job runs
        release.set()
    assert seen == [True]
    assert gc.isenabled()


class _Wrapper(QObject):
    """A Qt object in a reference cycle: only the cycle collector frees it."""


def test_qt_garbage_is_never_freed_on_a_worker_thread(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A collection a worker starts (here explicitly) frees nothing there; the Qt wrappers
    that were garbage on the GUI thread die on the GUI thread (in the major collection of
    the idle point: at once, with no interval to wait)."""
    monkeypatch.setattr(collector, "MAJOR_INTERVAL_S", 0.0)
    runner = TaskRunner(collect_interval_ms=0, idle_major_delay_ms=0)
    gui_thread = threading.get_ident()
    freed_on: list[int] = []
    collected_on_worker = threading.Event()
    gc.collect()
    for _ in range(20):
        obj = _Wrapper()
        obj.cycle = obj  # type: ignore[attr-defined]
        weakref.finalize(obj, lambda: freed_on.append(threading.get_ident()))
    del obj

    def job(ctx: JobContext) -> int:
        found = gc.collect()
        collected_on_worker.set()
        return found

    with qtbot.waitSignal(runner.finished, timeout=5000) as done:
        runner.submit(job)
        # The GUI thread allocates nothing until the worker has collected.
        assert collected_on_worker.wait(5)
    assert done.args[1] == 0  # the worker's collection found nothing to free
    qtbot.waitUntil(lambda: len(freed_on) == 20, timeout=5000)
    assert set(freed_on) == {gui_thread}
    assert gc.isenabled()


def test_a_long_job_that_makes_cyclic_garbage_keeps_memory_bounded(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A job that runs for a long time (here: many steps, each waiting for the GUI thread
    to take its report) leaves its garbage to the GUI thread, which collects it at the
    runner's safe points: the number of live objects stays flat."""
    steps, cycles_per_step = 60, 5000
    runner = TaskRunner(collect_interval_ms=0)
    taken = threading.Semaphore(0)
    live: list[int] = []
    enabled: list[bool] = []

    def job(ctx: JobContext) -> int:
        for step in range(steps):
            for _ in range(cycles_per_step):
                cycle: list[object] = []
                cycle.append(cycle)
            ctx.partial(step)
            if not taken.acquire(timeout=30):
                raise RuntimeError("the GUI thread stopped taking reports")
        return steps

    def on_partial(_job_id: int, _step: object) -> None:
        enabled.append(gc.isenabled())
        live.append(len(gc.get_objects()) + gc.get_freeze_count())
        frozen.append(gc.get_freeze_count())
        taken.release()

    frozen: list[int] = []
    gui_generations: list[int] = []
    gui_thread = threading.get_ident()

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and threading.get_ident() == gui_thread:
            gui_generations.append(info["generation"])

    runner.partial.connect(on_partial)
    long_lived = _long_lived_and_frozen(monkeypatch)
    baseline = len(gc.get_objects()) + gc.get_freeze_count()  # frozen objects live too
    collections = COLLECTOR.collections
    gc.callbacks.append(on_gc)
    try:
        with qtbot.waitSignal(runner.finished, timeout=120_000):
            runner.submit(job)
    finally:
        gc.callbacks.remove(on_gc)
    assert len(live) == steps and all(enabled)
    assert COLLECTOR.collections > collections
    # 300,000 cycles were made; at most a few steps' worth are ever alive.
    assert max(live) - baseline < 4 * cycles_per_step, (baseline, max(live))
    # They died young, on the GUI thread: no full collection rescanned the long-lived
    # objects, which stayed frozen all along.
    assert gui_generations and max(gui_generations) < 2, gui_generations
    assert min(frozen) >= len(long_lived), (min(frozen), len(long_lived))
    del long_lived


def _long_lived_and_frozen(monkeypatch: pytest.MonkeyPatch) -> list[list[int]]:
    """A long-lived structure (like the shared search index), built by a job that made a
    worker collect: the major collection that follows at idle leaves it frozen."""
    monkeypatch.setattr(collector, "MAJOR_INTERVAL_S", 0.0)
    runner = TaskRunner(collect_interval_ms=0, idle_major_delay_ms=0)
    built: list[list[list[int]]] = []

    def job(ctx: JobContext) -> int:
        built.append([[i] for i in range(50_000)])
        gc.collect()  # a collection on the worker: freezes, frees nothing
        return len(built[0])

    majors = COLLECTOR.majors
    runner.submit(job)
    assert runner.wait(30_000)
    # The job's outcome is delivered through the event loop; then the runner is idle.
    QCoreApplication.sendPostedEvents()
    assert not runner.busy and COLLECTOR.majors > majors
    assert gc.get_freeze_count() >= 50_000
    return built[0]


def test_shutdown_forgets_unfinished_jobs_and_the_collector_stays_on(qtbot: QtBot) -> None:
    runner = TaskRunner()
    started = threading.Event()

    def job(ctx: JobContext) -> None:
        started.set()
        while not ctx.cancelled:
            ctx.cancel_event.wait(0.01)

    runner.submit(job)
    assert started.wait(5)
    assert gc.isenabled()
    runner.shutdown()
    assert gc.isenabled() and not runner.busy
    assert runner.wait(5000)


class _Dialog(QObject):
    cancel_requested = Signal()


def test_what_a_job_holds_is_released_on_the_gui_thread(qtbot: QtBot) -> None:
    """The crash of a full test run (a worker thread, inside PySide's disconnect): a job
    closure held the last reference to a `threading.Event` whose `set` was connected to a
    dialog's signal. Qt deletes a finished QRunnable on its pool thread; the closure died
    there, and PySide disconnected the dialog's signal from that thread while the GUI
    thread used it. What a job holds (its callable, context and result) is released on the
    GUI thread."""
    runner = TaskRunner()
    gui_thread = threading.get_ident()
    dialog = _Dialog()
    released: dict[str, int] = {}

    class Result:
        pass

    def make_job() -> object:
        cancel = threading.Event()
        dialog.cancel_requested.connect(cancel.set)
        weakref.finalize(cancel, lambda: released.setdefault("closure", threading.get_ident()))

        def job(ctx: JobContext) -> Result:
            cancel.wait(0)
            result = Result()
            weakref.finalize(result, lambda: released.setdefault("result", threading.get_ident()))
            return result

        return job

    for _ in range(3):
        released.clear()
        with qtbot.waitSignal(runner.finished, timeout=5000):
            runner.submit(make_job())  # type: ignore[arg-type]
        qtbot.waitUntil(lambda: len(released) == 2, timeout=5000)
        assert released == {"closure": gui_thread, "result": gui_thread}


def test_jobs_forgotten_at_shutdown_are_released_on_the_gui_thread(qtbot: QtBot) -> None:
    runner = TaskRunner()
    gui_thread = threading.get_ident()
    started, release = threading.Event(), threading.Event()
    released: list[int] = []

    class Held(QObject):
        pass

    def make_job() -> object:
        held = Held()
        weakref.finalize(held, lambda: released.append(threading.get_ident()))

        def job(ctx: JobContext) -> None:
            started.set()
            release.wait(5)
            del ctx
            assert held is not None

        return job

    runner.submit(make_job())  # type: ignore[arg-type]
    assert started.wait(5)
    runner.shutdown()  # forgets the job while it runs
    release.set()
    qtbot.waitUntil(lambda: bool(released), timeout=5000)
    assert released == [gui_thread]


def test_a_job_that_ends_after_the_app_quit_prints_no_traceback(qtbot: QtBot) -> None:
    """Quitting while a job runs (an index build, a lint): PySide deletes every parentless
    QObject when the application goes, the jobs' emitter included; the job's thread then
    ends with nobody to tell. Its `done` must not raise ("Signal source has been deleted",
    printed as a traceback by Qt's thread pool after the window closed)."""
    import shiboken6

    runner = TaskRunner()
    tasks._emitter()
    emitter = tasks._EMITTER[0]
    gone = tasks._Signals()
    shiboken6.delete(gone)  # as PySide's exit handler leaves the emitter
    job_id = next(tasks._JOB_IDS)
    ctx = JobContext(job_id)
    tasks._CUSTODY[job_id] = tasks._Ticket(lambda _ctx: 42, ctx, runner)
    tasks._EMITTER[0] = gone
    try:
        tasks._Runnable(job_id).run()  # the pool thread's last step, run here
    finally:
        tasks._EMITTER[0] = emitter
        ticket = tasks._CUSTODY.pop(job_id)
    assert (ticket.outcome, ticket.value, ticket.worker_done) == ("finished", 42, True)


def test_a_runner_deleted_while_its_job_runs_does_not_keep_the_collector_busy(
    qtbot: QtBot,
) -> None:
    # A window closed mid-job deletes its runner; the job's thread still holds the Python
    # side, which never reported the end: no major collection came again in that process.
    release = threading.Event()
    runner = TaskRunner()
    runner.submit(lambda _ctx: release.wait(30))
    qtbot.waitUntil(lambda: runner.busy)
    assert COLLECTOR.busy
    shiboken6.delete(runner)
    try:
        assert not COLLECTOR.busy
        assert gc.get_threshold()[0] < collector.BUSY_THRESHOLD
    finally:
        release.set()
