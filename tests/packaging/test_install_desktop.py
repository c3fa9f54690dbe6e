"""`make icons` staging and install-desktop.sh: the files land in the user's XDG data
folder with the right program in the menu entry, and --uninstall takes them all away."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.packaging.conftest import APP_ID, REPO_ROOT, SHARE, external_tool

from stage_desktop import INSTALL_SCRIPT, stage  # isort: skip  (packaging/ is on sys.path)


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory, qapp: object) -> Path:
    out = tmp_path_factory.mktemp("desktop")
    stage(out)
    return out


def run_script(staged: Path, data_home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_DATA_HOME": str(data_home), "HOME": str(data_home.parent)}
    return subprocess.run(
        ["sh", str(staged / INSTALL_SCRIPT), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def files_under(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def fake_program(folder: Path, name: str = "axmem-gui") -> Path:
    program = folder / name
    program.parent.mkdir(parents=True, exist_ok=True)
    program.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    program.chmod(0o755)
    return program


def test_stage_holds_the_source_files_icons_and_script(staged: Path) -> None:
    staged_files = files_under(staged / "share")
    assert files_under(SHARE) <= staged_files
    assert f"icons/hicolor/48x48/apps/{APP_ID}.png" in staged_files
    assert f"icons/hicolor/scalable/apps/{APP_ID}.svg" in staged_files
    assert os.access(staged / INSTALL_SCRIPT, os.X_OK)
    assert {f"icons/{APP_ID}.ico", f"icons/{APP_ID}.icns"} <= files_under(staged)


def test_install_points_the_menu_entry_at_the_program_then_uninstall_removes_it(
    staged: Path, tmp_path: Path
) -> None:
    data_home = tmp_path / "home" / ".local" / "share"
    program = fake_program(tmp_path / "opt dir" / "bin")
    run = run_script(staged, data_home, "--exec", str(program))
    assert run.returncode == 0, run.stderr

    desktop = f"applications/{APP_ID}.desktop"
    for relative in files_under(staged / "share") - {desktop}:
        source = staged / "share" / relative
        assert (data_home / relative).read_bytes() == source.read_bytes(), relative
    entry = (data_home / desktop).read_text(encoding="utf-8").splitlines()
    assert f'Exec="{program}" %f' in entry
    assert f"TryExec={program}" in entry

    run = run_script(staged, data_home, "--uninstall")
    assert run.returncode == 0, run.stderr
    assert {f for f in files_under(data_home) if APP_ID in f} == set()


def test_rewritten_entry_still_validates(staged: Path, tmp_path: Path) -> None:
    tool = external_tool("desktop-file-validate", "desktop-file-utils")
    data_home = tmp_path / "share"
    program = fake_program(tmp_path / "opt dir" / "bin")
    assert run_script(staged, data_home, "--exec", str(program)).returncode == 0
    check = subprocess.run(
        [tool, str(data_home / "applications" / f"{APP_ID}.desktop")],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0 and not check.stdout.strip(), check.stdout


def test_without_exec_the_entry_keeps_the_program_name_from_path(
    staged: Path, tmp_path: Path
) -> None:
    data_home = tmp_path / "share"
    run = run_script(staged, data_home)
    assert run.returncode == 0, run.stderr
    entry = (data_home / "applications" / f"{APP_ID}.desktop").read_text(encoding="utf-8")
    assert "Exec=axmem-gui %f" in entry.splitlines()


def test_a_bundle_copy_points_at_the_program_beside_it(staged: Path, tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    subprocess.run(["cp", "-R", f"{staged}/.", str(bundle)], check=True)
    program = fake_program(bundle)
    run = run_script(bundle, tmp_path / "share")
    assert run.returncode == 0, run.stderr
    entry = (tmp_path / "share" / "applications" / f"{APP_ID}.desktop").read_text("utf-8")
    assert f'Exec="{program}" %f' in entry.splitlines()


@pytest.mark.parametrize(
    "bad_exec, message",
    [
        ("/no/such/axmem-gui", "is not an executable program"),
        ('quote"d/axmem-gui', "contains a quote"),
    ],
)
def test_a_bad_exec_is_refused_and_writes_nothing(
    staged: Path, tmp_path: Path, bad_exec: str, message: str
) -> None:
    if "quote" in message:
        bad_exec = str(fake_program(tmp_path / 'quote"d'))
    data_home = tmp_path / "share"
    run = run_script(staged, data_home, "--exec", bad_exec)
    assert run.returncode == 2
    assert message in run.stderr and run.stderr.startswith("install-desktop.sh: error:")
    assert not data_home.exists()


def test_the_repository_copy_explains_that_icons_must_be_staged(tmp_path: Path) -> None:
    # The script in packaging/linux has share/ beside it but no rendered icons.
    run = run_script(REPO_ROOT / "packaging" / "linux", tmp_path / "share")
    assert run.returncode == 2
    assert "make icons" in run.stderr
    assert not (tmp_path / "share").exists()


def test_installed_types_are_recognised_by_the_mime_database(staged: Path, tmp_path: Path) -> None:
    external_tool("update-mime-database", "shared-mime-info")
    data_home = tmp_path / "share"
    assert run_script(staged, data_home).returncode == 0
    globs = (data_home / "mime" / "globs2").read_text(encoding="utf-8")
    assert "application/x-axmem-workspace:*.axmem" in globs
    assert "application/x-axsession+json:*.axsession.json" in globs
    magic = (data_home / "mime" / "magic").read_bytes()
    assert b"application/x-axmem-workspace" in magic
