"""The `axmem` command: a thin argparse front over services.

Each command group lives in its own module under `axmem_gui.cli` and exposes
`register(subparsers)`; `COMMAND_MODULES` lists them in help order. A handler gets the
parsed args and returns the exit code. User-facing errors (`AxmemError`) become one line
on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from axmem_gui import __version__
from axmem_gui.cli.common import SafeTextStream
from axmem_gui.core.ax.icutext import text_engine
from axmem_gui.core.ax.profile import DEFAULT_AX_VERSION
from axmem_gui.core.errors import AxmemError
from axmem_gui.core.jsout import JS_TEXT_ERRORS

COMMAND_MODULES: tuple[str, ...] = (
    "axmem_gui.cli.cmd_workspace",
    "axmem_gui.cli.cmd_catalog",
    "axmem_gui.cli.cmd_contextmap",
    "axmem_gui.cli.cmd_suite",
    "axmem_gui.cli.cmd_transfer",
    "axmem_gui.cli.cmd_lint",
    "axmem_gui.cli.cmd_sessions",
    "axmem_gui.cli.cmd_agents",
    "axmem_gui.cli.cmd_eval",
    "axmem_gui.cli.cmd_ax",
)


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as `axmem: error: ...` with exit code 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="axmem",
        description="Ax Memory & Skills Studio, headless: render, search, lint, import, "
        "export, suites, sessions and context maps.",
    )
    parser.add_argument(
        "--version", action=_VersionAction, help="show the version, Ax profile and Unicode engine"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def version_text() -> str:
    """`axmem --version`: the program, the Ax profile, and the Unicode engine in use."""
    return (
        f"axmem {__version__}\n"
        f"Ax profile: @ax-llm/ax {DEFAULT_AX_VERSION}\n"
        f"Unicode text: {text_engine().describe()}"
    )


class _VersionAction(argparse.Action):
    """`--version` printed as is (argparse's own action re-wraps the lines)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help=str(kwargs.get("help", "")))

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        sys.stdout.write(version_text() + "\n")
        parser.exit()


def _js_text_streams() -> None:
    """stdout/stderr follow the text rule of `core.jsout`: a lone surrogate (half an
    emoji cut by Ax) is written as U+FFFD, as Node writes it, instead of crashing."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors=JS_TEXT_ERRORS)


def main(argv: Sequence[str] | None = None) -> int:
    _js_text_streams()
    return run(build_parser(), argv)


def run(parser: argparse.ArgumentParser, argv: Sequence[str] | None = None) -> int:
    """`main` with a parser built once (building one costs more than most commands)."""
    words = list(argv) if argv is not None else sys.argv[1:]
    if any("\0" in word for word in words):
        # (no shell can pass one; a path with one reaches os.stat as a ValueError)
        parser.error("an argument contains a NUL character")
    args = parser.parse_args(words)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    real_stderr = sys.stderr
    sys.stderr = SafeTextStream(real_stderr)  # every message names user data safely
    try:
        code = handler(args)
    except AxmemError as exc:
        print(f"axmem: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("axmem: interrupted", file=sys.stderr)
        return 130
    finally:
        sys.stderr = real_stderr
    return int(code or 0)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
