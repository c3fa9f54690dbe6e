"""Helpers shared by the CLI command modules."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from axmem_gui.core.jsout import json_dumps
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


def read_text_file(path: Path, what: str = "file") -> str:
    """The file's text, or an InputError naming it (see `read_utf8_file`)."""
    return read_utf8_file(path, what)
