"""The collection policies `bench/app_bench.py --gc-policy` compares (docs/design.md, "The
garbage collector's policy"): each one the bench offers exists and takes the app's
collector's place, so the measured comparison can be repeated."""

from __future__ import annotations

import gc
import importlib
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.core.catalog import Memory
from axmem_gui.ui import collector

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def bench_modules(monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    monkeypatch.syspath_prepend(str(BENCH))
    app_bench = importlib.import_module("app_bench")
    gc_policies = importlib.import_module("gc_policies")
    monkeypatch.setattr(collector, "COLLECTOR", collector.COLLECTOR)  # restored after the test
    return app_bench, gc_policies


def test_every_offered_policy_exists(bench_modules: tuple[Any, Any]) -> None:
    app_bench, gc_policies = bench_modules
    offered = set(app_bench.GC_POLICIES)
    assert offered == {"current", *gc_policies.POLICIES}
    for policy in gc_policies.POLICIES.values():
        assert isinstance(policy(), collector.GuiThreadCollector)


def test_a_policy_takes_the_collectors_place(bench_modules: tuple[Any, Any]) -> None:
    """`noretire` is the app's collector without its untracking: records stay tracked."""
    _app_bench, gc_policies = bench_modules
    app_collector = collector.COLLECTOR
    gc_policies.install("current")
    assert collector.COLLECTOR is app_collector
    gc_policies.install("noretire")
    assert collector.COLLECTOR is not app_collector
    memories = tuple(Memory(f"m{i}", "content") for i in range(3))
    assert collector.COLLECTOR.retire(memories) == 0
    assert all(map(gc.is_tracked, memories))
    assert app_collector.retire(memories) == len(memories) + 1
    assert not any(map(gc.is_tracked, memories))
