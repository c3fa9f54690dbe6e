"""`axmem catalog`: rename, delete, tag and restore entries, through the same catalog
service (and rules) as the desktop app's edits."""

from __future__ import annotations

import argparse

from axmem_gui.cli.common import add_workspace_arg, say
from axmem_gui.core.catalog import noun, singular
from axmem_gui.core.errors import InputError
from axmem_gui.services.workspace import open_workspace

KIND_CHOICES = ("skills", "memories")


def _rename(args: argparse.Namespace) -> int:
    with open_workspace(args.workspace) as ws:
        ws.catalog.rename(args.kind, args.old_id, args.new_id)
    say(f"renamed {singular(args.kind)} '{args.old_id}' to '{args.new_id}'")
    return 0


def _delete(args: argparse.Namespace) -> int:
    with open_workspace(args.workspace) as ws:
        catalog = ws.catalog
        missing = [i for i in args.ids if catalog.revision_of(args.kind, i) is None]
        if missing:
            raise InputError(f"no {singular(args.kind)} with id {', '.join(map(repr, missing))}")
        gone = catalog.delete(args.kind, args.ids)
    say(f"deleted {len(gone)} {noun(args.kind, len(gone))}")
    return 0


def _tag(args: argparse.Namespace) -> int:
    add = args.action == "add"
    with open_workspace(args.workspace) as ws:
        catalog = ws.catalog
        # As delete does: name every id that is not there, and change nothing.
        missing = [i for i in dict.fromkeys(args.ids) if catalog.revision_of(args.kind, i) is None]
        if missing:
            raise InputError(f"no {singular(args.kind)} with id {', '.join(map(repr, missing))}")
        changed = catalog.tag(args.kind, args.ids, args.tag, add=add)
    verb = "tagged" if add else "untagged"
    asked = len(set(args.ids))
    say(f"{verb} {len(changed)} of {asked} {noun(args.kind, asked)} ('{args.tag.strip()}')")
    return 0


def _restore(args: argparse.Namespace) -> int:
    with open_workspace(args.workspace) as ws:
        catalog = ws.catalog
        history = catalog.history(args.kind, args.id)
        chosen = [r for r in history if r.revision == args.revision]
        if not chosen:
            known = ", ".join(str(r.revision) for r in history) or "none"
            raise InputError(
                f"{singular(args.kind)} '{args.id}': no revision {args.revision} (known: {known})"
            )
        revision = catalog.restore(args.kind, chosen[-1])
    say(f"restored {singular(args.kind)} '{args.id}' to revision {args.revision} (now {revision})")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    group = sub.add_parser("catalog", help="rename, delete, tag and restore skills and memories")
    actions = group.add_subparsers(dest="action_group", metavar="ACTION", required=True)

    p = actions.add_parser("rename", help="change an entry's id (its history follows)")
    p.add_argument("kind", choices=KIND_CHOICES)
    p.add_argument("old_id")
    p.add_argument("new_id")
    add_workspace_arg(p)
    p.set_defaults(handler=_rename)

    p = actions.add_parser("delete", help="delete entries (restore brings them back)")
    p.add_argument("kind", choices=KIND_CHOICES)
    p.add_argument("ids", nargs="+", metavar="ID")
    add_workspace_arg(p)
    p.set_defaults(handler=_delete)

    p = actions.add_parser("tag", help="add or remove a tag on entries")
    p.add_argument("action", choices=("add", "remove"))
    p.add_argument("tag")
    p.add_argument("kind", choices=KIND_CHOICES)
    p.add_argument("ids", nargs="+", metavar="ID")
    add_workspace_arg(p)
    p.set_defaults(handler=_tag)

    p = actions.add_parser("restore", help="bring an entry back to a revision of its history")
    p.add_argument("kind", choices=KIND_CHOICES)
    p.add_argument("id")
    p.add_argument("revision", type=int)
    add_workspace_arg(p)
    p.set_defaults(handler=_restore)
