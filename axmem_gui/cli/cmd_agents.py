"""`axmem agents list|show|add|edit|remove`: agent configs of a workspace, JSON in and out.

`add` and `edit` read a config (the JSON `axmem agents show NAME` prints under "config", or
a whole `show` document) from a file or standard input (`-`); every write prints the stored
config with its new revision. `edit --revision N` and `remove --revision N` are refused when
the config moved on since revision N. The signature is checked against both runtimes: a
config axllm (which runs it here) refuses is not stored; what @ax-llm/ax (a TypeScript app)
refuses is stored, listed under "runtimeRefusals" and on stderr. Exit codes: 0 done, 2 bad
input or conflict.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from axmem_gui.cli.common import add_workspace_arg, print_json, say
from axmem_gui.core.session.agent_config import AgentConfig
from axmem_gui.services import agents
from axmem_gui.services.agents import StoredAgent
from axmem_gui.services.workspace import open_workspace


def _read(path: Path) -> AgentConfig:
    if str(path) == "-":
        return agents.config_from_text(sys.stdin.read(), "standard input")
    return agents.read_config_file(path)


def _written(agent: StoredAgent) -> dict[str, Any]:
    """What a write prints: the config as stored, with its new revision."""
    return {"name": agent.name, "revision": agent.revision, "config": agent.stored}


def _list(args: argparse.Namespace) -> int:
    with open_workspace(args.workspace, read_only=True) as ws:
        items = ws.agents.all()
    if args.json:
        print_json(
            [
                {
                    "name": a.name,
                    "revision": a.revision,
                    "signature": a.signature,
                    "updated_at": a.updated_at,
                }
                for a in items
            ]
        )
    elif not items:
        say("no agent configs yet: add one with `axmem agents add FILE`")
    else:
        for a in items:
            say(f"{a.name:<24} r{a.revision:<4} {a.signature or '(' + a.problem + ')'}")
    return 0


def _show(args: argparse.Namespace) -> int:
    with open_workspace(args.workspace, read_only=True) as ws:
        print_json(ws.agents.get(args.name).show_json())
    return 0


def _with_refusals(printed: dict[str, Any], config: AgentConfig) -> dict[str, Any]:
    """What a write prints, with what @ax-llm/ax refuses in the signature (also on
    stderr): stored anyway, the studio runs it."""
    refusals = agents.signature_refusals(config.signature)
    for refusal in refusals:
        print(f"axmem: warning: {refusal}", file=sys.stderr)
    return {**printed, "runtimeRefusals": [r.to_json() for r in refusals]}


def _add(args: argparse.Namespace) -> int:
    config = _read(args.file)
    with open_workspace(args.workspace) as ws:
        print_json(_with_refusals(_written(ws.agents.add(config)), config))
    return 0


def _edit(args: argparse.Namespace) -> int:
    config = _read(args.file)
    with open_workspace(args.workspace) as ws:
        stored = ws.agents.edit(args.name, config, args.revision)
        print_json(_with_refusals(_written(stored), config))
    return 0


def _remove(args: argparse.Namespace) -> int:
    with open_workspace(args.workspace) as ws:
        ws.agents.remove(args.name, args.revision)
    print_json({"removed": args.name})
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    group = sub.add_parser(
        "agents",
        help="agent configs of a workspace: list, show, add, edit, remove (JSON)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = group.add_subparsers(dest="agents_command", metavar="ACTION", required=True)

    p = actions.add_parser("list", help="agent names, revisions and signatures")
    add_workspace_arg(p)
    p.add_argument("--json", action="store_true", help="machine-readable list")
    p.set_defaults(handler=_list)

    p = actions.add_parser("show", help='print {"name", "revision", "config"} as JSON')
    add_workspace_arg(p)
    p.add_argument("name", metavar="NAME")
    p.set_defaults(handler=_show)

    p = actions.add_parser("add", help="add an agent config from a JSON file (- = stdin)")
    add_workspace_arg(p)
    p.add_argument("file", type=Path, metavar="FILE")
    p.set_defaults(handler=_add)

    p = actions.add_parser("edit", help="replace an agent config (a new name renames it)")
    add_workspace_arg(p)
    p.add_argument("name", metavar="NAME")
    p.add_argument("file", type=Path, metavar="FILE")
    p.add_argument(
        "--revision", type=int, metavar="N", help="refuse if the config is no longer at N"
    )
    p.set_defaults(handler=_edit)

    p = actions.add_parser("remove", help="remove an agent config")
    add_workspace_arg(p)
    p.add_argument("name", metavar="NAME")
    p.add_argument(
        "--revision", type=int, metavar="N", help="refuse if the config is no longer at N"
    )
    p.set_defaults(handler=_remove)
