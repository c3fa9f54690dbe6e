"""The garbage-collection policies `app_bench.py --gc-policy` compares with the app's own
(`ui/collector.py`'s `GuiThreadCollector`, "current"): the bench's child process puts one
in place of `collector.COLLECTOR` before the app is imported. Bench-only: the app has no
switch. The figures and the choice: docs/design.md, "The garbage collector's policy"."""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterable

from PySide6.QtCore import QObject, QTimer

from axmem_gui.ui import collector
from axmem_gui.ui.collector import INPUT_QUIET_S, GuiThreadCollector
from axmem_gui.ui.tasks import COLLECT_INTERVAL_MS


class _DefaultThresholdsCollector(GuiThreadCollector):
    """Policy (a), measured against the current one (`bench/app_bench.py --gc-policy`):
    CPython's own thresholds and collections, only rule 1 (a worker's collection freezes)
    and the idle point's majors (unfreeze, full, freeze: the heap frozen after load)."""

    def set_busy(self, runner: QObject, busy: bool, idle_delay_ms: int = 0) -> None:
        if busy:
            self._busy.add(runner)
        else:
            self._busy.discard(runner)
        if not self._busy and self.on_gui_thread:
            QTimer.singleShot(max(idle_delay_ms, 0), self.idle_point)

    def safe_point(self) -> None:
        return

    def retire(self, records: Iterable[object]) -> int:
        return 0


class _IdleOnlyCollector(GuiThreadCollector):
    """Policy (b): CPython's automatic collections off (so none runs on a worker); the GUI
    thread collects the young generations from a timer when CPython would have, and makes a
    full collection at the idle point once the user paused."""

    def install(self) -> None:
        if self._gui_thread is None:
            self._gui_thread = threading.get_ident()
            self._thresholds = gc.get_threshold()
            gc.disable()
            self._timer = QTimer()
            self._timer.setInterval(COLLECT_INTERVAL_MS)
            self._timer.timeout.connect(self.safe_point)
            self._timer.start()

    def set_busy(self, runner: QObject, busy: bool, idle_delay_ms: int = 0) -> None:
        if busy:
            self._busy.add(runner)
        else:
            self._busy.discard(runner)
        if not self._busy and self.on_gui_thread:
            QTimer.singleShot(max(idle_delay_ms, 0), self.idle_point)

    def safe_point(self) -> None:
        if not self.on_gui_thread:
            return
        young, middle, _old = gc.get_count()
        threshold0, threshold1, _threshold2 = self._thresholds
        if young >= threshold0:
            gc.collect(1 if middle >= threshold1 else 0)
            self.collections += 1

    def idle_point(self) -> None:
        if not self.on_gui_thread or self._busy:
            return
        quiet = time.monotonic() - self._last_input
        if quiet < INPUT_QUIET_S:
            if not self._idle_retry:
                self._idle_retry = True
                QTimer.singleShot(int((INPUT_QUIET_S - quiet) * 1000) + 1, self._retry_idle)
            return
        gc.collect()
        self.majors += 1
        self.collections += 1

    def retire(self, records: Iterable[object]) -> int:
        return 0


class _NoCollector(GuiThreadCollector):
    """Policy (c): nothing special, CPython's collector as it comes."""

    def install(self) -> None:
        return

    def set_busy(self, runner: QObject, busy: bool, idle_delay_ms: int = 0) -> None:
        return

    def safe_point(self) -> None:
        return

    def idle_point(self) -> None:
        return

    def watch_input(self, window: QObject) -> None:
        return

    def retire(self, records: Iterable[object]) -> int:
        return 0


class _NoRetireCollector(GuiThreadCollector):
    """The current policy without rule 4 (no record is untracked through ctypes)."""

    def retire(self, records: Iterable[object]) -> int:
        return 0


POLICIES: dict[str, type[GuiThreadCollector]] = {
    "current": GuiThreadCollector,
    "defaults": _DefaultThresholdsCollector,
    "idle": _IdleOnlyCollector,
    "none": _NoCollector,
    "noretire": _NoRetireCollector,
}


def install(name: str) -> None:
    """Put policy `name` in place of the app's collector (before the app is imported)."""
    if name != "current":
        collector.COLLECTOR = POLICIES[name]()
