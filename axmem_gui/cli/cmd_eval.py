"""`axmem eval`: trigger evals from the command line (CI friendly), and `axmem local-model`.

Exit codes: `eval run` 0 every case at or above its threshold, 1 a case below it (or the
run was cancelled); `eval compare` 0 no regression, 1 a regression; 2 bad input.
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

from axmem_gui.cli.common import add_workspace_arg, counted, print_json, say, write_report
from axmem_gui.cli.provider_args import add_provider_args, provider_settings
from axmem_gui.core.evals.compare import render_comparison, render_report
from axmem_gui.core.evals.model import EvalSet, eval_sets_to_json_text
from axmem_gui.core.evals.report import EvalReport
from axmem_gui.core.session.retrieval import SEARCH_BACKENDS
from axmem_gui.services import evals
from axmem_gui.services.agent_runner import child_runs
from axmem_gui.services.local_model import (
    LOCAL_PROVIDER,
    LocalModelServer,
    local_label,
    local_model_status,
    local_provider,
    register_server,
    running_server,
    unregister_server,
)
from axmem_gui.services.workspace import open_workspace

# --------------------------------------------------------------------------- sets


def _read_sets(source: str) -> list[EvalSet]:
    if source == "-":
        return evals.read_set_text(sys.stdin.read(), "standard input")
    return evals.read_set_file(Path(source))


def _add(args: argparse.Namespace) -> int:
    sets = _read_sets(args.file)
    with open_workspace(args.workspace) as ws:
        existing = set(ws.evals.names())
        ws.evals.add_sets(sets, replace_existing=args.replace)
    for eval_set in sets:
        verb = "replaced" if eval_set.name in existing else "added"
        say(f"{verb} eval set '{eval_set.name}' ({counted(len(eval_set.cases), 'case')})")
    return 0


def _list(args: argparse.Namespace) -> int:
    with open_workspace(args.workspace, read_only=True) as ws:
        sets = ws.evals.sets()
        last = {s.name: ws.evals.runs(s.name)[-1:] for s in sets}
    rows = [
        {
            "name": s.name,
            "agent": s.agent,
            "cases": len(s.cases),
            "last_run": last[s.name][0].id if last[s.name] else None,
        }
        for s in sets
    ]
    if args.json:
        print_json(rows)
        return 0
    if not rows:
        say("no eval sets yet: add one with `axmem eval add FILE.json`")
    for r in rows:
        last_run = r["last_run"] or "never"
        cases = counted(int(r["cases"] or 0), "case")
        say(f"{r['name']}\tagent {r['agent']}\t{cases}\tlast run {last_run}")
    return 0


def _show(args: argparse.Namespace) -> int:
    with open_workspace(args.workspace, read_only=True) as ws:
        eval_set = ws.evals.get_set(args.name)
    sys.stdout.write(eval_sets_to_json_text([eval_set]))
    return 0


def _remove(args: argparse.Namespace) -> int:
    with open_workspace(args.workspace) as ws:
        ws.evals.remove_set(args.name)
    say(f"removed eval set '{args.name}' (its runs and sessions are kept)")
    return 0


# --------------------------------------------------------------------------- runs


def _emit(report: EvalReport, args: argparse.Namespace) -> None:
    if getattr(args, "junit", None) is not None:
        evals.write_junit(args.junit, [report])
    if args.json:
        print_json(report.to_json())
    else:
        write_report(render_report(report))


def _run(args: argparse.Namespace) -> int:
    settings = provider_settings(args)
    with open_workspace(args.workspace) as ws:
        eval_set = ws.evals.get_set(args.set)

        def progress(event: evals.EvalProgress) -> None:
            if not args.quiet:
                say(f"axmem: [{event.done}/{event.total}] {event.message}", file=sys.stderr)

        with local_provider(settings) as resolved, child_runs() as runner:
            if settings.provider == LOCAL_PROVIDER and not args.quiet:
                say(f"axmem: local model serving at {resolved.base_url}", file=sys.stderr)
            report = ws.evals.run(
                eval_set,
                resolved,
                repeat=args.repeat,
                parallel=args.parallel,
                search=args.search,
                progress=progress,
                label=local_label(settings, args.label or ""),
                runner=runner,
            )
    _emit(report, args)
    return 0 if report.passed else 1


def _report(args: argparse.Namespace) -> int:
    with open_workspace(args.workspace, read_only=True) as ws:
        report = ws.evals.report(args.id)
    _emit(report, args)
    return 0 if report.passed else 1


def _runs(args: argparse.Namespace) -> int:
    with open_workspace(args.workspace, read_only=True) as ws:
        rows = [run.to_json() for run in ws.evals.runs(args.set)]
    if args.json:
        print_json(rows)
        return 0
    if not rows:
        say("no eval runs yet: start one with `axmem eval run`")
    for r in rows:
        say(
            f"{r['id']}  {r['set_name']:<20}  {r['status']:<9}  {r['provider']}/{r['model']}  "
            f"{r['started_at']}"
        )
    return 0


def _load_side(ws_path: Path | None, ref: str) -> EvalReport:
    path = Path(ref)
    if ref.endswith(".json") and path.is_file():
        return evals.read_report_file(path)
    with open_workspace(ws_path, read_only=True) as ws:
        return ws.evals.report(ref)


def _compare(args: argparse.Namespace) -> int:
    comparison = evals.compare(
        _load_side(args.workspace, args.a), _load_side(args.workspace, args.b)
    )
    if args.json:
        print_json(comparison.to_json())
    else:
        write_report(render_comparison(comparison))
    return 1 if comparison.regressions else 0


# --------------------------------------------------------------------------- local model


def _local_status(args: argparse.Namespace) -> int:
    status = local_model_status()
    running = running_server()
    if args.json:
        print_json({**status.to_json(), "serving": running.base_url if running else None})
    else:
        say(status.message)
        if running is not None:
            say(f"serving at {running.base_url} (`--provider local` reuses it)")
    return 0 if status.ready else 1


def _stop_on_sigterm() -> None:
    """SIGTERM ends `serve` like Ctrl-C does, so the model server child is stopped too."""

    def handler(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def _local_serve(args: argparse.Namespace) -> int:
    _stop_on_sigterm()
    server = LocalModelServer(port=args.port)
    with server:
        register_server(server)
        try:
            print(
                f"serving {server.model_file} at {server.base_url} "
                f"(loaded in {server.load_seconds:.1f} s); `--provider local` reuses it (or "
                f"--provider openai-compatible --base-url {server.base_url}); Ctrl-C stops it",
                flush=True,
            )
            assert server.process is not None
            code = server.process.wait()
        finally:
            unregister_server(server)
    say(f"axmem: the local model server exited (code {code}): {server.log_tail()}")
    return 1


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("eval", help="trigger evals: does the model load the right skills?")
    es = p.add_subparsers(dest="eval_command", metavar="ACTION", required=True)

    q = es.add_parser(
        "run",
        help="run an eval set on a model (exit 1 when a case is below its threshold)",
        description="Run every case of an eval set through the set's agent on a real model "
        "(--provider local starts the bundled model). Each agent run is recorded as a "
        "workspace session. Exit 0: every case at or above its threshold; 1: a case below "
        "it; 2: bad input.",
    )
    add_workspace_arg(q)
    q.add_argument("--set", metavar="NAME", help="eval set (default: the only one)")
    q.add_argument("--repeat", type=int, metavar="N", help="runs per case (overrides the set)")
    q.add_argument(
        "--parallel", type=int, default=1, metavar="N", help="agent runs at once (default 1)"
    )
    q.add_argument("--label", metavar="TEXT", help="a note stored with the run")
    q.add_argument("--junit", type=Path, metavar="OUT.xml", help="also write JUnit XML")
    q.add_argument("--json", action="store_true", help="machine-readable report")
    q.add_argument(
        "--search", choices=SEARCH_BACKENDS, default=None, help="who answers discover/recall"
    )
    q.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    add_provider_args(q)
    q.set_defaults(handler=_run)

    q = es.add_parser("compare", help="two eval runs side by side (exit 1 on a regression)")
    add_workspace_arg(q)
    q.add_argument("a", metavar="A", help="eval run id, 'last', or a `eval run --json` file")
    q.add_argument("b", metavar="B", help="eval run id, 'last', or a `eval run --json` file")
    q.add_argument("--json", action="store_true")
    q.set_defaults(handler=_compare)

    q = es.add_parser("add", help="add eval sets from JSON (a file, or - for stdin)")
    add_workspace_arg(q)
    q.add_argument("file", metavar="FILE", help='JSON: one set, a list, or {"evals": [...]}')
    q.add_argument("--replace", action="store_true", help="overwrite sets of the same name")
    q.set_defaults(handler=_add)

    q = es.add_parser("list", help="eval sets in the workspace")
    add_workspace_arg(q)
    q.add_argument("--json", action="store_true")
    q.set_defaults(handler=_list)

    q = es.add_parser("show", help="print an eval set as JSON (edit it, then `add --replace`)")
    add_workspace_arg(q)
    q.add_argument("name", metavar="NAME")
    q.set_defaults(handler=_show)

    q = es.add_parser("remove", help="remove an eval set (its runs and sessions stay)")
    add_workspace_arg(q)
    q.add_argument("name", metavar="NAME")
    q.set_defaults(handler=_remove)

    q = es.add_parser("runs", help="eval runs stored in the workspace")
    add_workspace_arg(q)
    q.add_argument("--set", metavar="NAME", help="only this set's runs")
    q.add_argument("--json", action="store_true")
    q.set_defaults(handler=_runs)

    q = es.add_parser("report", help="show a stored eval run ('last' for the latest)")
    add_workspace_arg(q)
    q.add_argument("id", metavar="ID")
    q.add_argument("--junit", type=Path, metavar="OUT.xml", help="also write JUnit XML")
    q.add_argument("--json", action="store_true")
    q.set_defaults(handler=_report)

    p = sub.add_parser("local-model", help="the bundled local model (optional extra 'local')")
    ls = p.add_subparsers(dest="local_command", metavar="ACTION", required=True)
    q = ls.add_parser("status", help="is the bundled model installed? (exit 1 when not)")
    q.add_argument("--json", action="store_true")
    q.set_defaults(handler=_local_status)
    q = ls.add_parser("serve", help="serve the bundled model on 127.0.0.1 until Ctrl-C")
    q.add_argument("--port", type=int, default=None, help="port (default: a free one)")
    q.set_defaults(handler=_local_serve)
