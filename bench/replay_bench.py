#!/usr/bin/env python3
"""Replay and verify speed of a recorded 24-call session (3 forwards of 8 model calls:
3 distiller + 2 executor turns, the responder, the two context-map calls).

The session is recorded in process through axllm's OpenAI-compatible client and the app's
scripted model (a `transport`, no sockets), then:

- `verify`: the file-only checks (stored requests against digests, every discover/recall
  re-run on the recorded catalog with the Ax-exact engine, every derived field),
- `replay`: the full offline replay (the agent runs again on the recorded replies, QuickJS
  included) plus the same file checks, in this process;
- `replay_child_warm`: the same replay in a child process (services.agent_runner) started
  ahead and done loading the engine, as the app's warm child is by the time a replay is
  asked for (budget: 1.5 times `replay`);
- `replay_child_cold`: in a child started for the replay (the CLI's case, where the child
  loads the engine while the command reads the file: here nothing overlaps).

    python bench/replay_bench.py [--json] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("AXMEM_SETTINGS_DIR", tempfile.mkdtemp(prefix="axmem-bench-settings-"))
os.environ.setdefault("AXMEM_DATA_DIR", tempfile.mkdtemp(prefix="axmem-bench-data-"))

from axmem_gui.core.providers import ProviderSettings
from axmem_gui.core.session.agent_config import agent_config_from_json
from axmem_gui.core.session.model import Session
from axmem_gui.engine.scripted_model import ScriptedTransport
from axmem_gui.services import sessions
from axmem_gui.services.agent_runner import AgentRunner
from axmem_gui.services.workspace import open_workspace

AGENT = {
    "name": "bench",
    "signature": "userRequest:string -> answer:string",
    "instruction": "Answer operational questions using the guides and team memories.",
    "catalog": {"skills": "all", "memories": "all"},
    "contextMap": {"maxChars": 1600, "infiniteEvolve": True},
    "maxActorSteps": 6,
}
REQUESTS = (
    "How do I ship a new release of the payments SDK?",
    "Checkout is down for EU customers. What do I do first, and who do I page?",
    "How do I roll back a bad deploy of the payments SDK?",
)


def record() -> Session:
    with open_workspace(None, read_only=True) as ws:  # the sample workspace's catalog
        catalog = ws.catalog.snapshot()
    config = agent_config_from_json(dict(AGENT), "bench agent")
    settings = ProviderSettings(
        "openai-compatible", "scripted-a", base_url="http://scripted.invalid/v1", max_retries=0
    )
    return sessions.run_agent(
        config,
        catalog,
        [{"userRequest": r} for r in REQUESTS],
        settings,
        transport=ScriptedTransport(),
    )


def timed(fn: Any, runs: int) -> dict[str, float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return {"median_ms": round(statistics.median(times), 1), "max_ms": round(max(times), 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    doc = record()
    calls = len(doc.exchanges)
    if not doc.complete or calls != 24:
        print(f"expected a complete 24-call session, got {doc.status} with {calls}")
        return 1
    verify = sessions.verify(doc)
    replay = sessions.replay(doc)
    if not (verify.ok and replay.identical):
        sys.stdout.write(verify.render() + replay.render())
        return 1
    warm = AgentRunner(keep_warm=True)
    cold = AgentRunner(keep_warm=False)

    def warm_replay() -> None:
        warm.prewarm()
        warm.wait_warm(60)  # (not timed: the app's child warms while the user works)
        started = time.perf_counter()
        report = sessions.replay(doc, runner=warm)
        warm_times.append((time.perf_counter() - started) * 1000)
        assert report.identical, report.render()

    warm_times: list[float] = []
    try:
        result: dict[str, Any] = {
            "calls": calls,
            "searches": verify.searches,
            "verify": timed(lambda: sessions.verify(doc), args.runs),
            "replay": timed(lambda: sessions.replay(doc), args.runs),
            "replay_child_cold": timed(lambda: sessions.replay(doc, runner=cold), args.runs),
        }
        for _ in range(args.runs):
            warm_replay()
    finally:
        warm.shutdown()
        cold.shutdown()
    result["replay_child_warm"] = {
        "median_ms": round(statistics.median(warm_times), 1),
        "max_ms": round(max(warm_times), 1),
    }
    ratio = result["replay_child_warm"]["median_ms"] / result["replay"]["median_ms"]
    result["warm_over_in_process"] = round(ratio, 2)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"{calls}-call session, {result['searches']} searches: verify "
            f"{result['verify']['median_ms']} ms (max {result['verify']['max_ms']}), replay "
            f"{result['replay']['median_ms']} ms (max {result['replay']['max_ms']}), "
            f"in a child: warm {result['replay_child_warm']['median_ms']} ms "
            f"({result['warm_over_in_process']} x, budget 1.5 x), cold "
            f"{result['replay_child_cold']['median_ms']} ms; median of {args.runs}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
