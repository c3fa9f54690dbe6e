#!/usr/bin/env python3
"""How long the preview's Markdown renderer takes on pathological input (the inputs of
tests/reliability/test_untrusted_content.py). Target: well under 0.2 s each on a 2-core machine.

    .venv/bin/python bench/markdown_bench.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from axmem_gui.ui.editor.markdown_render import render_markdown
from tests.reliability.test_untrusted_content import PATHOLOGICAL_MARKDOWN


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
