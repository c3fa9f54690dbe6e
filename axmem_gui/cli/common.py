"""Helpers shared by the CLI command modules."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from typing import Any, TextIO

from axmem_gui.core.jsout import json_dumps
from axmem_gui.core.printable import printable
from axmem_gui.core.wording import counted as counted  # the CLI's commands use it
from axmem_gui.services.files import read_utf8_file


def add_workspace_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workspace",
        "-w",
        metavar="PATH",
        type=Path,
        default=None,
        help="workspace file (.axmem); default: the default workspace",
    )


def print_json(value: Any) -> None:
    sys.stdout.write(json_dumps(value, indent=2))
    sys.stdout.write("\n")


class SafeTextStream(io.TextIOBase):
    """Writes through `printable`: every message the CLI prints about user data (stderr,
    and the human-readable reports on stdout) passes here."""

    def __init__(self, inner: TextIO) -> None:
        self._inner = inner

    def write(self, text: str) -> int:
        self._inner.write(printable(text))
        return len(text)

    def flush(self) -> None:
        self._inner.flush()

    def isatty(self) -> bool:
        return self._inner.isatty()


def say(*parts: object, file: TextIO | None = None) -> None:
    """print() for messages that carry user data: escaped for the terminal."""
    print(printable(" ".join(str(p) for p in parts)), file=file or sys.stdout)


def write_report(text: str) -> None:
    """Write a human-facing report (search results, simulations, replays, diffs) to stdout
    with user data escaped for the terminal. Never for the exact Ax rendering or JSON."""
    sys.stdout.write(printable(text))


def read_text_file(path: Path, what: str = "file") -> str:
    """The file's text, or an InputError naming it (see `read_utf8_file`)."""
    return read_utf8_file(path, what)
