"""Benchmark (not collected by `make test`): how long the GUI event loop stalls during a
live run against the fake server (each reply delayed 150 ms), measured with a 10 ms timer.

    .venv/bin/python bench/responsiveness_bench.py

Prints the run time, the number of ticks and the longest gap between ticks (target: under
100 ms on an idle machine). The pass/fail property (the loop keeps ticking while a run is in
flight) is tests/ui/sessions/test_responsiveness.py.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QTimer

from axmem_gui.ui.sessions.controller import SessionsFeature
from tests.fakes.fake_openai_server import FakeOpenAIServer, settings_for
from tests.ui.sessions.conftest import new_run_dialog

TICK_MS = 10
TARGET_MS = 100.0
REPLY_DELAY_S = 0.15


def bench_event_loop_gap_during_a_slow_run(
    feature: SessionsFeature,
    server: FakeOpenAIServer,
    qtbot: Any,
    record_property: Callable[[str, object], None],
) -> None:
    server.state.fault_always = "timeout"  # every reply waits, then answers normally
    server.state.slow_seconds = REPLY_DELAY_S
    dialog = new_run_dialog(feature, settings_for(server, timeout_s=10.0))
    qtbot.addWidget(dialog)
    dialog.set_input("userRequest", "How do I ship a new release of the payments SDK?")
    order = dialog.build_order()

    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(TICK_MS)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    finished_at: list[float] = []
    feature.runner.finished.connect(lambda *_: finished_at.append(time.perf_counter()))
    timer.start()
    started = time.perf_counter()
    feature.start_run(order)
    qtbot.waitUntil(lambda: not feature.jobs, timeout=60_000)
    # a few ticks after the result was saved and shown
    qtbot.waitUntil(lambda: bool(finished_at) and ticks[-1] > finished_at[-1], timeout=60_000)
    timer.stop()

    assert finished_at, "the run finished"
    # The runner's finished signal reaches this test after the sessions feature handled it
    # (saved the session, reloaded the list, opened the viewer), so the gaps below include
    # that GUI-thread work too.
    run_end = finished_at[-1]
    during = [t for t in ticks if started <= t <= run_end]
    next_tick = [t for t in ticks if t > run_end][:1]  # closes the gap over the handling
    points = [started, *during, *next_tick]
    gaps = [(b - a) * 1000 for a, b in itertools.pairwise(points)]
    max_gap = max(gaps)
    requests = len(server.requests)
    record_property("max_tick_gap_ms", round(max_gap, 1))
    print(
        f"\nrun {(run_end - started):.2f} s, {requests} model calls each delayed "
        f"{REPLY_DELAY_S * 1000:.0f} ms; {len(during)} ticks; max gap between {TICK_MS} ms "
        f"ticks {max_gap:.1f} ms (including saving and opening the session; "
        f"target {TARGET_MS:.0f} ms: {'met' if max_gap < TARGET_MS else 'MISSED'})"
    )
