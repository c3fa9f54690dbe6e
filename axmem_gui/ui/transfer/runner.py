"""The window's one task runner, shared by the features that run slow work."""

from __future__ import annotations

from typing import TYPE_CHECKING

from axmem_gui.ui.tasks import TaskRunner

if TYPE_CHECKING:
    from axmem_gui.ui.main_window import MainWindow


def window_runner(window: MainWindow) -> TaskRunner:
    """`window.task_runner`, created on first use (the window owns it, so its thread pool
    waits for running jobs when the window goes away)."""
    runner = getattr(window, "task_runner", None)
    if isinstance(runner, TaskRunner):
        return runner
    runner = TaskRunner(parent=window)
    window.task_runner = runner
    return runner
