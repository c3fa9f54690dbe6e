"""Running the `axmem` CLI in-process, as its tests do."""

from __future__ import annotations

import pytest

from axmem_gui.cli.main import main


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """`axmem *argv`: its exit code, stdout and stderr."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err
