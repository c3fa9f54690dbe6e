"""`axmem import` and `axmem export`."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from axmem_gui.cli.common import add_workspace_arg, counted, print_json, say
from axmem_gui.core.errors import InputError
from axmem_gui.core.formats import FORMATS, POLICIES, ImportPlan
from axmem_gui.services.transfer import (
    ExportClashError,
    Progress,
    export_warnings,
    export_workspace,
    format_problems,
    import_paths,
    render_text,
    workspace_doc,
)
from axmem_gui.services.workspace import open_workspace


def _print_plan(plan: ImportPlan, dry_run: bool) -> None:
    for item in plan.items:
        if item.action != "unchanged":
            say(item.describe())
    s = plan.summary()
    verb = "would import" if dry_run else "imported"
    print(
        f"{verb}: {s['add']} added, {s['update']} updated, {s['keep-both']} kept both, "
        f"{s['skip']} skipped, {s['unchanged']} unchanged ({counted(s['conflicts'], 'conflict')}, "
        f"policy {plan.policy})"
    )


#: How often progress is written (to stderr, for big imports; Ctrl+C cancels).
PROGRESS_INTERVAL_S = 0.5


def _progress_printer(enabled: bool) -> Callable[[Progress], None] | None:
    if not enabled:
        return None
    last = [0.0]

    def show(p: Progress) -> None:
        now = time.monotonic()
        if now - last[0] < PROGRESS_INTERVAL_S and p.done < p.total:
            return
        last[0] = now
        percent = 100 * p.done // p.total if p.total else 100
        print(f"axmem: {percent:3d}% {p.message}", file=sys.stderr, flush=True)

    return show


def _import(args: argparse.Namespace) -> int:
    progress = _progress_printer(args.progress or sys.stderr.isatty())
    with open_workspace(args.workspace) as ws:
        plan, result = import_paths(
            ws, args.paths, args.policy, dry_run=args.dry_run, fmt=args.format, progress=progress
        )
    for warning in plan.warnings:
        print(f"axmem: warning: {warning}", file=sys.stderr)
    if not plan.ok:
        if args.json:
            print_json(plan.to_json())
        raise InputError(
            f"{counted(len(plan.errors), 'problem')} in the input; nothing was imported:\n"
            + format_problems(plan.errors)
        )
    if args.json:
        print_json(result.to_json() if result is not None else plan.to_json())
    else:
        _print_plan(plan, dry_run=result is None)
    return 0


def _export(args: argparse.Namespace) -> int:
    with open_workspace(args.workspace, read_only=True) as ws:
        if args.out == "-":
            if args.format == "skills-dir":
                raise InputError("skills-dir writes a folder; give a folder path, not '-'")
            doc = workspace_doc(ws)
            for warning in export_warnings(doc, args.format):
                print(f"axmem: warning: {warning}", file=sys.stderr)
            sys.stdout.write(render_text(doc, args.format))
            return 0
        try:
            result = export_workspace(ws, args.format, args.out, force=args.force)
        except ExportClashError as exc:
            raise InputError(f"{exc}; use --force to replace them") from None
    for warning in result.warnings:
        print(f"axmem: warning: {warning}", file=sys.stderr)
    if args.json:
        print_json(result.to_json())
    else:
        print(
            f"exported {result.skills} skill(s) and {result.memories} memory(ies) "
            f"as {result.format} to {result.out}"
        )
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "import",
        help="import skills and memories from catalog files or skill folders",
        description="Import Ax catalog JSON, TypeScript modules, JSON Lines memories and "
        "Agent Skills folders (SKILL.md). Everything is checked first; any error "
        "imports nothing.",
    )
    p.add_argument("paths", metavar="PATH", nargs="+", help="file or folder to import")
    add_workspace_arg(p)
    p.add_argument(
        "--policy",
        choices=POLICIES,
        default="skip",
        help="when an id already exists with other content: keep the workspace's entry "
        "(skip, default), replace it (overwrite), or add the import under a new id like "
        "'id-2' (keep-both)",
    )
    p.add_argument("--dry-run", action="store_true", help="show the plan, write nothing")
    p.add_argument("--format", choices=FORMATS, default=None, help="force the input format")
    p.add_argument(
        "--progress",
        action="store_true",
        help="report reading and writing on stderr (the default when stderr is a terminal)",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=_import)

    p = sub.add_parser(
        "export",
        help="export the workspace catalog",
        description="Write the workspace's skills and memories as Ax catalog JSON, a "
        "TypeScript module, an Agent Skills folder, or JSON Lines memories.",
    )
    p.add_argument("out", metavar="OUT", help="output file, or folder for skills-dir; '-' = stdout")
    add_workspace_arg(p)
    p.add_argument("--format", choices=FORMATS, required=True, help="output format")
    p.add_argument(
        "--force", action="store_true", help="skills-dir: replace skill folders already there"
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=_export)
