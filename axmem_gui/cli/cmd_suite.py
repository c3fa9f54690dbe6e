"""`axmem suite run|list|add|edit|remove|import|export`: retrieval suites from the command
line (CI friendly). Suites and cases go in and out as JSON (the suite file format).

Exit codes of `suite run`: 0 every case passed, 1 a case failed, 2 bad input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from axmem_gui.cli.common import add_workspace_arg, counted, print_json, read_text_file, say
from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import InputError
from axmem_gui.core.suites import CaseResult, Suite, SuiteRunResult, suites_to_json_text
from axmem_gui.services.catalogs import read_catalog_file
from axmem_gui.services.suites import (
    SuiteChange,
    SuiteOutcome,
    case_from_json_text,
    outcomes_to_json,
    read_run_results_file,
    read_suite_file,
    run_suites,
    select_suites,
    suite_from_json_text,
    write_junit,
    write_suite_file,
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
    say(
        f"{result.suite}: {s.passed}/{s.total} passed · mean recall@k {_metric(s.mean_recall_at_k)}"
        f" · MRR {_metric(s.mrr)}"
    )
    for case in result.cases:
        say(_case_line(case))
    comparison = outcome.comparison
    if comparison is not None:
        if comparison.regressions:
            say(f"  regressions since the previous run: {', '.join(comparison.regressions)}")
        if comparison.fixed:
            say(f"  fixed since the previous run: {', '.join(comparison.fixed)}")
        for name, ids in comparison.rank_drops.items():
            say(f"  ranked lower than in the previous run: {name}: {', '.join(ids)}")
        if not comparison.regressions and not comparison.fixed:
            say("  no change in pass/fail since the previous run")


def _collect_and_run(args: argparse.Namespace) -> list[SuiteOutcome]:
    if args.suite_file is None and args.baseline is None:
        # Suites from the workspace: compare with, and record into, its run history (not
        # when the catalog is a foreign file: that run says nothing about this workspace).
        with open_workspace(args.workspace) as ws:
            catalog = read_catalog_file(args.catalog) if args.catalog is not None else None
            record = catalog is None and not args.no_record
            return ws.suites.run(args.suite, catalog=catalog, record=record)
    suites: Sequence[Suite]
    if args.suite_file is not None:
        suites = select_suites(read_suite_file(args.suite_file), args.suite, str(args.suite_file))
    else:
        with open_workspace(args.workspace) as ws:
            suites = select_suites(ws.suites.all(), args.suite, "workspace")
    catalog_: Catalog
    if args.catalog is not None:
        catalog_ = read_catalog_file(args.catalog)
    else:
        with open_workspace(args.workspace) as ws:
            catalog_ = ws.catalog.snapshot()
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
    revisions: dict[str, int] = {}
    if args.suite_file is not None:
        suites = read_suite_file(args.suite_file)
    else:
        with open_workspace(args.workspace) as ws:
            suites = ws.suites.all()
            revisions = {e.name: e.revision for e in ws.suites.entries()}
    if args.json:
        rows = []
        for s in suites:
            row: dict[str, object] = {"name": s.name, "cases": len(s.cases)}
            if s.name in revisions:
                row["revision"] = revisions[s.name]
            rows.append(row)
        print_json(rows)
        return 0
    for s in suites:
        say(f"{s.name}\t{counted(len(s.cases), 'case')}")
    return 0


def _read_json_arg(source: str, what: str) -> tuple[str, str]:
    """The text of FILE, or of standard input for '-', with a name for messages."""
    if source == "-":
        return sys.stdin.read(), f"{what} (standard input)"
    return read_text_file(Path(source), what), source


def _report(args: argparse.Namespace, revisions: dict[str, int], verb: str) -> int:
    if args.json:
        print_json({"changed": [{"suite": n, "revision": r} for n, r in revisions.items()]})
    else:
        for name, revision in revisions.items():
            state = "removed" if revision == 0 else f"revision {revision}"
            say(f"{verb} suite '{name}' ({state})")
    return 0


def _apply(args: argparse.Namespace, changes: list[SuiteChange], verb: str) -> int:
    with open_workspace(args.workspace) as ws:
        return _report(args, ws.suites.apply(changes), verb)


def _add(args: argparse.Namespace) -> int:
    with open_workspace(args.workspace) as ws:
        if args.case is not None:
            text, source = _read_json_arg(args.case, "case file")
            case = case_from_json_text(text, source)
            if not ws.suites.exists(args.name):
                # A first case creates its suite.
                created = Suite(args.name, (), args.description or "")
                ws.suites.apply(ws.suites.new_changes(created))
            changes = ws.suites.case_changes(args.name, case, None, args.expect_revision)
            return _report(args, ws.suites.apply(changes), "Added a case to")
        if args.suite_file is not None:
            text, source = _read_json_arg(args.suite_file, "suite file")
            suite = suite_from_json_text(text, source)
            if args.name is not None and suite.name != args.name:
                raise InputError(f"{source}: the suite is named '{suite.name}', not '{args.name}'")
        else:
            if args.name is None:
                raise InputError("give a suite NAME, or --from FILE with the suite's JSON")
            suite = Suite(args.name, (), args.description or "")
        return _report(args, ws.suites.apply(ws.suites.new_changes(suite)), "Added")


def _edit(args: argparse.Namespace) -> int:
    text, source = _read_json_arg(args.source, "case file" if args.case else "suite file")
    with open_workspace(args.workspace) as ws:
        if args.case is not None:
            case = case_from_json_text(text, source)
            changes = ws.suites.case_changes(args.name, case, args.case, args.expect_revision)
        else:
            suite = suite_from_json_text(text, source)
            changes = ws.suites.edit_changes(args.name, suite, args.expect_revision)
        return _report(args, ws.suites.apply(changes), "Changed")


def _remove(args: argparse.Namespace) -> int:
    with open_workspace(args.workspace) as ws:
        if args.case is not None:
            changes = ws.suites.case_changes(args.name, None, args.case, args.expect_revision)
            return _report(args, ws.suites.apply(changes), "Removed a case from")
        changes = ws.suites.remove_changes(args.name, args.expect_revision)
        return _report(args, ws.suites.apply(changes), "Removed")


def _import(args: argparse.Namespace) -> int:
    suites = read_suite_file(args.file)
    with open_workspace(args.workspace) as ws:
        changes = ws.suites.import_changes(suites, replace_existing=args.replace)
        return _report(args, ws.suites.apply(changes), "Imported")


def _export(args: argparse.Namespace) -> int:
    with open_workspace(args.workspace) as ws:
        if args.suite:
            suites = [ws.suites.require(name)[0] for name in args.suite]
        else:
            suites = ws.suites.all()
    if not suites:
        raise InputError("the workspace has no suites to export")
    if args.out is None or str(args.out) == "-":
        sys.stdout.write(suites_to_json_text(suites))
    else:
        write_suite_file(args.out, suites)
        say(f"Exported {len(suites)} suite(s) to {args.out}", file=sys.stderr)
    return 0


def _add_revision_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--expect-revision",
        type=int,
        metavar="N",
        help="refuse unless the suite is at revision N (as `suite list --json` shows it)",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")


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

    add = suite_sub.add_parser(
        "add",
        help="add a suite (empty, or from JSON), or add a case to a suite",
        description="Add a suite: `suite add NAME` (empty), `suite add --from FILE|-` (a "
        "suite's JSON), or add one case (a case's JSON object) with `suite add NAME --case "
        "FILE|-` (the suite is created if needed). Refuses a name that exists.",
    )
    add_workspace_arg(add)
    add.add_argument("name", nargs="?", metavar="NAME", help="suite name")
    add.add_argument("--description", metavar="TEXT", help="the new suite's description")
    add.add_argument("--from", dest="suite_file", metavar="FILE", help="suite JSON ('-': stdin)")
    add.add_argument("--case", metavar="FILE", help="one case as JSON ('-': stdin)")
    _add_revision_arg(add)
    add.set_defaults(handler=_add)

    edit = suite_sub.add_parser(
        "edit",
        help="replace a suite (or one of its cases) with JSON",
        description="Replace suite NAME with the suite JSON in FILE (a different name in "
        "the JSON renames it), or with --case CASE replace that case with the case JSON.",
    )
    add_workspace_arg(edit)
    edit.add_argument("name", metavar="NAME", help="suite name")
    edit.add_argument("source", metavar="FILE", help="suite (or case) JSON ('-': stdin)")
    edit.add_argument("--case", metavar="CASE", help="replace only this case")
    _add_revision_arg(edit)
    edit.set_defaults(handler=_edit)

    remove = suite_sub.add_parser("remove", help="remove a suite, or one case of it")
    add_workspace_arg(remove)
    remove.add_argument("name", metavar="NAME", help="suite name")
    remove.add_argument("--case", metavar="CASE", help="remove only this case")
    _add_revision_arg(remove)
    remove.set_defaults(handler=_remove)

    imp = suite_sub.add_parser(
        "import",
        help="import suites from a suite JSON file (all or nothing)",
        description='Import every suite of FILE (one suite, a list, or {"suites": [...]}). '
        "Names the workspace already has are refused unless --replace.",
    )
    add_workspace_arg(imp)
    imp.add_argument("file", type=Path, metavar="FILE", help="suite JSON file")
    imp.add_argument("--replace", action="store_true", help="replace suites of the same name")
    imp.add_argument("--json", action="store_true", help="machine-readable output")
    imp.set_defaults(handler=_import)

    exp = suite_sub.add_parser("export", help="write suites as JSON (stdout or a file)")
    add_workspace_arg(exp)
    exp.add_argument("--suite", action="append", metavar="NAME", help="only this suite (repeat)")
    exp.add_argument("-o", "--out", type=Path, metavar="FILE", help="output file (default stdout)")
    exp.set_defaults(handler=_export)
