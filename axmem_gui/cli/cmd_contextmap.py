"""`axmem contextmap apply|diff|show`: context maps offline, with Ax's own update rules.

A STATE file is a TS `AxAgentContextMapSnapshot` or an axllm `context_map` dict (`.json`,
shape detected), or plain map text (any other suffix: a fresh map over that text, written
back as a TS snapshot).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from axmem_gui.cli.common import print_json, read_text_file
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


def _load_state(path: Path) -> StoredContextMap:
    text = read_text_file(path, "context map file")
    if path.suffix.lower() == ".json":
        return stored_map_from_json_value(parse_json_text(text, str(path)), str(path))
    return stored_map_from_text(text)


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
    diff = diff_maps(_load_state(args.before).state, _load_state(args.after).state)
    if args.json:
        print_json(diff_to_json(diff))
    else:
        print(render_diff(diff), end="")
    return 0


def _show(args: argparse.Namespace) -> int:
    stored = _load_state(args.state)
    if args.json:
        summary = map_summary_json(stored.state)
        summary["shape"] = stored.shape.value
        print_json(summary)
    else:
        print(render_summary(stored.state), end="")
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

    p = actions.add_parser("diff", help="items added/removed/replaced/moved/rescored, steps")
    p.add_argument("before", metavar="A", type=Path)
    p.add_argument("after", metavar="B", type=Path)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=_diff)

    p = actions.add_parser("show", help="sections, items, scores, budget and eviction order")
    p.add_argument("state", metavar="STATE", type=Path)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=_show)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2
