"""Keep Python's cyclic garbage collection on the GUI thread while session jobs run.

A collection runs in whichever thread happens to allocate when a threshold is crossed. If
that is a task-runner worker and the garbage holds Qt wrappers (closed views, old models),
their C++ objects are destroyed on the worker thread, which crashes Qt. So automatic
collection pauses while a session job runs and the GUI thread collects when the last one
ends. (An app-wide policy in the task runner would cover every feature.)
"""

from __future__ import annotations

import gc

YOUNG_GENERATIONS = 1


class GuiThreadCollection:
    def __init__(self) -> None:
        self._holds = 0
        self._was_enabled = True

    @property
    def holding(self) -> bool:
        return self._holds > 0

    def hold(self) -> None:
        """Call on the GUI thread before submitting a job."""
        if self._holds == 0:
            self._was_enabled = gc.isenabled()
            gc.disable()
        self._holds += 1

    def release(self) -> None:
        """Call on the GUI thread when a job has ended (finished, failed or cancelled)."""
        if self._holds == 0:
            return
        self._holds -= 1
        if self._holds == 0 and self._was_enabled:
            # Only the young generations: what piled up while paused (a full collection
            # costs ~60 ms on a large heap); older garbage is left to the automatic
            # collections, which now run on the GUI thread again (no session job runs).
            gc.collect(YOUNG_GENERATIONS)
            gc.enable()

    def release_all(self) -> None:
        if self._holds:
            self._holds = 1
            self.release()
