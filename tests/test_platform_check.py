"""The Linux check for Qt's X11 platform libraries that `make run` and `axmem-gui` run
before Qt starts (real `ldd` on PySide6's own xcb plugin)."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from axmem_gui.platform_check import (
    DEBIAN_PACKAGES,
    Missing,
    check,
    check_needed,
    describe,
    parse_ldd,
    xcb_plugin,
)

LDD = """\
\tlinux-vdso.so.1 (0x00007ffd)
\tlibQt6XcbQpa.so.6 => /x/Qt/lib/libQt6XcbQpa.so.6 (0x00007f)
\tlibxcb-cursor.so.0 => not found
\tlibxcb-icccm.so.4 => not found
\tlibxcb-icccm.so.4 => not found
\tlibweird.so.9 => not found
"""


def test_ldd_output_names_each_missing_library_once() -> None:
    assert parse_ldd(LDD) == ["libxcb-cursor.so.0", "libxcb-icccm.so.4", "libweird.so.9"]


def test_message_names_the_debian_packages() -> None:
    missing = [Missing(lib, DEBIAN_PACKAGES.get(lib)) for lib in parse_ldd(LDD)]
    message = describe(missing)
    assert "libxcb-cursor.so.0, libxcb-icccm.so.4, libweird.so.9" in message
    assert "sudo apt-get install libxcb-cursor0 libxcb-icccm4" in message
    assert "libweird.so.9" in message.splitlines()[2]
    assert "QT_QPA_PLATFORM=offscreen" in message


@pytest.mark.parametrize(
    ("env", "platform", "needed"),
    [
        ({"QT_QPA_PLATFORM": "offscreen"}, "linux", False),
        ({"QT_QPA_PLATFORM": "offscreen:configfile=/x.json"}, "linux", False),
        ({"QT_QPA_PLATFORM": "xcb"}, "linux", True),
        ({"QT_QPA_PLATFORM": "wayland;xcb"}, "linux", False),
        ({"DISPLAY": ":0"}, "linux", True),
        ({"WAYLAND_DISPLAY": "wayland-0"}, "linux", False),
        ({"QT_QPA_PLATFORM": "xcb"}, "darwin", False),
    ],
)
def test_check_is_needed_only_where_qt_loads_xcb(
    env: dict[str, str], platform: str, needed: bool
) -> None:
    assert check_needed(env, platform) is needed


def test_offscreen_skips_the_check() -> None:
    assert check({"QT_QPA_PLATFORM": "offscreen"}) is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the xcb plugin is Linux's")
def test_the_real_plugin_is_checked_against_the_real_linker() -> None:
    plugin = xcb_plugin()
    ldd = shutil.which("ldd")
    assert plugin is not None and ldd is not None
    out = subprocess.run([ldd, str(plugin)], capture_output=True, text=True, check=False).stdout
    expected = parse_ldd(out)
    message = check({"QT_QPA_PLATFORM": "xcb"})
    if expected:
        assert message is not None
        for library in expected:
            assert library in message
    else:
        assert message is None


def test_readme_lists_the_packages() -> None:
    from pathlib import Path

    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    for package in ("libxcb-cursor0", "libxcb-icccm4", "libxkbcommon-x11-0", "libxcb-keysyms1"):
        assert package in readme
