"""A cancel request that any thread may make and any layer may watch.

The GUI holds one per run and cancels it from its thread; the run's services hand it on
to whatever does the work (`on_cancel` links it to the Ax runtime's own token, which also
aborts a model call in flight). Pure: no Qt, no Ax runtime.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class CancelFlag:
    """Set once, by `cancel`; each callback of `on_cancel` runs once, on the thread that
    cancels (or at once, on the caller's thread, for a flag already set)."""

    __slots__ = ("_callbacks", "_event", "_lock")

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], None]] = []

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def cancel(self) -> None:
        with self._lock:
            if self._event.is_set():
                return
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def on_cancel(self, callback: Callable[[], None]) -> None:
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(callback)
                return
        callback()
