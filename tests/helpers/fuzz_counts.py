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


@pytest.fixture(params=[1, pytest.param(10, marks=pytest.mark.slow)], ids=["fast", "long"])
def fuzz_scale(request: pytest.FixtureRequest) -> int:
    """How many times the `make test` number of inputs a fuzz test runs (ten times under
    `-m slow`, i.e. `make test-long`)."""
    return int(request.param)
