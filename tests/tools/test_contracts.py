"""Every import contract of pyproject.toml fails on the import it forbids.

A green `make contract` says nothing if a contract cannot fail (a misspelt module, a
source list that misses a package, an `ignore_imports` that swallows too much). So each
case copies the package and pyproject.toml to a temporary folder, plants one import (or
one new module), runs import-linter on the copy and expects exactly the named contract
to break, and every other to hold. The unplanted copy keeps every contract.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

LAYERS = "Layers: app > ui|cli > services > engine|store > core"
CORE_PURE = "core is pure: no Qt, no SQL, no Ax runtime"
NO_QT_BELOW_UI = "store, engine and services do not import Qt"
UI_STORE = "ui reaches the store only through services"
UI_ENGINE = "ui reaches the Ax runtime only through services"
CLI_APP = "cli and app reach the store and the Ax runtime only through services"
AXLLM = "the Ax runtime (axllm) is imported by engine only"
SQL = "SQL (sqlite3, sqlite_utils) is imported by store only"
UI_LAYERS = "Inside ui: every module in a layer; features above what they need, no arrow back up"
CONTRACTS = (LAYERS, CORE_PURE, NO_QT_BELOW_UI, UI_STORE, UI_ENGINE, CLI_APP, AXLLM, SQL, UI_LAYERS)


@dataclass(frozen=True)
class Plant:
    contract: str
    module: str  # a file of the package, relative to axmem_gui/
    line: str  # appended to it (a new file when it does not exist)
    why: str


PLANTS = (
    Plant(UI_STORE, "ui/navigator.py", "import axmem_gui.store.repositories", "a repository"),
    Plant(UI_STORE, "ui/pages.py", "import axmem_gui.services.store_access", "the accessor"),
    Plant(UI_ENGINE, "ui/evals/feature.py", "import axmem_gui.engine.clients", "evals"),
    Plant(CLI_APP, "cli/cmd_catalog.py", "import axmem_gui.store", "cli to the store"),
    Plant(CLI_APP, "cli/cmd_eval.py", "import axmem_gui.engine.search", "cli to the engine"),
    Plant(CLI_APP, "app.py", "import axmem_gui.store.workspace", "app to the store"),
    Plant(AXLLM, "services/bench.py", "import axllm", "services to axllm"),
    Plant(AXLLM, "ui/tasks.py", "import axllm", "ui to axllm"),
    Plant(SQL, "services/bench.py", "import sqlite3", "the issue's example"),
    Plant(SQL, "engine/search.py", "import sqlite_utils", "engine to sqlite_utils"),
    Plant(UI_LAYERS, "ui/navigator.py", "import axmem_gui.ui.evals.feature", "shell to a feature"),
    Plant(UI_LAYERS, "ui/navigator_extras.py", '"""A ui module in no layer."""', "exhaustive"),
    Plant(LAYERS, "store/records.py", "import axmem_gui.services.files", "store up to services"),
    Plant(CORE_PURE, "core/printable.py", "import keyring", "core to keyring"),
    Plant(NO_QT_BELOW_UI, "services/bench.py", "import PySide6.QtCore", "services to Qt"),
)


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "copy"
    shutil.copytree(
        ROOT / "axmem_gui",
        root / "axmem_gui",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "resources"),
    )
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


def _lint(root: Path) -> tuple[dict[str, str], str]:
    """{contract name: "KEPT" | "BROKEN"} of import-linter run on the copy at `root`."""
    env = dict(os.environ, PYTHONPATH=str(root))
    done = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    out = done.stdout + done.stderr
    # A long name wraps onto the next line: join the report's lines before matching.
    flat = " ".join(out.split())
    states = {
        name: match.group(1)
        for name in CONTRACTS
        if (match := re.search(re.escape(name) + r" (KEPT|BROKEN)", flat)) is not None
    }
    return states, out


def test_the_copy_keeps_every_contract(tmp_path: Path) -> None:
    states, out = _lint(_copy(tmp_path))
    assert states == dict.fromkeys(CONTRACTS, "KEPT"), out


@pytest.mark.parametrize("plant", PLANTS, ids=lambda p: f"{p.module}:{p.why}")
def test_a_planted_import_breaks_exactly_its_contract(plant: Plant, tmp_path: Path) -> None:
    root = _copy(tmp_path)
    target = root / "axmem_gui" / plant.module
    text = target.read_text(encoding="utf-8") if target.exists() else ""
    target.write_text(text + "\n" + plant.line + "\n", encoding="utf-8")
    states, out = _lint(root)
    expected = {name: ("BROKEN" if name == plant.contract else "KEPT") for name in CONTRACTS}
    assert states == expected, out
