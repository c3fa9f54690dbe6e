"""`axmem contextmap apply|diff|show`: context maps offline, with Ax's own update rules.

A STATE file is a TS `AxAgentContextMapSnapshot` or an axllm `context_map` dict (`.json`,
shape detected), or plain map text (any other suffix: a fresh map over that text, written
back as a TS snapshot), or a recorded session (`.axsession.json`): `--forward N` picks the
map after (or `--before`) forward N; `diff SESSION --forward N` shows what forward N's
update did, evictions included.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from axmem_gui.cli.common import print_json, read_text_file, say, write_report
from axmem_gui.core.contextmap import (
    StoredContextMap,
    apply_update,
    diff_maps,
    diff_to_json,
    map_summary_json,
    parse_json_text,
    render_diff,
    render_summary,
    stored_map_from_json_value,
    stored_map_from_text,
    update_payload_from_json_value,
    update_result_to_json,
)
from axmem_gui.core.errors import InputError
from axmem_gui.core.session.app_session import map_update_of
from axmem_gui.core.session.model import Session
from axmem_gui.services import contextmaps, sessions


def _session(path: Path) -> Session | None:
    """The session when `path` is a `.axsession.json` file, else None."""
    if path.suffix.lower() != ".json":
        return None
    value = parse_json_text(read_text_file(path, "context map file"), str(path))
    if isinstance(value, dict) and value.get("format") == "axsession":
        return sessions.read_session_file(path)
    return None


def _last_forward(session: Session) -> int:
    ran = session.ran_forwards
    return ran[-1].index + 1 if ran else 1


def _load_state(path: Path, forward: int | None = None, which: str = "after") -> StoredContextMap:
    session = _session(path)
    if session is not None:
        n = forward if forward is not None else _last_forward(session)
        return contextmaps.session_map_at(session, n, which, str(path))
    if forward is not None:
        raise InputError(f"{path}: --forward needs a session file (.axsession.json)")
    text = read_text_file(path, "context map file")
    if path.suffix.lower() == ".json":
        return stored_map_from_json_value(parse_json_text(text, str(path)), str(path))
    return stored_map_from_text(text)


def _update_record(path: Path, forward: int | None) -> dict[str, Any] | None:
    session = _session(path)
    if session is None:
        return None
    n = forward if forward is not None else _last_forward(session)
    fws = session.forwards
    record = map_update_of(session, fws[n - 1]) if 0 < n <= len(fws) else None
    return None if record is None else record.to_json()


def _apply(args: argparse.Namespace) -> int:
    stored = _load_state(args.state)
    update_text = read_text_file(args.update, "update file")
    payload = update_payload_from_json_value(
        parse_json_text(update_text, str(args.update)), str(args.update)
    )
    result = apply_update(stored.state, payload)
    state_value = stored.with_state(result.state).to_json_value()
    print_json(update_result_to_json(result, state_value) if args.result else state_value)
    return 0


def _diff(args: argparse.Namespace) -> int:
    if args.after is None:
        # One session file: the map before and after forward N, and what the update did.
        if _session(args.before) is None:
            raise InputError(
                f"{args.before}: give two maps, or one session file (with --forward N)"
            )
        before = _load_state(args.before, args.forward, "before")
        after = _load_state(args.before, args.forward, "after")
        record = _update_record(args.before, args.forward)
    else:
        before = _load_state(args.before, args.forward)
        after = _load_state(args.after, args.forward)
        record = None
    diff = diff_maps(before.state, after.state)
    if args.json:
        value = diff_to_json(diff)
        if record is not None:
            value["update"] = record
        print_json(value)
    else:
        write_report(render_diff(diff))
        if record is not None:
            print("update:")
            for line in contextmaps.describe_update(record):
                say(f"  {line}")
    return 0


def _show(args: argparse.Namespace) -> int:
    stored = _load_state(args.state, args.forward, "before" if args.before else "after")
    if args.json:
        summary = map_summary_json(stored.state)
        summary["shape"] = stored.shape.value
        print_json(summary)
    else:
        write_report(render_summary(stored.state))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    group = sub.add_parser(
        "contextmap",
        help="apply, diff and inspect Ax context maps offline",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = group.add_subparsers(dest="contextmap_command", metavar="ACTION")
    group.set_defaults(handler=lambda _args: _usage(group))

    p = actions.add_parser(
        "apply",
        help="apply a Distiller/Cartographer update; print the new state (same shape)",
    )
    p.add_argument("state", metavar="STATE", type=Path, help="state .json or map text file")
    p.add_argument(
        "update",
        metavar="UPDATE.json",
        type=Path,
        help='{"itemTags": {...}, "operations": [...]} as the two model calls return them',
    )
    p.add_argument(
        "--result",
        action="store_true",
        help="print the whole result (status, applied, evicted, dropped) instead",
    )
    p.set_defaults(handler=_apply)

    p = actions.add_parser(
        "diff",
        help="items added/removed/replaced/moved/rescored, steps; or one session file: "
        "the map before and after forward N, with the update (evictions included)",
    )
    p.add_argument("before", metavar="A", type=Path, help="a map, or a .axsession.json file")
    p.add_argument("after", metavar="B", type=Path, nargs="?", help="the other map")
    p.add_argument(
        "--forward",
        type=int,
        metavar="N",
        help="for session files: forward N (1-based; default the last that ran)",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=_diff)

    p = actions.add_parser(
        "show",
        help="sections, items, scores, budget and eviction order (of a map, or of a session "
        "file's map after/before forward N)",
    )
    p.add_argument("state", metavar="STATE", type=Path, help="a map, or a .axsession.json file")
    p.add_argument(
        "--forward",
        type=int,
        metavar="N",
        help="for a session file: the map after forward N (default the last that ran)",
    )
    p.add_argument(
        "--before", action="store_true", help="for a session file: the map before forward N"
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=_show)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2
