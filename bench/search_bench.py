#!/usr/bin/env python3
"""Speed of the Ax-exact search and renderer (stdlib + project only).

Measures, on deterministic synthetic catalogs (seeded) or on given files:
- per `discover({ skills })` call over 10,000 skills: p50 / p95 / mean (ms),
- per `recall([...])` call over 100,000 memories: p50 / p95 / mean (ms),
- index build time for the memories (100,000) and the skills,
- `### Available Skills` section render time at 10,000 skills (executor, warm keys).

Targets on a 2-core machine: discover p95 <= 2 ms, recall p95 <= 20 ms, render <= 20 ms,
build <= 2 s.

    python bench/search_bench.py [--json] [--seed 7] [--skills-count 10000]
        [--memories-count 100000] [--calls 300]
    python bench/search_bench.py --skills S.json --memories M.json --queries Q.json
    python bench/search_bench.py --dump DIR        # write the synthetic data for the TS bench
    python bench/search_bench.py --compare ts.json # check result ids against the TS bench

A queries file is {"discover": [[search strings], ...], "recall": [[...], ...]}. With
`--json` the output is {"discover": {"p50_ms", "p95_ms", "mean_ms"}, "recall": {...},
"render_ms", "build_ms", "discoverResults": [result ids per call], "recallResults": [...],
...}. `bench/ts_search_bench.mjs` runs Ax's own TypeScript search on the same files.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from axmem_gui.core.ax.profile import load_profile
from axmem_gui.core.ax.render import StageConfig, render_skills_section
from axmem_gui.core.ax.search import MemorySearch, SkillSearch
from axmem_gui.core.catalog import Catalog, Memory, Skill
from axmem_gui.core.formats import catalog_from_json_text

SYLLABLES = [
    "ka", "lo", "mi", "ru", "sen", "tor", "vel", "dra", "pix", "quo", "bel", "zan", "fen",
    "gri", "hol", "jas", "kir", "lum", "mor", "nix", "pal", "ros", "sul", "tam", "ux", "vor",
    "wen", "yal", "zo", "bri", "cal", "dun", "eth", "fro", "gal", "hun", "ist", "jor",
]  # fmt: skip
FILLER = ["how", "do", "the", "a", "for", "with", "and", "of", "to", "in", "2024"]


class Generator:
    """Deterministic pseudo-text with a Zipf-like word distribution."""

    def __init__(self, seed: int, vocabulary: int = 6000) -> None:
        self.rng = random.Random(seed)
        words: dict[str, None] = {}
        while len(words) < vocabulary:
            count = self.rng.choice((2, 2, 3, 3, 4))
            words.setdefault("".join(self.rng.choice(SYLLABLES) for _ in range(count)))
        self.words = list(words)
        weights = [1.0 / (rank + 8) for rank in range(len(self.words))]
        total = 0.0
        self.cumulative = []
        for w in weights:
            total += w
            self.cumulative.append(total)

    def pick(self, count: int) -> list[str]:
        return self.rng.choices(self.words, cum_weights=self.cumulative, k=count)

    def sentence(self, low: int, high: int) -> str:
        words = self.pick(self.rng.randint(low, high))
        for i in range(0, len(words), 5):
            if self.rng.random() < 0.5:
                words[i] = self.rng.choice(FILLER)
        return " ".join(words)

    def skills(self, count: int) -> list[Skill]:
        out = []
        for i in range(count):
            a, b = self.pick(2)
            name = " ".join(w.capitalize() for w in self.pick(self.rng.randint(2, 4)))
            description = self.sentence(5, 15) if self.rng.random() < 0.8 else ""
            out.append(Skill(f"{a}-{b}-{i}", name, description, self.sentence(30, 150)))
        return out

    def memories(self, count: int) -> list[Memory]:
        return [
            Memory(f"mem:{self.pick(1)[0]}-{i}", self.sentence(8, 40)) for i in range(count)
        ]

    def calls(self, count: int) -> list[list[str]]:
        return [
            [self.sentence(1, 4) for _ in range(self.rng.randint(1, 3))] for _ in range(count)
        ]


def _stats(samples_ms: list[float]) -> dict[str, float]:
    ordered = sorted(samples_ms)
    p95 = ordered[min(len(ordered) - 1, max(0, round(0.95 * len(ordered)) - 1))]
    return {
        "p50_ms": round(statistics.median(ordered), 4),
        "p95_ms": round(p95, 4),
        "mean_ms": round(statistics.fmean(ordered), 4),
        "calls": len(ordered),
    }


def _read_catalog(path: Path) -> Catalog:
    return catalog_from_json_text(path.read_text(encoding="utf-8"), str(path))


def load_inputs(args: argparse.Namespace) -> tuple[list[Skill], list[Memory], dict[str, Any]]:
    gen = Generator(args.seed)
    skills = (
        list(_read_catalog(args.skills).skills) if args.skills else gen.skills(args.skills_count)
    )
    memories = (
        list(_read_catalog(args.memories).memories)
        if args.memories
        else gen.memories(args.memories_count)
    )
    if args.queries:
        queries = json.loads(args.queries.read_text(encoding="utf-8"))
    else:
        queries = {"discover": gen.calls(args.calls), "recall": gen.calls(args.calls)}
    return skills, memories, queries


def dump(folder: Path, skills: list[Skill], memories: list[Memory], queries: Any) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "skills.json").write_text(
        json.dumps({"skillsCatalog": [s.to_ax() for s in skills]}, ensure_ascii=False),
        encoding="utf-8",
    )
    (folder / "memories.json").write_text(
        json.dumps({"memoriesCatalog": [m.to_ax() for m in memories]}, ensure_ascii=False),
        encoding="utf-8",
    )
    (folder / "queries.json").write_text(json.dumps(queries, ensure_ascii=False), "utf-8")


def run(skills: list[Skill], memories: list[Memory], queries: Any) -> dict[str, Any]:
    profile = load_profile()

    started = time.perf_counter()
    memory_search = MemorySearch.indexed(memories, profile)
    build_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    skill_search = SkillSearch.indexed(skills, profile)
    build_skills_ms = (time.perf_counter() - started) * 1000

    discover_ms: list[float] = []
    discover_results: list[list[str]] = []
    for call in queries.get("discover", []):
        started = time.perf_counter()
        result, _ = skill_search.discover(call)
        discover_ms.append((time.perf_counter() - started) * 1000)
        discover_results.append(list(result.result_ids))

    recall_ms: list[float] = []
    recall_results: list[list[str]] = []
    for call in queries.get("recall", []):
        started = time.perf_counter()
        result, _ = memory_search.recall(call, ())
        recall_ms.append((time.perf_counter() - started) * 1000)
        recall_results.append(list(result.result_ids))

    config = StageConfig(memories_mode=bool(memories), relevance_hints=True)
    render_runs: list[float] = []
    for _ in range(7):
        started = time.perf_counter()
        render_skills_section(skills, "executor", profile, config)
        render_runs.append((time.perf_counter() - started) * 1000)

    return {
        "skills": len(skills),
        "memories": len(memories),
        "discover": _stats(discover_ms) if discover_ms else None,
        "recall": _stats(recall_ms) if recall_ms else None,
        "render_ms": round(statistics.median(render_runs), 3),
        "render_first_ms": round(render_runs[0], 3),
        "build_ms": round(build_ms, 1),
        "build_skills_ms": round(build_skills_ms, 1),
        "discoverResults": discover_results,
        "recallResults": recall_results,
    }


def compare(ours: dict[str, Any], theirs_path: Path) -> list[str]:
    theirs = json.loads(theirs_path.read_text(encoding="utf-8"))
    problems = []
    for key in ("discoverResults", "recallResults"):
        for i, (a, b) in enumerate(zip(ours[key], theirs.get(key, []), strict=False)):
            if a != b:
                problems.append(f"{key}[{i}]: python {a} != typescript {b}")
    return problems


TARGETS = {"discover_p95_ms": 2.0, "recall_p95_ms": 20.0, "render_ms": 20.0, "build_ms": 2000.0}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--skills-count", type=int, default=10_000)
    parser.add_argument("--memories-count", type=int, default=100_000)
    parser.add_argument("--calls", type=int, default=300, help="discover and recall calls each")
    parser.add_argument("--skills", type=Path, help="skills catalog JSON instead of synthetic")
    parser.add_argument("--memories", type=Path, help="memories catalog JSON")
    parser.add_argument("--queries", type=Path, help='{"discover": [[...]], "recall": [[...]]}')
    parser.add_argument("--dump", type=Path, metavar="DIR", help="write the inputs and exit")
    parser.add_argument("--compare", type=Path, metavar="TS.json",
                        help="check result ids against ts_search_bench.mjs --json output")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    skills, memories, queries = load_inputs(args)
    if args.dump:
        dump(args.dump, skills, memories, queries)
        print(f"wrote skills.json, memories.json, queries.json to {args.dump}", file=sys.stderr)
        return 0
    report = run(skills, memories, queries)
    problems = compare(report, args.compare) if args.compare else []
    if args.json:
        json.dump(report, sys.stdout)
        sys.stdout.write("\n")
    else:
        d, r = report["discover"] or {}, report["recall"] or {}
        print(f"catalog: {report['skills']} skills, {report['memories']} memories")
        print(f"discover: p50 {d.get('p50_ms')} ms  p95 {d.get('p95_ms')} ms  "
              f"mean {d.get('mean_ms')} ms  ({d.get('calls')} calls; target p95 <= 2 ms)")
        print(f"recall:   p50 {r.get('p50_ms')} ms  p95 {r.get('p95_ms')} ms  "
              f"mean {r.get('mean_ms')} ms  ({r.get('calls')} calls; target p95 <= 20 ms)")
        print(f"render ### Available Skills: {report['render_ms']} ms "
              f"(first {report['render_first_ms']} ms; target <= 20 ms)")
        print(f"index build: memories {report['build_ms']} ms (target <= 2000 ms), "
              f"skills {report['build_skills_ms']} ms")
    if args.compare:
        if problems:
            print("\n".join(problems[:20]), file=sys.stderr)
            print(f"{len(problems)} calls differ from the TypeScript results", file=sys.stderr)
            return 1
        print("result ids identical to the TypeScript results", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
