"""`axmem lint`: exit 1 when there are errors, 0 otherwise, 2 on bad input."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from axmem_gui.cli.common import add_workspace_arg, counted, print_json, say
from axmem_gui.core.lint import DEFAULT_BUDGET_TOKENS, LintOptions
from axmem_gui.services.lint import lint


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("must be greater than 0")
    return value


def _lint(args: argparse.Namespace) -> int:
    options = LintOptions(budget_tokens=args.budget, competition=not args.no_competition)
    run = lint(args.catalog, args.workspace, options)
    report = run.report
    for warning in run.input_warnings:
        print(f"axmem: warning: {warning}", file=sys.stderr)
    if args.json:
        print_json({"source": run.source, **report.to_json()})
        return 1 if report.has_errors else 0
    for f in report.findings:
        where = f.kind if f.entry_id is None else f"{f.kind} '{f.entry_id}'"
        say(f"{f.severity}: {where}: {f.message} [{f.code}]")
        say(f"    fix: {f.hint}")
    c = report.counts()
    print(
        f"{run.source}: {counted(report.skills, 'skill')}, "
        f"{counted(report.memories, 'memory', 'memories')}: "
        f"{counted(c['error'], 'error')}, {counted(c['warning'], 'warning')}, {c['info']} info; "
        f"Available Skills index ~{report.index_tokens} of {report.budget_tokens} tokens"
    )
    return 1 if report.has_errors else 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "lint",
        help="check a catalog for what Ax would show, key or search unexpectedly",
        description="Lint the workspace catalog, or a catalog file / skills folder. Exit "
        "status: 1 when there are errors, 0 otherwise, 2 on unreadable input.",
    )
    add_workspace_arg(p)
    p.add_argument(
        "--catalog",
        metavar="FILE",
        type=Path,
        default=None,
        help="lint this catalog (.json, .ts, .jsonl, SKILL.md folder) instead of a workspace",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument(
        "--budget",
        type=_positive_int,
        default=DEFAULT_BUDGET_TOKENS,
        metavar="N",
        help=f"token budget for the Available Skills index (default {DEFAULT_BUDGET_TOKENS})",
    )
    p.add_argument(
        "--no-competition",
        action="store_true",
        help="skip the check for skills competing for the same searches",
    )
    p.set_defaults(handler=_lint)
