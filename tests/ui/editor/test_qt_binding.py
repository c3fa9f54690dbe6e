"""Guards the Qt binding version: PySide6 6.12.0 drops a reference to the value that
`SignalInstance.emit()` returns (True), so a few thousand emits from Python abort the
interpreter ("bool_dealloc"). pyproject.toml excludes that release; this catches a venv
that has it anyway."""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication


class _Emitter(QObject):
    ping = Signal(str)


def test_emit_keeps_reference_counts(qapp: QApplication) -> None:
    emitter = _Emitter()
    received: list[str] = []
    emitter.ping.connect(received.append)
    before = sys.getrefcount(True)
    for _ in range(500):
        emitter.ping.emit("x")
    # The faulty release loses one reference per emit (-500 here); allow unrelated noise.
    assert sys.getrefcount(True) - before > -10
    assert len(received) == 500
