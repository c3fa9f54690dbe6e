"""Differential conformance run: the real @ax-llm/ax package against our engine on fresh,
seeded random inputs (`make conformance`; docs/conformance.md).

    python -m tools.conformance --ax build/ax-npm [--seeds 12 20261201] [--per-kind 19]

For each seed: generate the inputs (tools/conformance/generate.py), run them through the
package (tools/golden/oracle.mjs under Node) and through our engine (the same code as
`axmem conformance run`), compare, and report the identical count. Every difference is
either a *known residual* (tools/conformance/known_differences.json: a case kind, the reason
and a minimal reproduction; reported, not failed) or unexpected: then the run shrinks the
case to a minimal reproduction, prints it and exits 1. Files land in build/conformance/.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

from axmem_gui.core.ax.profile import DEFAULT_AX_VERSION, load_profile
from tools.conformance.compare import (
    cli_run,
    compare_case,
    compare_context_map,
    compare_ours,
    compare_probes,
    signature,
)
from tools.conformance.generate import generate, kind_of
from tools.conformance.shrink import shrink

REPO_ROOT = Path(__file__).resolve().parents[2]
ORACLE = REPO_ROOT / "tools" / "golden" / "oracle.mjs"
KNOWN_FILE = Path(__file__).with_name("known_differences.json")
#: The fixed seed: a red run on it is reproducible anywhere.
FIXED_SEED = 12


def daily_seed(today: dt.date | None = None) -> int:
    """The second CI seed: the UTC date as YYYYMMDD, so the inputs move every day."""
    today = today or dt.datetime.now(dt.UTC).date()
    return int(today.strftime("%Y%m%d"))


class Oracle:
    """One long-lived `oracle.mjs --serve` process: a case file in, Ax's answer out."""

    def __init__(self, ax_dir: Path) -> None:
        env = {**os.environ, "LC_ALL": "C.UTF-8"}
        try:
            self.proc = subprocess.Popen(
                ["node", str(ORACLE), "--ax", str(ax_dir), "--serve"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                env=env,
            )
        except FileNotFoundError:
            raise SystemExit("conformance: error: node not found (Node.js 20+ is needed)") from None
        self.calls = 0

    def run(self, cases_file: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(cases_file, ensure_ascii=True) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        self.calls += 1
        if not line:
            raise SystemExit(
                "conformance: error: the Ax oracle (node) stopped; see its output above"
            )
        out: dict[str, Any] = json.loads(line)
        if "oracleError" in out:
            raise SystemExit(f"conformance: error: the Ax oracle failed:\n{out['oracleError']}")
        return out

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)


_RANGE = re.compile(r"^U\+([0-9A-F]{4,6})(?:-U\+([0-9A-F]{4,6}))?$")
#: A stand-in per listed character: {character: the character that takes its place}.
StandIns = dict[str, str]


def parse_chars(spec: list[str]) -> frozenset[str]:
    """`["U+A7CE", "U+16EA0-U+16EB8"]` -> the characters."""
    out: set[str] = set()
    for item in spec:
        m = _RANGE.match(item)
        if not m:
            raise ValueError(f"{KNOWN_FILE.name}: bad character range {item!r}")
        lo = int(m.group(1), 16)
        hi = int(m.group(2) or m.group(1), 16)
        if hi < lo:
            raise ValueError(f"{KNOWN_FILE.name}: empty character range {item!r}")
        out.update(map(chr, range(lo, hi + 1)))
    return frozenset(out)


def load_known() -> dict[str, dict[str, Any]]:
    """The known residuals by name, each with its `chars` parsed into `charset`."""
    entries = json.loads(KNOWN_FILE.read_text(encoding="utf-8"))["known"]
    return {e["name"]: {**e, "charset": parse_chars(e["chars"])} for e in entries}


def listed_chars(known: dict[str, dict[str, Any]]) -> list[str]:
    return sorted(set().union(*(e["charset"] for e in known.values()))) if known else []


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def residual_chars(case: dict[str, Any], known: dict[str, dict[str, Any]]) -> dict[str, set[str]]:
    """The known entries whose characters the case holds, with those characters."""
    held = {ch for text in _strings(case) for ch in text}
    found = {name: held & entry["charset"] for name, entry in known.items()}
    return {name: chars for name, chars in found.items() if chars}


def replace_chars(value: Any, stand_ins: StandIns) -> Any:
    """`value` with every character of `stand_ins` replaced by its stand-in, in every
    string value."""
    if isinstance(value, str):
        return "".join(stand_ins.get(ch, ch) for ch in value)
    if isinstance(value, dict):
        return {k: replace_chars(v, stand_ins) for k, v in value.items()}
    if isinstance(value, list):
        return [replace_chars(v, stand_ins) for v in value]
    return value


def known_class(
    case: dict[str, Any],
    known: dict[str, dict[str, Any]],
    still_differs: Callable[[dict[str, Any]], bool],
    stand_ins: StandIns,
) -> str | None:
    """The known residual(s) a differing case belongs to, or None (unexpected).

    The case must hold characters of a known entry, and the same case with each of them
    replaced by its stand-in must give identical answers (`still_differs` re-runs both
    sides). A stand-in (from Node: the oracle's `standIns`) is the character Node's
    collator sorts next to the listed one, of the same shape (UTF-16 length, general
    category, changed or not by lower-casing and NFKD): so the re-run differs from the
    original only in the listed characters' own ICU 77/78 difference, and any other cause,
    even one the listed characters trigger (a lone surrogate beside an astral character
    is still beside one), stays unexpected. A held character without a stand-in is never
    excused."""
    held = residual_chars(case, known)
    if not held:
        return None
    chars = set().union(*held.values())
    if not chars <= set(stand_ins):
        return None
    if still_differs(replace_chars(case, {c: stand_ins[c] for c in chars})):
        return None
    if len(held) == 1:
        return next(iter(held))
    # Name the entries whose characters alone (the others replaced) still make a difference.
    causes = [
        name
        for name in sorted(held)
        if still_differs(replace_chars(case, {c: stand_ins[c] for c in chars - held[name]}))
    ]
    return " + ".join(causes or sorted(held))


def _shares_difference(
    oracle: Oracle, profile: Any, sig: frozenset[str], case: dict[str, Any]
) -> bool:
    """Whether `case` still shows a difference of kind `sig` (what the shrinker keeps)."""
    return bool(signature(case_diffs(oracle, profile, case)) & sig)


def case_diffs(oracle: Oracle, profile: Any, case: dict[str, Any]) -> list[str]:
    """Differences for one case on its own (used by the shrinker and the known repros)."""
    if "snapshot" in case:  # a context-map case
        answer = oracle.run({"cases": [], "contextMap": [case]})
        return compare_context_map(case, answer["contextMap"][0])
    answer = oracle.run({"cases": [case]})
    return compare_case(case, answer["cases"][0], profile)


def dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True)


def run_seed(
    seed: int,
    per_kind: int,
    oracle: Oracle,
    profile: Any,
    known: dict[str, dict[str, Any]],
    stand_ins: StandIns,
    out_dir: Path,
    shrink_budget_s: float,
) -> tuple[int, int, Counter[str], list[str]]:
    """(cases, identical, known differences by kind, unexpected reports)."""
    start = time.monotonic()
    data = generate(seed, per_kind)
    seed_dir = out_dir / f"seed-{seed}"
    seed_dir.mkdir(parents=True, exist_ok=True)
    (seed_dir / "cases.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    answer = oracle.run(data)
    (seed_dir / "ax.json").write_text(json.dumps(answer, indent=1) + "\n", encoding="utf-8")
    # Our side goes through the CLI, one file per kind, as a user runs it (output writing
    # included); when a kind's file fails, each of its cases goes through the Python API and
    # the CLI on its own, so the failure lands on the cases that cause it.
    ax_by_id = {c["id"]: c for c in answer["cases"]}
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for case in data["cases"]:
        by_kind.setdefault(kind_of(case["id"]), []).append(case)
    found: list[tuple[str, dict[str, Any], list[str]]] = []  # (kind, case, diffs)
    for kind, cases in by_kind.items():
        output, _failure = cli_run({"cases": cases}, seed_dir / "cli" / kind)
        for i, case in enumerate(cases):
            ax_case = ax_by_id[case["id"]]
            if output is not None:
                diffs = compare_ours(output["cases"][i], ax_case)
            else:
                diffs = compare_case(case, ax_case, profile)
            found.append((kind, case, diffs))
    for case, ax_case in zip(data["contextMap"], answer["contextMap"], strict=True):
        found.append(("contextmap", case, compare_context_map(case, ax_case)))
    probe_diffs = compare_probes(data, answer, profile)
    total = len(found) + 1
    identical = sum(1 for _, _, d in found if not d) + (0 if probe_diffs else 1)
    known_counts: Counter[str] = Counter()
    unexpected: list[str] = []
    oracle_notes = [
        f"{c['id']}: {m}" for c in answer["cases"] for m in c.get("reimplMismatches", [])
    ]
    if oracle_notes:
        unexpected.append(
            "the oracle's re-implementation disagrees with the package:\n  "
            + "\n  ".join(oracle_notes[:10])
        )
    if probe_diffs:
        unexpected.append(
            "tokenizer/collation probes differ:\n  " + "\n  ".join(probe_diffs[:8])
        )
    deadline = time.monotonic() + shrink_budget_s
    shrunk_signatures: set[tuple[str, frozenset[str]]] = set()
    report_lines = []
    for kind, case, diffs in found:
        if not diffs:
            continue
        known_as = known_class(
            case, known, lambda c: bool(case_diffs(oracle, profile, c)), stand_ins
        )
        report_lines.append(
            {"id": case["id"], "kind": kind, "known": known_as, "diffs": diffs[:20]}
        )
        if known_as is not None:
            known_counts[known_as] += 1
            continue
        sig = signature(diffs)
        if (kind, sig) in shrunk_signatures:
            unexpected.append(
                f"{case['id']}: same difference as above ({', '.join(sorted(sig))[:120]})"
            )
            continue
        shrunk_signatures.add((kind, sig))
        if time.monotonic() < deadline:
            small = shrink(case, partial(_shares_difference, oracle, profile, sig), deadline)
        else:
            small = case
        small_diffs = case_diffs(oracle, profile, small)
        unexpected.append(
            f"{case['id']} ({kind}) differs from Ax:\n  "
            + "\n  ".join(d[:400] for d in (small_diffs or diffs)[:8])
            + f"\n  minimal reproduction (cases.json entry): {dump(small)}"
        )
    (seed_dir / "differences.json").write_text(
        json.dumps(report_lines, indent=1) + "\n", encoding="utf-8"
    )
    print(
        f"seed {seed}: {identical}/{total} identical "
        f"({len(data['cases'])} agent cases, {len(data['contextMap'])} context-map updates, "
        f"1 tokenizer/collation probe set); known residual differences: "
        + (", ".join(f"{k} {n}" for k, n in sorted(known_counts.items())) or "none")
        + f"; unexpected: {sum(1 for u in unexpected if ' from Ax' in u or 'probes differ' in u)}"
        + f"  [{time.monotonic() - start:.1f} s]",
        flush=True,
    )
    return total, identical, known_counts, unexpected


def check_known(oracle: Oracle, profile: Any, known: dict[str, dict[str, Any]]) -> list[str]:
    """Every known difference's committed reproduction must still differ; say so if not."""
    stale = []
    for kind, entry in known.items():
        if not any(case_diffs(oracle, profile, repro) for repro in entry["repros"]):
            stale.append(kind)
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.conformance", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--ax",
        type=Path,
        default=REPO_ROOT / "build" / "ax-npm",
        help="folder holding node_modules/@ax-llm/ax (tools/golden/install_ax.sh)",
    )
    parser.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        default=None,
        help=f"seeds to run (default: {FIXED_SEED} and today's date YYYYMMDD)",
    )
    parser.add_argument("--per-kind", type=int, default=20, help="cases per kind (default 20)")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "build" / "conformance")
    parser.add_argument(
        "--shrink-seconds",
        type=float,
        default=40.0,
        help="time budget per seed for shrinking unexpected differences",
    )
    args = parser.parse_args(argv)
    pkg = args.ax / "node_modules" / "@ax-llm" / "ax" / "package.json"
    if not pkg.is_file():
        print(
            f"conformance: error: @ax-llm/ax is not installed in {args.ax} "
            "(run tools/golden/install_ax.sh, or `make conformance`)",
            file=sys.stderr,
        )
        return 1
    seeds = args.seeds or [FIXED_SEED, daily_seed()]
    version = json.loads(pkg.read_text(encoding="utf-8"))["version"]
    print(
        f"conformance: @ax-llm/ax@{version} vs axmem (profile {DEFAULT_AX_VERSION}); "
        f"seeds {' '.join(map(str, seeds))} (rerun one with SEEDS=<seed> make conformance)",
        flush=True,
    )
    start = time.monotonic()
    profile = load_profile(DEFAULT_AX_VERSION)
    known = load_known()
    oracle = Oracle(args.ax)
    try:
        listed = listed_chars(known)
        stand_ins: StandIns = (
            oracle.run({"standIns": {"chars": listed, "listed": listed}})["standIns"]
            if listed
            else {}
        )
        totals = [
            run_seed(
                s, args.per_kind, oracle, profile, known, stand_ins, args.out,
                args.shrink_seconds,
            )
            for s in seeds
        ]
        stale = check_known(oracle, profile, known)
    finally:
        oracle.close()
    cases = sum(t[0] for t in totals)
    identical = sum(t[1] for t in totals)
    known_all: Counter[str] = Counter()
    for t in totals:
        known_all.update(t[2])
    unexpected = [u for t in totals for u in t[3]]
    print(
        f"\nconformance: {identical}/{cases} identical over {len(seeds)} seed(s) "
        f"in {time.monotonic() - start:.0f} s (details in {args.out})"
    )
    if known_all:
        print(
            "known residual differences (reported, not failed; "
            "tools/conformance/known_differences.json):"
        )
        for names, n in sorted(known_all.items()):
            print(f"  {names}: {n} case(s)")
        for name in sorted({n for names in known_all for n in names.split(" + ")}):
            entry = known[name]
            print(f"  {name}: {entry['reason']}")
            for repro in entry["repros"]:
                print(f"    minimal reproduction: {dump(repro)}")
    for kind in stale:
        print(
            f"NOTE: known difference '{kind}' no longer reproduces: remove it from "
            f"{KNOWN_FILE.relative_to(REPO_ROOT)}"
        )
    if unexpected:
        print(f"\nUNEXPECTED differences ({len(unexpected)}):")
        for u in unexpected:
            print(f"- {u}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
