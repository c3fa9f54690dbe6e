#!/usr/bin/env python3
"""What the cage around model code costs and saves (engine/cage.py).

- `code size`: one execution of plain code of 64 KB, 256 KB and 1 MB in the caged runtime
  (its analysis of the code made linear) and, up to 256 KB, in axllm's own runtime (whose
  analysis copies a string per character: 1 MB took minutes there);
- `snapshot`: the state snapshot after an execution that left 2,000 small objects in a
  global (the bounded JSON.stringify and the Set-based clone check against axllm's);
- `deep`: JSON.stringify of a 200,000-deep object, which ends the process without the cage.

    python bench/cage_bench.py [--json]
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from axllm.runtime_quickjs import AxQuickJsCodeRuntime

from axmem_gui.core.session.code_limits import CodeLimits
from axmem_gui.engine.cage import CodeCage

LINE = "var x = 1; // comment 'quoted'\n"
STATE = "globalThis.items = Array.from({length: 2000}, (_, i) => ({id: i, name: 'item ' + i}));"
DEEP = (
    "let o = {}; for (let i = 0; i < 200000; i++) o = {a: o};"
    "try { JSON.stringify(o); } catch (e) { console.log(e.name); }"
)


def _ms(fn: Any) -> float:
    started = time.perf_counter()
    fn()
    return round((time.perf_counter() - started) * 1000, 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    caged = CodeCage(CodeLimits(code_kib=2048, time_s=120)).runtime()
    plain = AxQuickJsCodeRuntime()  # type: ignore[no-untyped-call]
    result: dict[str, Any] = {"code_size_ms": {}, "snapshot_ms": {}}
    for size in (64 * 1024, 256 * 1024, 1024 * 1024):
        code = LINE * (size // len(LINE))
        row = {"caged": _ms(lambda code=code: caged.create_session({}).execute(code))}
        if size <= 256 * 1024:
            row["axllm"] = _ms(lambda code=code: plain.create_session({}).execute(code))
        result["code_size_ms"][f"{size // 1024} KB"] = row
    for name, runtime in (("caged", caged), ("axllm", plain)):
        session = runtime.create_session({})
        session.execute(STATE)
        result["snapshot_ms"][name] = _ms(session.snapshot_globals)
    session = caged.create_session({})
    started = time.perf_counter()
    logs = session.execute(DEEP).get("logs")
    result["deep_object"] = {
        "ms": round((time.perf_counter() - started) * 1000, 1),
        "caught": logs,
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for size, row in result["code_size_ms"].items():
            mine = f"caged {row['caged']} ms"
            theirs = f", axllm {row['axllm']} ms" if "axllm" in row else ""
            print(f"execute {size} of code: {mine}{theirs}")
        snap = result["snapshot_ms"]
        print(f"snapshot of 2,000 objects: caged {snap['caged']} ms, axllm {snap['axllm']} ms")
        deep = result["deep_object"]
        print(f"200,000-deep JSON.stringify: {deep['caught']} in {deep['ms']} ms (axllm: SIGSEGV)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
