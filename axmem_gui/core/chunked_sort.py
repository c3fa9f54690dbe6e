"""A stable sort of a catalog-sized list, about a thousand items per C call.

CPython lets no other thread run during one C call: `sorted` over 111,000 strings holds
the GIL for 100-250 ms, and the GUI thread waits that long even when the sort runs on a
worker. `stable_order` gives exactly `sorted(range(len(keys)), key=keys.__getitem__)`
(ties in position order) from runs of `RUN` items sorted by C, then merged pairwise in
pieces of at most `RUN` items: each piece is the next stretch of the merged output, found
by a binary search (the co-rank of merge-path), and sorted by C, which only merges its two
already-sorted halves. Between two C calls other threads run, and `check` is called (a
job's cancel check)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

#: Items per C call.
RUN = 1024


def no_check() -> None:
    return None


def stable_order(
    keys: Sequence[Any], check: Callable[[], None] = no_check, run: int = RUN
) -> list[int]:
    """The positions of `keys` in ascending order of key, ties in position order: the
    same list as `sorted(range(len(keys)), key=keys.__getitem__)`."""
    if run < 2:
        raise ValueError(f"run must be at least 2, not {run}")
    count = len(keys)
    key = keys.__getitem__
    runs: list[list[int]] = []
    for start in range(0, count, run):
        runs.append(sorted(range(start, min(start + run, count)), key=key))
        check()
    while len(runs) > 1:
        # Adjacent runs only: every position of the left one is below the right one's,
        # so "left first" on a tie is "position order".
        merged = [
            _merge(runs[i], runs[i + 1], key, run, check) for i in range(0, len(runs) - 1, 2)
        ]
        if len(runs) % 2:
            merged.append(runs[-1])
        runs = merged
    return runs[0] if runs else []


def _merge(
    left: list[int],
    right: list[int],
    key: Callable[[int], Any],
    run: int,
    check: Callable[[], None],
) -> list[int]:
    """`left` and `right` (each in order, every position of `left` below `right`'s)
    merged stably, `run` items of output at a time."""
    out: list[int] = []
    i, j = 0, 0
    left_count, right_count = len(left), len(right)
    while i < left_count and j < right_count:
        left_rest, right_rest = left_count - i, right_count - j
        size = min(run, left_rest + right_rest)
        # How many of the next `size` items come from `left`: the least `x` for which
        # left[i + x] does not go before right[i + size - x - 1] (a tie goes left first).
        low, high = max(0, size - right_rest), min(size, left_rest)
        while low < high:
            mid = (low + high) // 2
            if key(left[i + mid]) <= key(right[j + size - mid - 1]):
                low = mid + 1
            else:
                high = mid
        taken = size - low
        # One C call: timsort finds the two sorted halves and merges them (stable, so a
        # tie keeps the left item first).
        out += sorted(left[i : i + low] + right[j : j + taken], key=key)
        i += low
        j += taken
        check()
    # The rest of one side, a run at a time.
    for rest, start in ((left, i), (right, j)):
        for at in range(start, len(rest), run):
            out += rest[at : at + run]
    return out
