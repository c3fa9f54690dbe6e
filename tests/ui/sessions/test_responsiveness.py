"""The UI never blocks during a live run: while a run against the fake server (each reply
delayed) is in flight, a 10 ms timer on the GUI thread keeps ticking.

The issue's target is 100 ms; the assertion uses a generous 250 ms bound so a loaded CI
machine does not flake. The measured figures are printed (run with -s) and recorded as
test properties.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

import pytest
from PySide6.QtCore import QTimer

from axmem_gui.ui.sessions.controller import SessionsFeature
from axmem_gui.ui.sessions.run_dialog import RunAgentDialog
from tests.fakes.fake_openai_server import FakeOpenAIServer, settings_for

TICK_MS = 10
BOUND_MS = 250.0
REPLY_DELAY_S = 0.15


def test_event_loop_keeps_ticking_during_a_slow_run(
    feature: SessionsFeature,
    server: FakeOpenAIServer,
    qtbot: Any,
    record_property: pytest.RecordProperty,
) -> None:
    server.state.fault_always = "timeout"  # every reply waits, then answers normally
    server.state.slow_seconds = REPLY_DELAY_S
    dialog = RunAgentDialog(feature.ws, feature.runner, settings_for(server, timeout_s=10.0))
    qtbot.addWidget(dialog)
    dialog.set_input("request", "How do I ship a new release of the payments SDK?")
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
    qtbot.wait(3 * TICK_MS)  # a few ticks after the result was saved and shown
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
        f"ticks {max_gap:.1f} ms (including saving and opening the session)"
    )
    assert requests >= 5 and (run_end - started) > requests * REPLY_DELAY_S * 0.9
    assert len(during) > (run_end - started) * 1000 / TICK_MS / 3
    assert max_gap < BOUND_MS
