"""The source lines PySide6's import hook leaves in `linecache` go when the runner idles."""

from __future__ import annotations

import linecache

from PySide6.QtCore import QObject, Signal

from axmem_gui import app as app_module
from axmem_gui.app import forget_module_sources


class _Runner(QObject):
    busy_changed = Signal(bool)


def test_idle_runner_empties_linecache(qapp: object) -> None:
    runner = _Runner()
    forget_module_sources(runner.busy_changed)
    assert linecache.getline(app_module.__file__, 1)
    runner.busy_changed.emit(True)
    assert app_module.__file__ in linecache.cache  # busy: kept
    runner.busy_changed.emit(False)
    assert app_module.__file__ not in linecache.cache
    assert linecache.getline(app_module.__file__, 1)  # read again when asked
