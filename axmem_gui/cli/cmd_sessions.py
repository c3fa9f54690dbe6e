"""Agent sessions from the command line: run, replay, rerun, diff, whatif, sessions.

Exit codes: `replay` and `verify` 0 identical / 1 different; `run` and `rerun` 0 when the session is
complete, 1 when it ended early (the partial session is still written); 2 for bad input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from axmem_gui.cli.common import (
    add_workspace_arg,
    counted,
    print_json,
    read_text_file,
    say,
    write_report,
)
from axmem_gui.cli.provider_args import add_provider_args, provider_settings
from axmem_gui.core import jsontext
from axmem_gui.core.contextmap import start_map_from_json_value
from axmem_gui.core.errors import InputError
from axmem_gui.core.jsout import json_dumps
from axmem_gui.core.session.code_limits import CodeLimits
from axmem_gui.core.session.compare import render_comparison
from axmem_gui.core.session.format import is_session_value
from axmem_gui.core.session.model import Session
from axmem_gui.core.session.progress import RunProgress
from axmem_gui.core.session.retrieval import SEARCH_BACKENDS
from axmem_gui.core.session.whatif import render_whatif
from axmem_gui.services import sessions
from axmem_gui.services.agent_runner import child_runs
from axmem_gui.services.providers import check_connection
from axmem_gui.services.sessions import MAP_SETTINGS_RULES
from axmem_gui.services.workspace import open_workspace


def _parse_inputs(pairs: list[str], inputs_file: Path | None) -> list[dict[str, Any]]:
    """`--input key=value` (value `@path` reads a UTF-8 file) for one forward, or
    `--inputs-file` with an object (one forward) or a list of objects (several)."""
    if inputs_file is not None and pairs:
        raise InputError("give either --input or --inputs-file, not both")
    if inputs_file is not None:
        text = read_text_file(inputs_file, "inputs file")
        value = jsontext.loads(text, str(inputs_file))
        items = value if isinstance(value, list) else [value]
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                raise InputError(f"{inputs_file}: [{i}] must be an object of input values")
        return [dict(item) for item in items]
    values: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise InputError(f"--input {pair!r}: expected key=value (or key=@file)")
        if value.startswith("@"):
            value = read_text_file(Path(value[1:]), f"value file for input '{key}'")
        values[key] = value
    if not values:
        raise InputError("no inputs: give --input key=value (repeatable) or --inputs-file FILE")
    return [values]


def _limits(args: argparse.Namespace) -> CodeLimits:
    return CodeLimits(
        time_s=args.code_time_limit,
        memory_mib=args.code_memory_limit,
        stack_kib=args.code_stack_limit,
        code_kib=args.code_size_limit,
    ).checked("--code-*-limit")


def _progress(quiet: bool) -> Any:
    if quiet:
        return None

    def report(event: RunProgress) -> None:
        if event.kind in ("call_finished", "forward_finished"):
            print(f"axmem: {event.message}", file=sys.stderr)

    return report


def _read_context_map(path: Path | None) -> Any:
    if path is None:
        return None
    text = read_text_file(path, "context map")
    try:
        value = jsontext.parse(text)
    except ValueError:
        return text  # a map given as its Markdown text
    if is_session_value(value):
        # Continue from where a recorded session left its map.
        session = sessions.read_session_file(path)
        maps = [f.context_map_after for f in session.forwards if f.context_map_after]
        if not maps:
            raise InputError(f"{path}: this session has no context map")
        return maps[-1]
    return start_map_from_json_value(value, str(path))


def _finish_run(session: Session, args: argparse.Namespace) -> int:
    if args.output is not None:
        sessions.write_session_file(session, args.output)
        where = str(args.output)
    if args.output is None or getattr(args, "save", False):
        with open_workspace(args.workspace) as ws:
            ws.sessions.save(session)
        where = f"workspace session {session.id}" if args.output is None else where
    calls = len(session.exchanges)
    warnings = session.warning_list
    map_failed = [w for w in warnings if "context-map update failed" in w]
    for warning in warnings:
        label = "error" if warning in map_failed and args.on_map_failure == "error" else "warning"
        say(f"axmem: {label}: {warning}", file=sys.stderr)
    for hit in session.limits_hit:
        say(f"axmem: note: {hit.render()}", file=sys.stderr)
    overridden = sessions.overridden_map_settings(session)
    if overridden:
        say(
            f"axmem: note: the agent's map settings replaced the carried map's ({overridden}); "
            "`--map-settings carried` keeps a carried map's own settings",
            file=sys.stderr,
        )
    if session.complete:
        say(f"recorded {calls} model calls: {where}")
        for fw in session.forwards:
            say(f"forward {fw.index + 1}: {json_dumps(fw.output)}")
        if map_failed and args.on_map_failure == "error":
            print(
                "axmem: the context-map update failed (--on-map-failure error); "
                "the session was kept",
                file=sys.stderr,
            )
            return 1
        return 0
    message = session.error.message if session.error is not None else None
    print(f"axmem: run ended early: {message}", file=sys.stderr)
    say(f"partial session ({calls} model calls) kept, marked incomplete: {where}")
    return 1


def _run(args: argparse.Namespace) -> int:
    inputs = _parse_inputs(args.input or [], args.inputs_file)
    settings = provider_settings(args)
    limits = _limits(args)
    with child_runs() as runner:  # (its child loads the engine meanwhile)
        with open_workspace(args.workspace, read_only=True) as ws:
            config = ws.agents.config(args.agent)
            catalog = ws.catalog.snapshot()
        session = sessions.run_agent(
            config,
            catalog,
            inputs,
            settings,
            context_map=_read_context_map(args.context_map),
            name=args.name or "",
            search=args.search,
            progress=_progress(args.quiet),
            map_rule=args.map_settings,
            limits=limits,
            runner=runner,
        )
    return _finish_run(session, args)


def _replay(args: argparse.Namespace) -> int:
    with child_runs() as runner:
        session = sessions.read_session_file(args.file)
        if not args.force:
            untrusted = sessions.claims_warning(session)
            if untrusted:
                raise InputError(
                    f"{args.file}: {untrusted}, so its code is not run (check it with "
                    "`axmem verify`; replay it anyway with --force)"
                )
        report = sessions.replay(session, runner=runner)
    if args.json:
        print_json(report.to_json())
    else:
        write_report(report.render())
    return 0 if report.identical else 1


def _verify(args: argparse.Namespace) -> int:
    report = sessions.verify(sessions.read_session_file(args.file))
    if args.json:
        print_json(report.to_json())
    else:
        write_report(report.render())
    return 0 if report.ok else 1


def _catalog_arg(args: argparse.Namespace) -> Any:
    if args.catalog is not None:
        from axmem_gui.services.catalogs import read_catalog_file

        return read_catalog_file(args.catalog)
    if args.workspace is not None:
        with open_workspace(args.workspace, read_only=True) as ws:
            return ws.catalog.snapshot()
    return None


def _rerun(args: argparse.Namespace) -> int:
    settings, limits = provider_settings(args), _limits(args)
    with child_runs() as runner:
        recorded = sessions.read_session_file(args.file)
        catalog = _catalog_arg(args)
        new = sessions.rerun_session(
            recorded,
            settings,
            catalog=catalog,
            search=args.search,
            progress=_progress(args.quiet),
            name=args.name or "",
            limits=limits,
            runner=runner,
        )
    args.save = False
    return _finish_run(new, args)


def _diff(args: argparse.Namespace) -> int:
    a = sessions.read_session_file(args.a)
    b = sessions.read_session_file(args.b)
    comparison = sessions.compare(a, b)
    if args.json:
        print_json(comparison.to_json())
    else:
        write_report(render_comparison(comparison))
    return 0


def _whatif(args: argparse.Namespace) -> int:
    session = sessions.read_session_file(args.file)
    catalog = _catalog_arg(args)
    if catalog is None:
        with open_workspace(None, read_only=True) as ws:
            catalog = ws.catalog.snapshot()
    report = sessions.whatif(session, catalog, args.search)
    if args.json:
        print_json(report.to_json())
    else:
        write_report(render_whatif(report))
    return 0


def _list(args: argparse.Namespace) -> int:
    with open_workspace(args.workspace, read_only=True) as ws:
        rows = ws.sessions.rows()
    held = sum(1 for r in rows if r.quarantine)
    if args.json:
        print_json([r.to_json() for r in rows])
        return 0
    if not rows:
        print("no sessions yet: record one with `axmem run` or import a .axsession.json")
        return 0
    for r in rows:
        # escaped for the terminal (say), and a stranger's megabyte name cut to a line
        say(
            f"{_cell(r.id)}  {_cell(r.status):<10}  {_cell(r.agent):<20}  "
            f"{_cell(r.provider)}/{_cell(r.model)}  {counted(r.exchanges, 'call')}  "
            f"{_cell(r.created_at)}  {_cell(r.name, LIST_NAME_CHARS)}"
            + ("  [quarantine]" if r.quarantine else "")
        )
    if held:
        say(
            f"{counted(held, 'session')} in [quarantine]: imported from a file that does not "
            "hold what it claims (`axmem verify` on the file says what); the app runs its "
            "code only once you confirm",
            file=sys.stderr,
        )
    return 0


#: Characters of a field `sessions list` shows (longer ones end with "…").
LIST_FIELD_CHARS, LIST_NAME_CHARS = 80, 120


def _cell(value: object, limit: int = LIST_FIELD_CHARS) -> str:
    text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _export(args: argparse.Namespace) -> int:
    with open_workspace(args.workspace, read_only=True) as ws:
        ws.sessions.export(args.id, args.output)
    say(f"exported session {args.id} to {args.output}")
    return 0


def _import(args: argparse.Namespace) -> int:
    # Never replaces a stored session: a different one with a taken id is kept beside it.
    session = sessions.read_session_file(args.file)
    warning = sessions.claims_warning(session)
    with open_workspace(args.workspace) as ws:
        session_id, stored, taken = ws.sessions.store(session, quarantine=warning)
    if not stored:
        say(f"session {session_id} is already in the workspace: nothing imported")
        return 0
    calls = len(session.exchanges)
    say(f"imported session {session_id} ({session.agent.name}, {calls} model calls)")
    if taken:
        note = f"axmem: note: id {taken} is taken by another session; both are kept"
        say(note, file=sys.stderr)
    if warning:
        say(
            f"axmem: warning: {warning}; `axmem verify FILE` shows them. It is kept in "
            "quarantine: the app replays or reruns it only once you confirm",
            file=sys.stderr,
        )
    return 0


def _test_connection(args: argparse.Namespace) -> int:
    report = check_connection(provider_settings(args))
    if args.json:
        print_json(report.to_json())
    else:
        state = "ok" if report.ok else "FAILED"
        say(f"{state}: {report.message} ({report.latency_ms:.0f} ms, model {report.model})")
    return 0 if report.ok else 1


def _add_run_output(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "-o", "--output", type=Path, metavar="OUT", help="write the session here (.axsession.json)"
    )
    p.add_argument("--name", help="session name")
    p.add_argument(
        "--search",
        choices=SEARCH_BACKENDS,
        default=None,
        help="who answers discover/recall (default: axmem-ax, the Ax-exact search)",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    p.add_argument(
        "--on-map-failure",
        choices=("warn", "error"),
        default="warn",
        help="a failed context-map update: a warning on stderr (default), or exit 1",
    )
    defaults = CodeLimits()
    limits = p.add_argument_group(
        "limits on the model's code",
        "code beyond a limit fails as a thrown error the model sees; the limits are "
        "recorded, and a replay uses them",
    )
    limits.add_argument(
        "--code-time-limit",
        type=float,
        default=defaults.time_s,
        metavar="S",
        help=f"CPU seconds for one execution (default {defaults.time_s:g})",
    )
    limits.add_argument(
        "--code-memory-limit",
        type=int,
        default=defaults.memory_mib,
        metavar="MIB",
        help=f"memory of the JavaScript runtime (default {defaults.memory_mib})",
    )
    limits.add_argument(
        "--code-stack-limit",
        type=int,
        default=defaults.stack_kib,
        metavar="KIB",
        help=f"JavaScript call stack (default {defaults.stack_kib})",
    )
    limits.add_argument(
        "--code-size-limit",
        type=int,
        default=defaults.code_kib,
        metavar="KIB",
        help=f"source of one execution; larger code is not run (default {defaults.code_kib})",
    )


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("run", help="run a workspace agent live and record the session")
    add_workspace_arg(p)
    p.add_argument("--agent", required=True, metavar="NAME", help="agent config name")
    p.add_argument(
        "--input",
        action="append",
        metavar="KEY=VALUE",
        help="an input value (repeatable); KEY=@FILE reads the value from a file",
    )
    p.add_argument(
        "--inputs-file",
        type=Path,
        metavar="FILE",
        help="JSON object of inputs, or a list of them for several forwards",
    )
    p.add_argument(
        "--context-map",
        type=Path,
        metavar="FILE",
        help="context map to start from (snapshot JSON or Markdown text)",
    )
    p.add_argument(
        "--map-settings",
        choices=MAP_SETTINGS_RULES,
        default="agent",
        help="whose maxChars/infiniteEvolve/evolveSteps apply to the --context-map: the "
        "agent's (default) or the map's own; a difference is warned about and recorded",
    )
    p.add_argument(
        "--save",
        action="store_true",
        help="also store the session in the workspace (default when no -o)",
    )
    add_provider_args(p)
    _add_run_output(p)
    p.set_defaults(handler=_run)

    p = sub.add_parser("replay", help="replay a recorded session offline and check it")
    p.add_argument("file", type=Path, metavar="FILE", help=".axsession.json file")
    p.add_argument("--json", action="store_true", help="machine-readable report")
    p.add_argument(
        "--force",
        action="store_true",
        help="replay a file that does not hold what it claims (`verify` fails): its code "
        "is untrusted, and it runs in the cage all the same",
    )
    p.set_defaults(handler=_replay)

    p = sub.add_parser(
        "verify",
        help="check a session file without running the agent: stored requests against "
        "their digests, searches re-run on the recorded catalog, derived fields",
    )
    p.add_argument("file", type=Path, metavar="FILE", help=".axsession.json file")
    p.add_argument("--json", action="store_true", help="machine-readable report")
    p.set_defaults(handler=_verify)

    p = sub.add_parser("rerun", help="run a session's inputs again on another model/catalog")
    p.add_argument("file", type=Path, metavar="FILE", help=".axsession.json file")
    add_workspace_arg(p)
    p.add_argument(
        "--catalog",
        type=Path,
        metavar="FILE",
        help="catalog JSON to use instead of the recorded one",
    )
    add_provider_args(p)
    _add_run_output(p)
    p.set_defaults(handler=_rerun)

    p = sub.add_parser(
        "diff",
        help="compare two sessions: agent config keys and catalog entries that differ, then "
        "call by call",
    )
    p.add_argument("a", type=Path, metavar="A")
    p.add_argument("b", type=Path, metavar="B")
    p.add_argument("--json", action="store_true", help="machine-readable comparison")
    p.set_defaults(handler=_diff)

    p = sub.add_parser("whatif", help="recompute a session's discover/recall on a catalog")
    p.add_argument("file", type=Path, metavar="FILE")
    add_workspace_arg(p)
    p.add_argument("--catalog", type=Path, metavar="FILE", help="catalog JSON file")
    p.add_argument("--search", choices=SEARCH_BACKENDS, default=None, help="search backend")
    p.add_argument("--json", action="store_true", help="machine-readable report")
    p.set_defaults(handler=_whatif)

    p = sub.add_parser("test-connection", help="send one tiny request to a model provider")
    add_provider_args(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=_test_connection)

    p = sub.add_parser("sessions", help="sessions stored in the workspace")
    ss = p.add_subparsers(dest="sessions_command", metavar="ACTION", required=True)
    q = ss.add_parser("list", help="list stored sessions")
    add_workspace_arg(q)
    q.add_argument("--json", action="store_true")
    q.set_defaults(handler=_list)
    q = ss.add_parser("export", help="write a stored session to a .axsession.json file")
    add_workspace_arg(q)
    q.add_argument("id", metavar="ID")
    q.add_argument("-o", "--output", type=Path, required=True, metavar="FILE")
    q.set_defaults(handler=_export)
    q = ss.add_parser("import", help="validate and store a .axsession.json file")
    add_workspace_arg(q)
    q.add_argument("file", type=Path, metavar="FILE")
    q.set_defaults(handler=_import)
