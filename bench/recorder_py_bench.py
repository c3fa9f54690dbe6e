#!/usr/bin/env python3
"""Cost of the Python recorder (axmem_gui.recorder) on an app agent like the recorder's
example (one function tool, a skills and a memories catalog, a context map; 2 forwards,
15 model calls), on the real axllm and the studio's scripted model in process (a `transport`,
no sockets, so the model answers in well under a millisecond and the recorder's share shows):

- the time per model call without and with the recorder (the file written after each
  forward included), and the recorder's own time per call (what it measures itself);
- the offline replay time of the recorded session (both forwards, every digest checked).

Target: recording adds < 5 ms per model call; the replay takes < 1 s. The machine may be
shared (2 CPUs): read the medians, run it twice.

    python bench/recorder_py_bench.py [--json] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import axllm
from axllm import AxQuickJsCodeRuntime

from axmem_gui.engine.scripted_model import ScriptedTransport
from axmem_gui.recorder import SessionRecorder, SessionReplayer

SIGNATURE = "question:string -> answer:string"
QUESTIONS = ("Who owns the checkout incident?", "Who is on call for checkout right now?")
FORWARD = {"max_actor_steps": 6}


def options() -> dict[str, Any]:
    def lookup(args: dict[str, Any]) -> dict[str, Any]:
        return {"service": args.get("service"), "team": "team-payments", "oncall": "dana"}

    return {
        "functions": [
            {
                "name": "lookupOwner",
                "description": "Find the team that owns a service",
                "parameters": {
                    "type": "object",
                    "properties": {"service": {"type": "string", "description": "service"}},
                    "required": ["service"],
                },
                "handler": lookup,
            }
        ],
        "skillsCatalog": [
            {
                "id": "incident-triage",
                "name": "Incident triage",
                "description": "How to read incident notes and find owners",
                "content": "# Triage",
            }
        ],
        "memoriesCatalog": [
            {"id": "mem-checkout-owner", "content": "The checkout service owner is team-payments."}
        ],
        "contextMap": {"maxChars": 1600},
        "runtime": AxQuickJsCodeRuntime(),  # type: ignore[no-untyped-call]
        "on_used_memories": lambda used: None,
    }


def client() -> Any:
    return axllm.ai(
        "openai-compatible",
        model="scripted-a",
        base_url="http://scripted.invalid/v1",
        api_key="placeholder-key",
        transport=ScriptedTransport(),
    )


def plain_run() -> tuple[float, int]:
    inner = client()
    calls = 0
    original = inner.chat

    def counting(request: Any, opts: Any = None) -> Any:
        nonlocal calls
        calls += 1
        return original(request, opts or {})

    inner.chat = counting
    triage = axllm.agent(SIGNATURE, options())
    t0 = time.perf_counter()
    for q in QUESTIONS:
        triage.forward(inner, {"question": q}, dict(FORWARD))
    return (time.perf_counter() - t0) * 1000, calls


def recorded_run(file: Path) -> tuple[float, int, float, float]:
    rec = SessionRecorder(file)
    wrapped = rec.wrap_client(client())
    triage = rec.agent(SIGNATURE, options())
    t0 = time.perf_counter()
    for q in QUESTIONS:
        triage.forward(wrapped, {"question": q}, dict(FORWARD))
    return (time.perf_counter() - t0) * 1000, len(wrapped.exchanges), rec.overhead_ms, rec.save_ms


def replay_run(file: Path) -> float:
    t0 = time.perf_counter()
    player = SessionReplayer.load(file)
    triage = player.agent(SIGNATURE, options())
    for i in range(len(player.forwards)):
        triage.forward(player.client(), player.inputs(i), dict(FORWARD))
    player.assert_complete()
    return (time.perf_counter() - t0) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    file = Path(tempfile.mkdtemp(prefix="axmem-recbench-")) / "bench.axsession.json"
    plain_run()  # warm-up: imports, the first QuickJS runtime
    plain, recorded, own, saves, replay = [], [], [], [], []
    calls = 0
    for _ in range(args.runs):
        ms, n = plain_run()
        plain.append(ms / n)
        ms, calls, overhead, saved = recorded_run(file)
        recorded.append(ms / calls)
        own.append(overhead / calls)
        saves.append(saved / len(QUESTIONS))
        replay.append(replay_run(file))
    med = statistics.median
    result = {
        "calls_per_run": calls,
        "runs": args.runs,
        "plain_ms_per_call": med(plain),
        "recorded_ms_per_call": med(recorded),
        "added_ms_per_call": med(recorded) - med(plain),
        "recorder_own_ms_per_call": med(own),
        "save_ms_per_forward": med(saves),
        "replay_ms_example": med(replay),
        "session_bytes": file.stat().st_size,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"example: {calls} model calls per run, median of {args.runs} runs")
    print(
        f"  per model call: {result['plain_ms_per_call']:.2f} ms plain, "
        f"{result['recorded_ms_per_call']:.2f} ms recorded "
        f"(+{result['added_ms_per_call']:.2f} ms wall with the file written after each forward; "
        f"the recorder's own time in the call {result['recorder_own_ms_per_call']:.2f} ms)"
    )
    print(f"  writing the session after a forward: {result['save_ms_per_forward']:.1f} ms")
    print(
        f"  offline replay of the example: {result['replay_ms_example']:.1f} ms; "
        f"session file {result['session_bytes']} bytes"
    )


if __name__ == "__main__":
    main()
