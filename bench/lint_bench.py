#!/usr/bin/env python3
"""Lint at scale (not a test: numbers for the report).

On search_bench's seeded synthetic catalog (10,000 skills and 100,000 memories by
default), measures in one fresh process each:
- `lint_catalog`: the full lint (the CLI's `axmem lint`),
- `LintSession`: a full lint with its own indexes, then one skill edit and one memory
  edit patched in,
- `shared`: what the app runs off the GUI thread: a `LintSession` over the search index
  the app already keeps (`LiveSearch`, built first and not counted), then the same two
  edits patched into that index and synced,
with wall and CPU seconds, the process's peak RSS, the one-minute load average, and the
report's finding count (the same code gives the same report).

    python bench/lint_bench.py [--skills 10000] [--memories 100000] [--seed 7] [--json]

`--check` also runs the lint with one ranked search per entry (the plain definition) and
says whether the reports are identical.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _catalog(skills: int, memories: int, seed: int) -> Any:
    sys.path.insert(0, str(HERE))
    from search_bench import Generator

    from axmem_gui.core.catalog import Catalog

    gen = Generator(seed)
    return Catalog(skills=tuple(gen.skills(skills)), memories=tuple(gen.memories(memories)))


def _timed(fn: Any) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(mode: str, skills: int, memories: int, seed: int) -> dict[str, Any]:
    from axmem_gui.core.lint import LintOptions, lint_catalog
    from axmem_gui.core.lint.incremental import LintSession

    catalog = _catalog(skills, memories, seed)
    before = _rss_mb()
    out: dict[str, Any] = {"mode": mode, "load_1m": os.getloadavg()[0]}
    if mode == "lint_catalog":
        report, wall, cpu = _timed(lambda: lint_catalog(catalog, LintOptions()))
        out.update(wall_s=wall, cpu_s=cpu, findings=len(report.findings))
    elif mode == "session":
        session, wall, cpu = _timed(lambda: LintSession(catalog, LintOptions()))
        out.update(wall_s=wall, cpu_s=cpu, findings=len(session.report.findings))
        skill = catalog.skills[len(catalog.skills) // 2]
        edited = replace(skill, description=skill.description + " rollback canary")
        _, wall, cpu = _timed(lambda: session.patch("skills", {skill.id: edited}))
        out.update(skill_edit_wall_s=wall, skill_edit_cpu_s=cpu)
        memory = catalog.memories[len(catalog.memories) // 2]
        changed = replace(memory, content=memory.content + " rollback canary")
        _, wall, cpu = _timed(lambda: session.patch("memories", {memory.id: changed}))
        out.update(memory_edit_wall_s=wall, memory_edit_cpu_s=cpu)
    elif mode == "shared":
        from axmem_gui.core.ax.profile import load_profile
        from axmem_gui.services.live_search import LiveSearch

        live = LiveSearch(load_profile(), catalog)
        before = _rss_mb()
        indexed = live.lend()
        session, wall, cpu = _timed(
            lambda: LintSession(indexed.catalog, LintOptions(), indexed=indexed)
        )
        out.update(wall_s=wall, cpu_s=cpu, findings=len(session.report.findings))
        skill = catalog.skills[len(catalog.skills) // 2]
        memory = catalog.memories[len(catalog.memories) // 2]
        for name, kind, entry in (
            ("skill", "skills", replace(skill, description=skill.description + " rollback")),
            ("memory", "memories", replace(memory, content=memory.content + " rollback")),
        ):
            live.patch(kind, {entry.id: entry})
            _, wall, cpu = _timed(lambda: session.sync(live.lend()))
            out.update({f"{name}_edit_wall_s": wall, f"{name}_edit_cpu_s": cpu})
    elif mode == "check":
        import axmem_gui.core.lint as lint_package
        from axmem_gui.core.lint.searchability import per_entry_searchability_findings

        fast = lint_catalog(catalog, LintOptions())
        # lint_catalog looks the name up in the package's globals, where it is imported
        # (not re-exported, so mypy does not see it as an attribute)
        lint_package.searchability_findings = per_entry_searchability_findings  # type: ignore[attr-defined]
        plain = lint_catalog(catalog, LintOptions())
        out.update(identical=fast == plain, findings=len(fast.findings))
    out.update(rss_catalog_mb=before, rss_peak_mb=_rss_mb())
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills", type=int, default=10_000)
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.skills, args.memories, args.seed)))
        return 0
    modes = ["lint_catalog", "session", "shared"] + (["check"] if args.check else [])
    results = []
    for mode in modes:
        command = [sys.executable, __file__, "--child", mode, "--skills", str(args.skills),
                   "--memories", str(args.memories), "--seed", str(args.seed)]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        results.append(json.loads(done.stdout))
    if args.json:
        print(json.dumps({"skills": args.skills, "memories": args.memories, "runs": results}))
        return 0
    for r in results:
        figures = ", ".join(
            f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}" for k, v in r.items()
        )
        print(figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
