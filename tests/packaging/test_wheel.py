"""The wheel (what `pipx install .` and `pip install .` build): it carries the top-level
resources/ inside the package, the Ax profiles and the sample data, and an installed copy
finds all of them without the repository around it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from axmem_gui import __version__
from tests.packaging.conftest import REPO_ROOT

#: What a clean clone needs to build the wheel (copied, so the build never writes into the
#: shared work tree).
BUILD_INPUTS = ("pyproject.toml", "README.md", "NOTICE", "axmem_gui", "resources", "packaging")
_SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", "*.axmem", "*.axmem-*")


def repo_files(folder: str, pattern: str = "*") -> set[str]:
    root = REPO_ROOT / folder
    return {
        p.relative_to(root).as_posix()
        for p in root.rglob(pattern)
        if p.is_file() and "__pycache__" not in p.parts
    }


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = tmp_path_factory.mktemp("source")
    for name in BUILD_INPUTS:
        path = REPO_ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=_SKIP)
        else:
            shutil.copy2(path, source / name)
    out = tmp_path_factory.mktemp("wheel")
    run = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    (built,) = out.glob("axmem_gui-*.whl")
    return built


def wheel_names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_wheel_carries_resources_inside_the_package(wheel: Path) -> None:
    names = wheel_names(wheel)
    expected = {f"axmem_gui/resources/{f}" for f in repo_files("resources")}
    assert "axmem_gui/resources/styles/base.qss" in expected
    assert expected <= names
    # Nothing lands at the top of site-packages besides the package and its metadata.
    assert {n.split("/")[0] for n in names} == {"axmem_gui", f"axmem_gui-{__version__}.dist-info"}


def test_wheel_carries_ax_profiles_and_sample_data(wheel: Path) -> None:
    names = wheel_names(wheel)
    profiles = {f"axmem_gui/core/ax/profiles/{f}" for f in repo_files("axmem_gui/core/ax/profiles")}
    sample = {f"axmem_gui/sample/{f}" for f in repo_files("axmem_gui/sample")}
    assert profiles and sample
    assert profiles | sample <= names


def test_wheel_carries_the_notice(wheel: Path) -> None:
    # Apache-2.0 section 4(d): the Ax-derived profiles ship with the NOTICE file.
    with zipfile.ZipFile(wheel) as archive:
        notice = archive.read(f"axmem_gui-{__version__}.dist-info/licenses/NOTICE")
    assert notice == (REPO_ROOT / "NOTICE").read_bytes()


def test_wheel_declares_both_programs(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        entry_points = archive.read(f"axmem_gui-{__version__}.dist-info/entry_points.txt").decode()
    assert "axmem = axmem_gui.cli.main:main" in entry_points
    assert "axmem-gui = axmem_gui.app:main" in entry_points


LOOKUP = """
import dataclasses, json, sys
import axmem_gui
from axmem_gui.core.ax.profile import available_versions, load_profile
from axmem_gui.services.workspace import init_workspace
from axmem_gui.ui.resources import resources_dir, style_sheet
with init_workspace(sys.argv[1], sample=True) as ws:
    counts = dataclasses.asdict(ws.counts())
print(json.dumps({
    "package": axmem_gui.__file__,
    "resources": str(resources_dir()),
    "style": len(style_sheet("base")),
    "counts": counts,
    "profiles": available_versions(),
    "profile_loads": bool(load_profile()),
}))
"""


def test_installed_wheel_finds_its_data_without_the_repository(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    # The unpacked wheel comes first on the path, ahead of the editable checkout; run from
    # an empty folder so nothing is found through the current directory.
    env = {**os.environ, "PYTHONPATH": str(site), "QT_QPA_PLATFORM": "offscreen"}
    run = subprocess.run(
        [sys.executable, "-c", LOOKUP, str(tmp_path / "sample.axmem")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout)
    assert Path(found["package"]).parent == site / "axmem_gui"
    assert Path(found["resources"]) == site / "axmem_gui" / "resources"
    assert found["style"] > 0
    shipped = sorted(repo_files("axmem_gui/core/ax/profiles", "ax-*.json"))
    assert found["profiles"] == [n.removeprefix("ax-").removesuffix(".json") for n in shipped]
    assert found["profile_loads"]
    # Seeding from the installed sample data fills every kind of entry the sample ships.
    sample = json.loads((REPO_ROOT / "axmem_gui" / "sample" / "catalog.json").read_text("utf-8"))
    assert found["counts"]["skills"] == len(sample["skills"]) > 0
    assert found["counts"]["memories"] == len(sample["memories"]) > 0
    assert found["counts"]["suites"] > 0 and found["counts"]["scenarios"] > 0
