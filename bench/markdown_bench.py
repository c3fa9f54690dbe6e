#!/usr/bin/env python3
"""How long the preview's Markdown renderer takes on pathological input (the inputs of
tests/reliability/test_untrusted_content.py). Target: well under 0.2 s each on a 2-core machine.

    .venv/bin/python bench/markdown_bench.py
"""

from __future__ import annotations

import time

from axmem_gui.ui.editor.markdown_render import render_markdown

#: The same inputs as tests/reliability/test_untrusted_content.py.
PATHOLOGICAL_MARKDOWN = {
    "nested-list": "".join("  " * i + "- item\n" for i in range(600)),
    "nested-quote": ">" * 5000 + " deep quote",
    "nested-brackets": "[" * 30000 + "x" + "]" * 30000,
    "emphasis": "*a " * 40000,
    "backticks": "`" * 50000,
    "table": "| a | b |\n|---|---|\n" + "| 1 | 2 |\n" * 20000,
}


def main() -> int:
    for name, text in PATHOLOGICAL_MARKDOWN.items():
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            render_markdown(text)
            best = min(best, time.perf_counter() - start)
        print(f"{name:16} {len(text):>7} chars  {best * 1000:8.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
