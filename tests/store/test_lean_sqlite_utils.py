"""The store imports sqlite-utils without numpy or pandas (they cost start-up ~80 ms and
more; the store never stores their values), and leaves them importable for others."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import sys
import axmem_gui.store
print("numpy" in sys.modules, "pandas" in sys.modules)
import numpy, pandas
print(numpy.FAKE, pandas.FAKE)
"""


def test_the_store_does_not_import_numpy_or_pandas(tmp_path: Path) -> None:
    # Stand-ins that would be found first: importing them is what is measured.
    for name in ("numpy", "pandas"):
        (tmp_path / f"{name}.py").write_text(f"FAKE = '{name} stand-in'\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out == ["False False", "numpy stand-in pandas stand-in"]
