"""The PyInstaller bundle (slow: building it takes a minute or more).

`make dist-check` builds dist/axmem-gui once and points AXMEM_BUNDLE at it; without that
variable (`make test-long`) the tests build their own bundle in a temporary folder. The
bundled programs run with a bare environment (no virtualenv, no PYTHONPATH), headless.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from axmem_gui import __version__
from axmem_gui.cli.main import build_parser
from tests.packaging.conftest import APP_ID, REPO_ROOT

pytestmark = pytest.mark.slow

BUNDLE_ENV = "AXMEM_BUNDLE"
SPEC = REPO_ROOT / "packaging" / "axmem.spec"


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    prebuilt = os.environ.get(BUNDLE_ENV)
    if prebuilt:
        path = Path(prebuilt).resolve()
        assert (path / "axmem-gui").is_file(), f"{BUNDLE_ENV}={prebuilt} holds no bundle"
        return path
    try:
        import PyInstaller  # noqa: F401
    except ImportError:
        pytest.fail("PyInstaller is not installed: pip install -e '.[dist]' (make dist does)")
    work = tmp_path_factory.mktemp("pyinstaller")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "PyInstaller",
            "--noconfirm",
            "--log-level",
            "WARN",
            "--distpath",
            str(work / "dist"),
            "--workpath",
            str(work / "build"),
            str(SPEC),
        ],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=1800,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    return work / "dist" / "axmem-gui"


@pytest.fixture
def bare_env(tmp_path: Path) -> dict[str, str]:
    """Only what a user's desktop session would have, plus private data folders."""
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "LANG": "C.UTF-8",
        "QT_QPA_PLATFORM": "offscreen",
        "AXMEM_DATA_DIR": str(tmp_path / "data"),
        "AXMEM_SETTINGS_DIR": str(tmp_path / "settings"),
    }


def run_program(
    bundle: Path, name: str, env: dict[str, str], *args: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(bundle / name), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=env["HOME"] if Path(env["HOME"]).is_dir() else None,
    )


def test_self_test_opens_the_default_workspace_and_saves_a_screenshot(
    bundle: Path, bare_env: dict[str, str], tmp_path: Path
) -> None:
    shot = tmp_path / "self-test.png"
    run = run_program(bundle, "axmem-gui", bare_env, "--self-test", "--screenshot", str(shot))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Traceback" not in run.stderr and "Could not" not in run.stderr, run.stderr
    image = QImage(str(shot))
    assert image.width() >= 800 and image.height() >= 500
    colours = {
        image.pixelColor(x, y).rgb()
        for x in range(0, image.width(), 7)
        for y in range(0, image.height(), 7)
    }
    assert len(colours) > 20  # a drawn window (text, tables, docks), not a blank frame
    # First start: the default workspace was created and seeded from the bundled sample.
    info = run_program(
        bundle,
        "axmem",
        bare_env,
        "info",
        "--json",
        "--workspace",
        str(tmp_path / "data" / "default.axmem"),
    )
    assert info.returncode == 0, info.stderr
    counts = json.loads(info.stdout)["counts"]
    sample = json.loads((REPO_ROOT / "axmem_gui" / "sample" / "catalog.json").read_text("utf-8"))
    assert counts["skills"] == len(sample["skills"])
    assert counts["memories"] == len(sample["memories"])


def test_cli_reports_the_version_and_every_command(bundle: Path, bare_env: dict[str, str]) -> None:
    version = run_program(bundle, "axmem", bare_env, "--version")
    assert version.stdout.strip() == f"axmem {__version__}"
    help_text = run_program(bundle, "axmem", bare_env, "--help").stdout
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    missing = [name for name in sub.choices if name not in help_text]
    assert not missing, f"commands missing from the bundled CLI: {missing}"


def test_cli_errors_stay_one_line(bundle: Path, bare_env: dict[str, str]) -> None:
    run = run_program(bundle, "axmem", bare_env, "info", "--workspace", "/no/such.axmem")
    assert run.returncode == 2
    assert run.stderr.startswith("axmem: error:") and "Traceback" not in run.stderr


def test_cli_replays_the_shipped_session_through_the_bundled_quickjs(
    bundle: Path, bare_env: dict[str, str]
) -> None:
    # The sample agent runs on axllm's QuickJS runtime: replaying its session offline needs
    # the quickjs extension, the Ax profile and the sample data, all from the bundle.
    (session,) = (bundle / "_internal" / "axmem_gui" / "sample").glob("*.axsession.json")
    run = run_program(bundle, "axmem", bare_env, "replay", "--json", str(session))
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads(run.stdout)
    assert report["identical"] is True
    assert report["calls_replayed"] == report["calls_recorded"] > 0


def test_bundle_holds_the_app_data(bundle: Path) -> None:
    internal = bundle / "_internal"
    for folder, inside in (
        ("resources", internal / "resources"),
        ("axmem_gui/core/ax/profiles", internal / "axmem_gui" / "core" / "ax" / "profiles"),
        ("axmem_gui/sample", internal / "axmem_gui" / "sample"),
    ):
        source = REPO_ROOT / folder
        expected = {
            p.relative_to(source).as_posix()
            for p in source.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".py"
        }
        found = {p.relative_to(inside).as_posix() for p in inside.rglob("*") if p.is_file()}
        assert expected and expected <= found, folder
    assert (bundle / "NOTICE").read_bytes() == (REPO_ROOT / "NOTICE").read_bytes()


def test_bundle_holds_quickjs_and_the_qt_plugins_it_needs(bundle: Path) -> None:
    from PyInstaller.archive.readers import CArchiveReader

    internal = bundle / "_internal"
    assert list(internal.glob("_quickjs*")), "the QuickJS extension module is missing"
    modules = set(CArchiveReader(str(bundle / "axmem")).open_embedded_archive("PYZ.pyz").toc)
    assert {"quickjs", "axllm.runtime_quickjs", "axmem_gui.engine.agent_factory"} <= modules
    for dist in ("axllm", "quickjs"):
        assert list(internal.glob(f"{dist}-*.dist-info")), f"{dist} metadata (About, sessions)"
    if sys.platform.startswith("linux"):
        # Desktops (X11, Wayland), headless runs, and the SVG icons.
        plugins = internal / "PySide6" / "Qt" / "plugins"
        for plugin in (
            "platforms/libqxcb.so",
            "platforms/libqwayland.so",
            "platforms/libqoffscreen.so",
            "iconengines/libqsvgicon.so",
            "imageformats/libqsvg.so",
        ):
            assert (plugins / plugin).is_file(), plugin


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="freedesktop files are Linux")
def test_bundle_installs_a_menu_entry_that_starts_it(bundle: Path, tmp_path: Path) -> None:
    data_home = tmp_path / "share"
    run = subprocess.run(
        ["sh", str(bundle / "install-desktop.sh")],
        capture_output=True,
        text=True,
        env={**os.environ, "XDG_DATA_HOME": str(data_home)},
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    entry = (data_home / "applications" / f"{APP_ID}.desktop").read_text("utf-8").splitlines()
    assert f'Exec="{bundle / "axmem-gui"}" %f' in entry
    assert (data_home / "icons" / "hicolor" / "256x256" / "apps" / f"{APP_ID}.png").is_file()


@pytest.mark.parametrize("program", ["axmem-gui", "axmem"])
def test_bundle_indexes_part_of_a_big_catalog_in_its_own_worker(
    bundle: Path, program: str
) -> None:
    """The app starts itself with `--index-worker` to index the tail of a big catalog: the
    bundled worker gives the part this process builds."""
    from axmem_gui.core.ax.documents import memory_columns
    from axmem_gui.core.ax.profile import load_profile
    from axmem_gui.core.catalog import Memory
    from axmem_gui.services.index_worker import WORKER_ARGUMENT, IndexOffload, build_part

    profile = load_profile()
    memories = [Memory(f"m-{i}", f"deploy the canary {i % 17} ünïcode canary") for i in range(200)]
    columns = memory_columns(memories, profile).part(50)
    offload = IndexOffload(min_chars=0, cpus=2, command=[str(bundle / program), WORKER_ARGUMENT])
    job = offload.start(profile, columns, 50)
    part = job.result()
    assert job.error is None
    assert part == build_part(profile, columns, 50)


@pytest.mark.parametrize("program", ["axmem-gui", "axmem"])
def test_bundle_runs_an_agent_replay_in_its_own_worker(bundle: Path, program: str) -> None:
    """Agent runs and replays happen in a child process: the bundle starts itself with
    `--agent-worker`, and its worker replays a session whose code loops forever within
    its limits."""
    from axmem_gui.services import sessions
    from axmem_gui.services.agent_runner import WORKER_ARGUMENT, AgentRunner
    from tests.helpers.hostile_code import hostile_session

    runner = AgentRunner([str(bundle / program), WORKER_ARGUMENT], keep_warm=False)
    try:
        report = sessions.replay(hostile_session("loop"), runner=runner)
    finally:
        runner.shutdown()
    assert report.identical, report.render()
    assert [h.kind for h in report.limits_hit] == ["time"]


@pytest.mark.parametrize("program", ["axmem-gui", "axmem"])
def test_bundle_holds_an_open_workspaces_locks_for_the_app(
    bundle: Path, program: str, tmp_path: Path
) -> None:
    """The app starts itself with `--lock-holder` to keep a workspace's shared locks
    (store/lockholder.py): the bundled holder says it holds them, and exits when its
    stdin closes, the final checkpoint done (no -wal left)."""
    from axmem_gui.services.workspace import init_workspace
    from axmem_gui.store.lockholder import HOLDER_ARGUMENT, READY

    path = tmp_path / "w.axmem"
    init_workspace(path).close()
    holder = subprocess.Popen(
        [str(bundle / program), HOLDER_ARGUMENT, str(path), str(os.getpid())],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={"QT_QPA_PLATFORM": "offscreen"},
    )
    assert holder.stdout is not None and holder.stdin is not None
    assert holder.stdout.readline() == READY
    assert path.with_name(path.name + "-wal").exists()
    holder.stdin.close()
    assert holder.wait(120) == 0
    assert not path.with_name(path.name + "-wal").exists()
