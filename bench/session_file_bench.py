#!/usr/bin/env python3
"""Cost of the session file edge: reading (JSON parse + validation + the typed model)
and writing back a `.axsession.json`, on the shipped sample and on a big synthetic one.

The big session is the sample with its exchanges repeated (renumbered) to about
`--megabytes` MB: a long transcript, the case that matters for opening and importing.

    python bench/session_file_bench.py [--json] [--runs 5] [--megabytes 25]
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import time
from importlib import resources
from typing import Any

from axmem_gui.core.session.format import session_from_json_text, session_to_json_text

SAMPLE = "session-ops-assistant.axsession.json"


def _sample_text() -> str:
    return (resources.files("axmem_gui") / "sample" / SAMPLE).read_text(encoding="utf-8")


def big_session_text(megabytes: float) -> str:
    """The sample with its exchanges repeated to about `megabytes` MB (still valid)."""
    base = json.loads(_sample_text())
    exchanges = base["exchanges"]
    per_copy = len(json.dumps(exchanges))
    copies = max(1, int(megabytes * 1_000_000 / per_copy))
    grown: list[Any] = []
    for n in range(copies):
        for ex in exchanges:
            item = copy.deepcopy(ex) if n else ex
            item["index"] = len(grown)
            grown.append(item)
    base["exchanges"] = grown
    return json.dumps(base, indent=1, ensure_ascii=False) + "\n"


def timed(fn: Any, runs: int) -> dict[str, float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return {"median_ms": round(statistics.median(times), 1), "max_ms": round(max(times), 1)}


def measure(text: str, runs: int) -> dict[str, Any]:
    doc = session_from_json_text(text, "bench")
    written = session_to_json_text(doc)
    return {
        "bytes": len(text.encode("utf-8")),
        "round_trip_identical": written == text,
        "read": timed(lambda: session_from_json_text(text, "bench"), runs),
        "write": timed(lambda: session_to_json_text(doc), runs),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--megabytes", type=float, default=25.0)
    args = parser.parse_args(argv)
    result = {
        "sample": measure(_sample_text(), args.runs),
        "big": measure(big_session_text(args.megabytes), max(1, args.runs // 2)),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    for name, r in result.items():
        print(
            f"{name} ({r['bytes'] / 1e6:.1f} MB): read {r['read']['median_ms']} ms "
            f"(max {r['read']['max_ms']}), write {r['write']['median_ms']} ms "
            f"(max {r['write']['max_ms']}), round trip identical: {r['round_trip_identical']}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
