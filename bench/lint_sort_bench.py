#!/usr/bin/env python3
"""GUI-thread time per header click of the Lint dock's table, over a report the size of a
10,000-skill / 100,000-memory workspace's (111,000 findings, shaped like the real ones:
one code for most, messages sharing a long prefix, ids that differ).

The table is the dock's: `FindingsModel` behind `FindingsFilterModel`, with the task runner
the dock gives it. Each step clicks a header (as `QHeaderView` does: it sets the sort
indicator) and waits until the rows are shown in that order. Reported per step:

- click_ms: the GUI thread's time in the click itself;
- landing_ms: the GUI thread's time when a column's order lands from the runner;
- shown_ms: click to rows shown (wall clock; the job's time for a first sort);
- paint_ms: the GUI thread's time painting the rows then;
- max_stall_ms: the longest gap between two ticks of a 1 ms timer on the GUI thread from
  the click until the rows are shown (on a shared machine it also holds time the thread
  was preempted);
- with --long-c: longest_c_ms, the job's longest single C call (the GIL held throughout;
  a profiler runs in the job, so shown_ms is slower then).

    python bench/lint_sort_bench.py [--findings N] [--long-c] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QCoreApplication, QEventLoop, Qt, QTimer
from PySide6.QtWidgets import QApplication, QTableView

from axmem_gui.core.lint import Finding
from axmem_gui.ui.collector import COLLECTOR
from axmem_gui.ui.lint import model as lint_model
from axmem_gui.ui.lint import ordering
from axmem_gui.ui.lint.model import HEADERS, FindingsFilterModel, FindingsModel
from axmem_gui.ui.tasks import TaskRunner

ASC, DESC = Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder
#: (column, order) per click, as a user goes: first sorts, a turn around, back again.
CLICKS = [(2, ASC), (3, ASC), (1, ASC), (0, ASC), (4, ASC), (3, DESC), (2, ASC), (-1, ASC)]


def synthetic_report(count: int, seed: int = 7) -> tuple[Finding, ...]:
    rng = random.Random(seed)
    syllables = ("bri", "cal", "dun", "eth", "fen", "jas", "kir", "lo", "mi", "pix", "ros")

    def word() -> str:
        return "".join(rng.choices(syllables, k=rng.randrange(2, 5)))

    findings = []
    for i in range(count):
        memory = rng.random() < 0.9
        entry = f"mem:{word()}-{i}" if memory else f"{word()}-{word()}-{i}"
        roll = rng.random()
        if roll < 0.96:
            call = "recall([id])" if memory else "discover({ skills: [id] })"
            others = ", ".join(f"'{word()}-{rng.randrange(count)}'" for _ in range(3))
            findings.append(Finding(
                "warning", "id-not-searchable", "memory" if memory else "skill", entry,
                f"searching for the id itself does not find this entry with {call}: other "
                f"entries match its words better (it returns {others})",
                "Make the id's words distinctive, and repeat them in the name or description.",
                "id",
            ))
        elif roll < 0.98:
            findings.append(Finding(
                "error", "empty-description", "skill", entry, "the description is empty",
                "Say what the skill does in a sentence.", "description",
            ))
        else:
            findings.append(Finding(
                "info", "terms-beyond-cut", "skill", entry,
                "key terms appear only after the first 600 characters of the content, "
                f"which Ax does not index: '{word()}'",
                "Mention these words in the description or early in the content.", "content",
            ))
    return tuple(findings)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--findings", type=int, default=111_000)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--long-c", action="store_true", help="time the job's C calls")
    args = parser.parse_args(argv)
    sys.setswitchinterval(0.001)  # as app.py sets it
    app = QApplication.instance() or QApplication(["lint-sort-bench"])
    runner = TaskRunner()
    model = FindingsModel(runner)
    proxy = FindingsFilterModel()
    proxy.setSourceModel(model)
    table = QTableView()
    table.setModel(proxy)
    table.setSortingEnabled(True)
    header = table.horizontalHeader()
    header.setSortIndicator(-1, ASC)
    table.resize(1200, 400)
    table.show()
    report = synthetic_report(args.findings)
    COLLECTOR.retire(report)  # as the lint job does with its report's findings
    model.set_findings(report)
    table.setCurrentIndex(proxy.index(0, 0))  # a current row, as after a click in the dock
    QCoreApplication.processEvents()

    landing: list[float] = []
    landed = FindingsModel._on_job_finished

    def timed_landing(self: FindingsModel, job_id: int, result: object) -> None:
        start = time.perf_counter()
        landed(self, job_id, result)
        landing.append((time.perf_counter() - start) * 1000)

    # (Patched on the class before any job lands; the runner calls it through the model.)
    lint_model.FindingsModel._on_job_finished = timed_landing  # type: ignore[method-assign]

    longest_c: list[float] = []
    if args.long_c:
        column_order = ordering.column_order

        def profiled(*a: Any, **k: Any) -> tuple[int, ...]:
            starts: dict[int, float] = {}
            worst = [0.0]

            def profile(frame: Any, event: str, arg: Any) -> None:
                if event == "c_call":
                    starts[id(arg)] = time.perf_counter()
                elif event in ("c_return", "c_exception") and id(arg) in starts:
                    worst[0] = max(worst[0], time.perf_counter() - starts.pop(id(arg)))

            sys.setprofile(profile)  # this thread's
            try:
                return column_order(*a, **k)
            finally:
                sys.setprofile(None)
                longest_c.append(worst[0] * 1000)

        ordering.column_order = profiled

    gap = [time.perf_counter(), 0.0]

    def tick() -> None:
        now = time.perf_counter()
        gap[1] = max(gap[1], now - gap[0])
        gap[0] = now

    timer = QTimer()
    timer.setInterval(1)
    timer.timeout.connect(tick)
    timer.start()
    loop = QEventLoop()

    def spin_until(done: Any) -> None:
        while not done():
            QTimer.singleShot(1, loop.quit)
            loop.exec()

    steps = []
    for column, order in CLICKS:
        spin_until(lambda: not runner.busy)
        landing.clear()
        longest_c.clear()
        gap[:] = [time.perf_counter(), 0.0]
        start = time.perf_counter()
        header.setSortIndicator(column, order)  # what a click on the header does
        click = (time.perf_counter() - start) * 1000
        spin_until(lambda c=column, o=order: (model.sort_column(), model.sort_order()) == (c, o)
                   or (c < 0 and model.sort_column() < 0))
        shown = (time.perf_counter() - start) * 1000
        tick()
        # The rows painted now, with no job running (a paint during a job waits for the GIL
        # at each of its hundreds of Python calls, and the next step would measure that).
        paint_start = time.perf_counter()
        table.viewport().repaint()
        paint = (time.perf_counter() - paint_start) * 1000
        name = "report order" if column < 0 else HEADERS[column].lower()
        steps.append({
            "name": f"{name} {'asc' if order == ASC else 'desc'}",
            "click_ms": round(click, 1),
            "landing_ms": round(landing[0], 1) if landing else None,
            "shown_ms": round(shown, 1),
            "max_stall_ms": round(gap[1] * 1000, 1),
            "paint_ms": round(paint, 1),
            "longest_c_ms": round(max(longest_c), 1) if longest_c else None,
        })
    runner.shutdown()
    result = {"findings": args.findings, "load": os.getloadavg(), "steps": steps}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{args.findings:,} findings, load {os.getloadavg()[0]:.2f}")
        print(f"{'click':20} {'click ms':>9} {'landing ms':>11} {'paint ms':>9} {'shown ms':>9}"
              f" {'stall ms':>9} {'longest C ms':>13}")
        for s in steps:
            landing_ms = "-" if s["landing_ms"] is None else f"{s['landing_ms']:.1f}"
            long_c = "-" if s["longest_c_ms"] is None else f"{s['longest_c_ms']:.1f}"
            print(f"{s['name']:20} {s['click_ms']:9.1f} {landing_ms:>11} {s['paint_ms']:9.1f} "
                  f"{s['shown_ms']:9.1f} {s['max_stall_ms']:9.1f} {long_c:>13}")
    del app
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
