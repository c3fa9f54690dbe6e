"""`stable_order`: exactly Python's stable sort, made a run of items per C call."""

from __future__ import annotations

import random
from typing import Any

import pytest

from axmem_gui.core import chunked_sort
from axmem_gui.core.chunked_sort import stable_order


def _keys(rng: random.Random, count: int, kind: int) -> list[Any]:
    if kind == 0:  # few distinct values: long runs of ties
        return [rng.randrange(3) for _ in range(count)]
    if kind == 1:
        letters = "aAb\ue000"
        return ["".join(rng.choices(letters, k=rng.randrange(4))) for _ in range(count)]
    if kind == 2:  # already in order, then reversed: one side of a merge runs out first
        ordered = sorted(rng.randrange(50) for _ in range(count))
        return ordered if rng.random() < 0.5 else ordered[::-1]
    texts = [rng.choice(("x\ud800", "\U0001f350", "\uffff", "")) for _ in range(count)]
    return [t.encode("utf-16-be", "surrogatepass") for t in texts]


def test_stable_order_is_pythons_stable_sort() -> None:
    rng = random.Random(7)
    for trial in range(1500):
        count = rng.randrange(0, 120)
        keys = _keys(rng, count, trial % 4)
        run = rng.randrange(2, 17)
        assert stable_order(keys, run=run) == sorted(range(count), key=keys.__getitem__), (
            keys, run,
        )


def test_no_c_sort_is_given_more_than_a_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each `sorted` call (one C call, the GIL held throughout) gets at most `run` items,
    and the cancel check runs between them."""
    sizes: list[int] = []

    def counting(items: list[int], **kwargs: Any) -> list[int]:
        sizes.append(len(items))
        return sorted(items, **kwargs)

    monkeypatch.setattr(chunked_sort, "sorted", counting, raising=False)
    rng = random.Random(3)
    keys = [rng.randrange(1000) for _ in range(5000)]
    checks: list[int] = []
    order = stable_order(keys, check=lambda: checks.append(1), run=256)
    assert order == [i for _, i in sorted((k, i) for i, k in enumerate(keys))]
    assert max(sizes) <= 256 and sum(sizes) > 5000  # runs, then merge pieces
    assert len(checks) >= len(sizes)


def test_a_run_below_two_is_refused() -> None:
    with pytest.raises(ValueError, match="run must be at least 2"):
        stable_order([1, 2], run=1)
