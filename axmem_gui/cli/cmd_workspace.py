"""`axmem init` and `axmem info`."""

from __future__ import annotations

import argparse
from pathlib import Path

from axmem_gui.cli.common import add_workspace_arg, counted, print_json, say
from axmem_gui.services.workspace import describe_workspace, init_workspace, require_suffix


def _init(args: argparse.Namespace) -> int:
    path = require_suffix(Path(args.path))
    ws = init_workspace(path, sample=args.sample)
    counts = ws.counts()
    ws.close()
    what = "with the sample catalog" if args.sample else "empty"
    entries = f"{counted(counts.skills, 'skill')}, {counted(counts.memories, 'memory', 'memories')}"
    say(f"created {path} ({what}: {entries})")
    return 0


def _info(args: argparse.Namespace) -> int:
    info = describe_workspace(args.workspace)
    if args.json:
        print_json(info)
        return 0
    counts = info["counts"]
    say(f"workspace: {info['path']}")
    say(f"schema version: {info['schema_version']}")
    if info["read_only"]:
        print("read-only: yes")
    for key in ("skills", "memories", "scenarios", "suites", "agents", "sessions", "contextmaps"):
        label = "context maps" if key == "contextmaps" else key
        say(f"{label}: {counts[key]}")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("init", help="create a new workspace file")
    p.add_argument("path", metavar="PATH", help="new workspace file (.axmem)")
    p.add_argument("--sample", action="store_true", help="seed it with the sample catalog")
    p.set_defaults(handler=_init)

    p = sub.add_parser("info", help="workspace path, schema version and entry counts")
    add_workspace_arg(p)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=_info)
