#!/usr/bin/env python3
"""GUI responsiveness during a live agent run: the longest event-loop gap, printed.

Runs tests/ui/sessions/bench_responsiveness.py (it reuses the GUI test fixtures: the main
window, the fake provider on 127.0.0.1, the in-memory keyring) offscreen, with its output.

    .venv/bin/python bench/responsiveness_bench.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

if __name__ == "__main__":
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.chdir(REPO_ROOT)
    raise SystemExit(
        pytest.main(
            [
                "-q", "-s", "-p", "no:cacheprovider",
                "-o", "python_files=bench_*.py", "-o", "python_functions=bench_*",
                "tests/ui/sessions/bench_responsiveness.py",
                *sys.argv[1:],
            ]
        )
    )
