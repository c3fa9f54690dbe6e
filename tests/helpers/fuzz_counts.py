"""How many fuzz inputs each fuzz test ran, summed and shown at the end of the run."""

from __future__ import annotations

from collections import Counter

import pytest

_COUNTS: Counter[str] = Counter()


@pytest.fixture
def fuzz_counts() -> Counter[str]:
    return _COUNTS


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _COUNTS:
        parts = ", ".join(f"{name} {n:,}" for name, n in sorted(_COUNTS.items()))
        terminalreporter.write_line(
            f"fuzz inputs: {sum(_COUNTS.values()):,} in total ({parts})"
        )
