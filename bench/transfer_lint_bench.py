"""Timings of the GUI paths at scale (not a test: numbers for the report and for bench/).

    QT_QPA_PLATFORM=offscreen .venv/bin/python -m bench.transfer_lint_bench [N]

1. Import N SKILL.md folders through File > Import's path (plan job, preview answered at
   once, apply job, undo step), with the longest event-loop stall while it runs.
2. Lint of the resulting workspace (N + 16 skills) by the live linter, with its stall.
3. Undo and redo of that import (they run on the GUI thread).
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QElapsedTimer, QEventLoop, QTimer
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import QApplication

from axmem_gui.services.workspace import init_workspace, open_workspace
from axmem_gui.ui.controller import WorkspaceController
from axmem_gui.ui.lint.install import LINT
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.settings import AppSettings
from axmem_gui.ui.transfer.actions import TRANSFER
from axmem_gui.ui.transfer.preview_dialog import ImportPreviewDialog
from axmem_gui.ui.wiring import install_features

WORDS = [
    "deploy",
    "release",
    "incident",
    "database",
    "backup",
    "restore",
    "invoice",
    "customer",
    "billing",
    "refund",
    "report",
    "metrics",
    "alert",
    "oncall",
    "review",
    "merge",
    "branch",
    "build",
    "cache",
    "queue",
    "worker",
    "schedule",
    "email",
    "docs",
]


def write_folders(root: Path, n: int) -> None:
    for i in range(n):
        folder = root / f"skill-{i:05d}"
        folder.mkdir(parents=True)
        a, b, c = WORDS[i % len(WORDS)], WORDS[(i * 7) % len(WORDS)], WORDS[(i * 13) % len(WORDS)]
        (folder / "SKILL.md").write_text(
            f"---\nname: {a.title()} {b} {i}\ndescription: How to {a} the {b} for {c} case {i}\n"
            f"---\n\n# {a.title()} {b}\n\nSteps for {c} number {i}.\n",
            encoding="utf-8",
        )


class StallMeter:
    """The longest gap between 10 ms ticks: how long the GUI could not respond."""

    def __init__(self) -> None:
        self.worst = 0
        self._clock = QElapsedTimer()
        self._timer = QTimer()
        self._timer.setInterval(10)
        self._timer.timeout.connect(self._tick)

    def start(self) -> None:
        self.worst = 0
        self._clock.start()
        self._timer.start()

    def _tick(self) -> None:
        self.worst = max(self.worst, self._clock.restart())

    def stop(self) -> int:
        self._timer.stop()
        return self.worst


def wait_until(predicate: Callable[[], bool], timeout_s: float = 600) -> None:
    end = time.monotonic() + timeout_s
    loop = QEventLoop()
    while not predicate() and time.monotonic() < end:
        QTimer.singleShot(5, loop.quit)
        loop.exec()


def main(n: int) -> int:
    app = QApplication.instance() or QApplication(["bench"])
    work = Path(tempfile.mkdtemp(prefix="axmem-bench-"))
    write_folders(work / "skills", n)
    path = work / "w.axmem"
    init_workspace(path, sample=True).close()
    controller = WorkspaceController(open_workspace(path))
    window = MainWindow(
        controller, AppSettings(work / "s.ini"), QUndoStack(), open_workspace, init_workspace
    )
    install_features(window)
    window.show()
    actions, lint = window.feature(TRANSFER), window.feature(LINT)
    wait_until(lambda: lint.linter.outcome is not None and not lint.linter.running)

    marks: dict[str, float] = {}

    def answer(cls: type, parent: object, preview: object, policy: str = "skip") -> object:
        marks["planned"] = time.perf_counter()
        return preview.plan("skip")  # type: ignore[attr-defined]

    ImportPreviewDialog.ask = classmethod(answer)  # type: ignore[method-assign,assignment]
    meter = StallMeter()
    meter.start()
    start = time.perf_counter()
    actions.import_paths([work / "skills"])
    wait_until(lambda: actions.last_result is not None and not actions.busy)
    done = time.perf_counter()
    stall = meter.stop()
    assert actions.last_result is not None
    print(
        f"import {n:,} SKILL.md folders: {done - start:.2f} s total "
        f"(read+plan {marks['planned'] - start:.2f} s, apply {done - marks['planned']:.2f} s), "
        f"longest GUI stall {stall} ms, wrote {len(actions.last_result.changes):,}"
    )

    meter.start()
    start = time.perf_counter()
    wait_until(
        lambda: (
            not lint.linter.running
            and lint.linter.outcome is not None
            and lint.linter.outcome.report.skills == n + 16
        )
    )
    outcome = lint.linter.outcome
    assert outcome is not None
    print(
        f"lint {outcome.report.skills:,} skills (job, incl. reading the workspace): "
        f"{outcome.seconds:.2f} s; {len(outcome.report.findings):,} findings; "
        f"longest GUI stall {meter.stop()} ms"
    )

    start = time.perf_counter()
    window.undo_stack.undo()
    undo = time.perf_counter() - start
    start = time.perf_counter()
    window.undo_stack.redo()
    redo = time.perf_counter() - start
    print(f"undo import {undo:.2f} s, redo {redo:.2f} s (GUI thread)")
    window.close()
    controller.close()
    del app
    return 0


if __name__ == "__main__":
    raise SystemExit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000))
