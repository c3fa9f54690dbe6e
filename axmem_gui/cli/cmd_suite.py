"""`axmem suite run|list`: retrieval suites from the command line (CI friendly).

Exit codes of `suite run`: 0 every case passed, 1 a case failed, 2 bad input.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from axmem_gui.cli.common import add_workspace_arg, print_json, say
from axmem_gui.core.catalog import Catalog
from axmem_gui.core.suites import CaseResult, Suite, SuiteRunResult
from axmem_gui.services.catalogs import read_catalog_file
from axmem_gui.services.suites import (
    SuiteOutcome,
    outcomes_to_json,
    read_run_results_file,
    read_suite_file,
    run_suites,
    run_workspace_suites,
    select_suites,
    workspace_suites,
    write_junit,
)
from axmem_gui.services.workspace import open_workspace


def _metric(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _case_line(case: CaseResult) -> str:
    mark = "ok  " if case.passed else "FAIL"
    found = (
        ", ".join(f"{i}@{'-' if r is None else r}" for i, r in case.ranks.items())
        or "(exclusions only)"
    )
    line = f"  {mark} [{case.kind}] {case.name}: {found}"
    details = [f"       {reason}" for reason in case.reasons]
    if not case.passed:
        details.append(f"       returned: {', '.join(case.returned) or '(nothing)'}")
    details.extend(f"       warning: {w}" for w in case.warnings)
    return "\n".join([line, *details])


def _print_outcome(outcome: SuiteOutcome) -> None:
    result: SuiteRunResult = outcome.result
    s = result.summary
    print(
        f"{result.suite}: {s.passed}/{s.total} passed · mean recall@k {_metric(s.mean_recall_at_k)}"
        f" · MRR {_metric(s.mrr)}"
    )
    for case in result.cases:
        print(_case_line(case))
    comparison = outcome.comparison
    if comparison is not None:
        if comparison.regressions:
            say(f"  regressions since the previous run: {', '.join(comparison.regressions)}")
        if comparison.fixed:
            say(f"  fixed since the previous run: {', '.join(comparison.fixed)}")
        for name, ids in comparison.rank_drops.items():
            say(f"  ranked lower than in the previous run: {name}: {', '.join(ids)}")
        if not comparison.regressions and not comparison.fixed:
            print("  no change in pass/fail since the previous run")


def _collect_and_run(args: argparse.Namespace) -> list[SuiteOutcome]:
    if args.suite_file is None and args.baseline is None:
        # Suites from the workspace: compare with, and record into, its run history (not
        # when the catalog is a foreign file: that run says nothing about this workspace).
        with open_workspace(args.workspace) as ws:
            catalog = read_catalog_file(args.catalog) if args.catalog is not None else None
            record = catalog is None and not args.no_record
            return run_workspace_suites(ws, args.suite, catalog=catalog, record=record)
    suites: Sequence[Suite]
    if args.suite_file is not None:
        suites = select_suites(read_suite_file(args.suite_file), args.suite, str(args.suite_file))
    else:
        with open_workspace(args.workspace) as ws:
            suites = select_suites(workspace_suites(ws), args.suite, "workspace")
    catalog_: Catalog
    if args.catalog is not None:
        catalog_ = read_catalog_file(args.catalog)
    else:
        with open_workspace(args.workspace) as ws:
            catalog_ = ws.catalog()
    previous = read_run_results_file(args.baseline) if args.baseline is not None else {}
    return run_suites(suites, catalog_, previous)


def _run(args: argparse.Namespace) -> int:
    outcomes = _collect_and_run(args)
    if args.junit is not None:
        write_junit(args.junit, outcomes)
    if args.json:
        print_json(outcomes_to_json(outcomes))
    else:
        for outcome in outcomes:
            _print_outcome(outcome)
    return 0 if all(o.result.all_passed for o in outcomes) else 1


def _list(args: argparse.Namespace) -> int:
    if args.suite_file is not None:
        suites = read_suite_file(args.suite_file)
    else:
        with open_workspace(args.workspace) as ws:
            suites = workspace_suites(ws)
    if args.json:
        print_json([{"name": s.name, "cases": len(s.cases)} for s in suites])
        return 0
    for s in suites:
        say(f"{s.name}\t{len(s.cases)} cases")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("suite", help="retrieval suites: expected discover/recall results")
    suite_sub = p.add_subparsers(dest="suite_command", metavar="SUBCOMMAND", required=True)

    run = suite_sub.add_parser(
        "run",
        help="run suites against a catalog (exit 1 when a case fails)",
        description="Run retrieval suites with the Ax-exact search. Suites come from "
        "--suite-file or the workspace; the catalog from --catalog or the workspace. "
        "Exit code 0: all cases pass, 1: a case fails, 2: bad input.",
    )
    add_workspace_arg(run)
    run.add_argument("--catalog", type=Path, metavar="FILE", help="Ax catalog JSON file")
    run.add_argument("--suite-file", type=Path, metavar="FILE", help="suite JSON file")
    run.add_argument("--suite", metavar="NAME", help="run only this suite")
    run.add_argument("--junit", type=Path, metavar="OUT.xml", help="also write JUnit XML")
    run.add_argument(
        "--baseline",
        type=Path,
        metavar="RUN.json",
        help="a previous `suite run --json` output to flag regressions against",
    )
    run.add_argument(
        "--no-record", action="store_true", help="do not store this run in the workspace"
    )
    run.add_argument("--json", action="store_true", help="machine-readable output")
    run.set_defaults(handler=_run)

    lst = suite_sub.add_parser("list", help="list suites and their case counts")
    add_workspace_arg(lst)
    lst.add_argument("--suite-file", type=Path, metavar="FILE", help="suite JSON file")
    lst.add_argument("--json", action="store_true", help="machine-readable output")
    lst.set_defaults(handler=_list)
