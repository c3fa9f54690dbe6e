"""The README's CLI table is generated from `axmem --help` (tools/readme_cli.py) and must be
current: after adding or changing a command, run `make readme`."""

from __future__ import annotations

import argparse
import re

from tools.readme_cli import README, cli_table, rows

BEGIN = "<!-- [[[cog import tools.readme_cli; cog.out(tools.readme_cli.cli_table()) ]]] -->\n"
END = "<!-- [[[end]]] -->"


def readme_table() -> str:
    text = README.read_text(encoding="utf-8")
    assert BEGIN in text and END in text, "README.md lost its generated CLI table markers"
    return text.split(BEGIN, 1)[1].split(END, 1)[0]


def test_readme_cli_table_is_current() -> None:
    assert readme_table() == cli_table(), (
        "README.md's CLI table is stale: run `make readme` and commit README.md"
    )


def test_every_command_of_axmem_help_is_in_the_table() -> None:
    from axmem_gui.cli.main import build_parser

    parser = build_parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    table = readme_table()
    for name in sub.choices:
        assert re.search(rf"\| `axmem {re.escape(name)}\b", table), name


def test_a_new_command_makes_the_table_stale() -> None:
    from axmem_gui.cli.main import build_parser

    parser = build_parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    sub.add_parser("brand-new", help="a command the README does not know yet")
    assert ("axmem brand-new", "a command the README does not know yet") in rows(parser)
    assert "brand-new" not in readme_table()
