"""Make a folder truly read-only for the test process, whoever runs the tests.

Root ignores file modes, so as root the folder is bind-mounted read-only (what read-only
media looks like to the app); otherwise plain file modes do it."""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def read_only_folder(folder: Path) -> Iterator[Path]:
    if os.geteuid() == 0:
        subprocess.run(["mount", "--bind", str(folder), str(folder)], check=True)
        try:
            subprocess.run(["mount", "-o", "remount,ro,bind", str(folder)], check=True)
            yield folder
        finally:
            subprocess.run(["umount", str(folder)], check=True)
        return
    modes = {p: p.stat().st_mode for p in [folder, *folder.iterdir()]}
    for p in modes:
        p.chmod(stat.S_IRUSR | (stat.S_IXUSR if p.is_dir() else 0))
    try:
        yield folder
    finally:
        for p, mode in modes.items():
            p.chmod(mode)
