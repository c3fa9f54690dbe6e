#!/usr/bin/env python3
"""What the search index costs the process besides its query speed (stdlib + project only).

On the synthetic catalogs of `search_bench.py` (seeded; 10,000 skills and 100,000 memories
by default), with Python's cycle collector left on as the app runs it:
- build time of both indexes (`SkillSearch.indexed`, `MemorySearch.indexed`), median of runs,
- objects the cycle collector tracks that the indexes own (`gc.get_objects()` before/after),
- time of one full `gc.collect()` with the catalogs alone, then with the indexes alive too,
- the indexes' memory: RSS growth and tracemalloc's count of the bytes they hold.

Targets: build <= 2 s, tracked objects of the index in the hundreds (not per document),
a full collection a few ms more with the index than without.

    python bench/index_memory_bench.py [--json] [--skills-count 10000]
        [--memories-count 100000] [--runs 3]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from search_bench import Generator

from axmem_gui.core.ax.profile import load_profile
from axmem_gui.core.ax.search import MemorySearch, SkillSearch


def _rss_mb() -> float:
    """Resident set size now (Linux), in MB; 0.0 where /proc is absent."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _collect_ms(runs: int = 5) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        gc.collect()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def run(skills_count: int, memories_count: int, runs: int) -> dict[str, Any]:
    profile = load_profile()
    gen = Generator(7)
    skills = gen.skills(skills_count)
    memories = gen.memories(memories_count)

    build_ms: list[float] = []
    for _ in range(runs):
        gc.collect()
        started = time.perf_counter()
        built = (
            SkillSearch.indexed(skills, profile),
            MemorySearch.indexed(memories, profile),
        )
        build_ms.append((time.perf_counter() - started) * 1000)
        del built
    gc.collect()

    tracked_before = len(gc.get_objects())
    collect_catalog_ms = _collect_ms()
    rss_before = _rss_mb()
    searches = (SkillSearch.indexed(skills, profile), MemorySearch.indexed(memories, profile))
    gc.collect()
    rss_after = _rss_mb()
    tracked_after = len(gc.get_objects())
    collect_index_ms = _collect_ms()
    del searches
    gc.collect()
    tracemalloc.start()
    traced_before = tracemalloc.get_traced_memory()[0]
    searches = (SkillSearch.indexed(skills, profile), MemorySearch.indexed(memories, profile))
    gc.collect()
    traced = tracemalloc.get_traced_memory()[0] - traced_before
    tracemalloc.stop()
    del searches
    return {
        "skills": skills_count,
        "memories": memories_count,
        "build_ms": round(statistics.median(build_ms), 1),
        "build_runs_ms": [round(ms, 1) for ms in build_ms],
        "gc_enabled_after_build": gc.isenabled(),
        "index_tracked_objects": tracked_after - tracked_before,
        "gc_collect_catalog_only_ms": round(collect_catalog_ms, 2),
        "gc_collect_with_index_ms": round(collect_index_ms, 2),
        "index_rss_mb": round(rss_after - rss_before, 1),
        "index_traced_mb": round(traced / 2**20, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills-count", type=int, default=10_000)
    parser.add_argument("--memories-count", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3, help="builds timed (median)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = run(args.skills_count, args.memories_count, args.runs)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key:>28}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
