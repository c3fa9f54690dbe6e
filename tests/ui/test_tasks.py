from __future__ import annotations

import threading

from PySide6.QtCore import QThread

from axmem_gui.core.errors import InputError
from axmem_gui.ui.tasks import JobContext, TaskRunner


def test_job_result_arrives_on_gui_thread(qtbot) -> None:  # type: ignore[no-untyped-def]
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


def test_cancel_token_stops_job(qtbot) -> None:  # type: ignore[no-untyped-def]
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


def test_errors_become_messages(qtbot) -> None:  # type: ignore[no-untyped-def]
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


def test_partial_results_and_progress_are_delivered(qtbot) -> None:  # type: ignore[no-untyped-def]
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


def test_garbage_collection_pauses_while_jobs_run(qtbot) -> None:  # type: ignore[no-untyped-def]
    import gc

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
        release.set()
    assert seen == [False]  # no collection can start on the worker thread
    assert gc.isenabled()  # and the GUI thread collects again afterwards


def test_shutdown_ends_the_collection_pause_of_unfinished_jobs(qtbot) -> None:  # type: ignore[no-untyped-def]
    import gc

    runner = TaskRunner()
    started = threading.Event()

    def job(ctx: JobContext) -> None:
        started.set()
        while not ctx.cancelled:
            ctx.cancel_event.wait(0.01)

    runner.submit(job)
    assert started.wait(5)
    assert not gc.isenabled()
    runner.shutdown()
    assert gc.isenabled() and not runner.busy
    assert runner.wait(5000)
