"""The UI never blocks during a live run, proven without a clock: every model reply is held
by the fake server until a timer on the GUI thread releases it, so the run can only complete
if the event loop keeps ticking while requests are in flight (a GUI thread blocked on HTTP
could never release its own reply).

How long the loop may stall is a speed figure, not a pass/fail: `bench/responsiveness_bench.py`
measures the longest gap between ticks during a slow run and prints it.
"""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtCore import QTimer

from axmem_gui.ui.sessions.controller import SessionsFeature
from tests.fakes.fake_openai_server import FakeOpenAIServer, settings_for
from tests.ui.sessions.conftest import new_run_dialog

TICK_MS = 10


def test_run_completes_only_because_the_event_loop_keeps_ticking(
    feature: SessionsFeature, server: FakeOpenAIServer, qtbot: Any
) -> None:
    server.state.fault_always = "timeout"  # every reply is held...
    server.state.gate = threading.Semaphore(0)  # ...until the GUI thread lets it go
    server.state.slow_seconds = 120.0  # (a safety net far beyond the client's 60 s timeout)
    dialog = new_run_dialog(feature, settings_for(server, timeout_s=60.0))
    qtbot.addWidget(dialog)
    dialog.set_input("userRequest", "How do I ship a new release of the payments SDK?")
    order = dialog.build_order()

    released: list[int] = []

    def tick() -> None:
        if server.state.held and server.state.gate is not None:
            released.append(server.state.held)
            server.state.gate.release()

    timer = QTimer()
    timer.setInterval(TICK_MS)
    timer.timeout.connect(tick)
    timer.start()
    feature.start_run(order)
    qtbot.waitUntil(lambda: not feature.jobs, timeout=120_000)
    timer.stop()

    viewer = feature.current_viewer()
    assert viewer is not None and viewer.session.status == "complete"
    requests = len(server.requests)
    assert requests >= 5
    # Each reply went out because a GUI-thread tick released it while the run was waiting.
    assert len(released) >= requests
