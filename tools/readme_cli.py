"""The README's CLI table, generated from the `axmem` argparse parser (what `axmem --help`
and each command's `--help` print), so it cannot drift from the program.

    make readme                      # rewrite the table in README.md (cog -r README.md)
    python -m tools.readme_cli       # the same

tests/cli/test_readme_cli.py fails when README.md is stale.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator
from pathlib import Path

from axmem_gui.cli.main import build_parser

README = Path(__file__).resolve().parents[1] / "README.md"


def _subcommands(
    parser: argparse.ArgumentParser,
) -> Iterator[tuple[str, str, argparse.ArgumentParser]]:
    """(name, help, parser) of each subcommand, in help order."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield name, helps.get(name, ""), sub


def _usage(parser: argparse.ArgumentParser) -> str:
    text = " ".join(parser.format_usage().split())
    text = re.sub(r"^usage: ", "", text)
    return text.replace(" [-h]", "")


def rows(parser: argparse.ArgumentParser | None = None) -> list[tuple[str, str]]:
    """(usage, help) for every leaf command."""
    parser = parser or build_parser()
    out: list[tuple[str, str]] = []

    def walk(p: argparse.ArgumentParser, help_text: str) -> None:
        children = list(_subcommands(p))
        if not children:
            out.append((_usage(p), help_text))
        for _name, child_help, child in children:
            walk(child, child_help)

    for _name, help_text, sub in _subcommands(parser):
        walk(sub, help_text)
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def cli_table() -> str:
    lines = ["| command | what it does |", "| --- | --- |"]
    lines += [f"| `{_cell(usage)}` | {_cell(help_text)} |" for usage, help_text in rows()]
    return "\n".join(lines) + "\n"


def main() -> int:
    from cogapp import Cog

    root = str(README.parent)
    return int(Cog().main(["cog", "-I", root, "-r", str(README)]) or 0)


if __name__ == "__main__":
    sys.exit(main())
