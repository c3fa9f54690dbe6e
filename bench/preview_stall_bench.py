#!/usr/bin/env python3
"""The longest GUI-thread stall while the markdown preview renders hostile markdown
(issue: untrusted content; target: no stall over 100 ms whatever the input). The inputs
are the shapes that were once slow: quadratic block shapes, huge and wide tables, deep
lists and quotes, link brackets Python-Markdown scans to the end, dense emphasis, many
headings, images, links and code languages, long lines and 1 MB of text.

A 1 ms timer on the GUI thread records the gaps between its ticks while the preview
renders each input; the longest gap is the longest time the event loop could not run
(typing, painting). On a shared machine a gap also holds time the thread was preempted,
so the CPU time the GUI thread spent between two ticks is reported too ("work"): that is
the part the preview is responsible for. Headless (offscreen Qt).

    python bench/preview_stall_bench.py [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication

from axmem_gui.ui.editor.preview import SafeMarkdownBrowser


def _table(columns: int, rows: int) -> str:
    header = "|" + "a|" * columns + "\n|" + "-|" * columns + "\n"
    return header + ("|" + "1|" * columns + "\n") * rows


INPUTS = {
    "setext a\\n=\\n x25000": "a\n=\n" * 25000,
    "hashes #\\n x50000": "#\n" * 50000,
    "rules ---\\n x25000": "---\n" * 25000,
    "emphasis '*a ' x40000": "*a " * 40000,
    "backticks x50000": "`" * 50000,
    "brackets 30000 deep": "[" * 30000 + "x" + "]" * 30000,
    "table 20000 rows": "| a | b |\n|---|---|\n" + "| 1 | 2 |\n" * 20000,
    "nested list 600": "".join("  " * i + "- item\n" for i in range(600)),
    "quote 5000 deep": ">" * 5000 + " deep quote",
    "fenced code 50000 lines": "```\n" + "x = 1\n" * 50000 + "```\n",
    "images /dev/zero x2000": "![z](/dev/zero) " * 2000,
    "ordinary 100 KB": (
        "# Title\n\nSome *text* with [a link](https://example.org) and `code`.\n\n"
        "- one\n- two\n\n```python\nprint('x')\n```\n\n"
    )
    * 1000,
    "one 100 KB line": "word " * 20000,
    "1 MB of prose": ("Some words in a sentence, " * 4 + "\n") * 10000,
    "table 300 columns": _table(300, 30),
    "table 20 columns": _table(20, 2000),
    "open link parens [a]( x20000": "[a](" * 20000,
    "open image brackets ![ x3000": ("![" * 30 + "\n") * 100,
    "dense emphasis lines": ("*a* _b_ " * 10 + "\n") * 1200,
    "quote-list ladder": ("> - " * 19 + "x\n") * 1200,
    "deep list 4 spaces": "".join("    " * (i % 40) + "- item\n" for i in range(8000)),
    "headings x20000": "".join(f"{'#' * (1 + i % 6)} h{i}\n" for i in range(20000)),
    "links x7000": "[a](http://x) " * 7000,
    "images x6000 lines": "![a](b.png)\n" * 6000,
    "fences x2000 languages": "".join(
        f"```{lang}\nx\n```\n" for lang in ["python", "rust", "js", "c", "go"] * 400
    ),
    "empty code lines": "```\n" + "\n" * 99990 + "```\n",
    "paragraphs x33000": "a\n\n" * 33000,
}


def measure(app: QApplication, browser: SafeMarkdownBrowser, text: str) -> dict[str, float]:
    gaps: list[float] = []
    works: list[float] = []
    last = [time.perf_counter(), time.thread_time()]

    def tick() -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        gaps.append(now - last[0])
        works.append(cpu - last[1])
        last[0], last[1] = now, cpu

    timer = QTimer()
    timer.setInterval(1)
    timer.timeout.connect(tick)
    loop = QEventLoop()
    browser.render_finished.connect(loop.quit)
    timer.start()
    start, start_cpu = time.perf_counter(), time.thread_time()
    last[0], last[1] = start, start_cpu
    browser.set_markdown_source(text, immediately=True)
    call = time.perf_counter() - start
    call_cpu = time.thread_time() - start_cpu
    if browser.rendering:
        loop.exec()
    total = time.perf_counter() - start
    timer.stop()
    tick()
    browser.render_finished.disconnect(loop.quit)
    return {
        "chars": len(text),
        "call_ms": call * 1000,
        "longest_stall_ms": max([call, *gaps]) * 1000,
        "longest_work_ms": max([call_cpu, *works]) * 1000,
        "total_s": total,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
    browser = SafeMarkdownBrowser()
    browser.resize(700, 900)
    browser.show()
    results = {name: measure(app, browser, text) for name, text in INPUTS.items()}
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for name, r in results.items():
            print(
                f"{name:26} {r['chars']:>8,} chars  stall {r['longest_stall_ms']:6.1f} ms"
                f"  work {r['longest_work_ms']:6.1f} ms  (call {r['call_ms']:5.1f} ms, "
                f"done in {r['total_s']:5.2f} s)"
            )
        worst = max(results.items(), key=lambda kv: kv[1]["longest_stall_ms"])
        busiest = max(results.items(), key=lambda kv: kv[1]["longest_work_ms"])
        print(f"longest GUI-thread stall: {worst[1]['longest_stall_ms']:.1f} ms ({worst[0]})")
        print(
            f"longest GUI-thread work between two event-loop turns: "
            f"{busiest[1]['longest_work_ms']:.1f} ms ({busiest[0]}); load average "
            f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
