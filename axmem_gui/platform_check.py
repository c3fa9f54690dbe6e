"""Before Qt starts on Linux: are the system libraries of Qt's X11 platform plugin there?

Without them Qt aborts with "could not load the Qt platform plugin "xcb"" and no word of
which package is missing. This asks the dynamic linker (`ldd` on PySide6's own
`libqxcb.so`, which lists every library it would load, transitively) and names the
missing ones with their Debian/Ubuntu packages.

    python -m axmem_gui.platform_check      # exit 0: fine or not needed; 1: missing

Not needed (and skipped) off Linux, and when QT_QPA_PLATFORM picks a platform that does
not use X11 (offscreen, minimal, wayland, vnc, ...). No Qt import: it runs before Qt can
fail. Nothing here reads outside the Python installation and the linker's answers.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

#: Shared objects Qt's xcb plugin loads, with the Debian/Ubuntu package shipping each.
DEBIAN_PACKAGES: Mapping[str, str] = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xinerama.so.0": "libxcb-xinerama0",
    "libxcb-xinput.so.0": "libxcb-xinput0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb.so.1": "libxcb1",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libX11.so.6": "libx11-6",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libSM.so.6": "libsm6",
    "libICE.so.6": "libice6",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libOpenGL.so.0": "libopengl0",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0",
}


@dataclass(frozen=True)
class Missing:
    library: str
    package: str | None


def check_needed(environ: Mapping[str, str], platform: str = sys.platform) -> bool:
    """Whether Qt would load the xcb plugin: Linux, and no other platform chosen."""
    if not platform.startswith("linux"):
        return False
    # "xcb", "offscreen:configfile=...", or a fallback list "wayland;xcb" (first wins).
    chosen = environ.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip().lower()
    if chosen:
        return chosen == "xcb"
    # Qt prefers Wayland when a Wayland session is running; it then needs no xcb.
    return not environ.get("WAYLAND_DISPLAY")


def xcb_plugin() -> Path | None:
    spec = importlib.util.find_spec("PySide6")
    if spec is None or spec.origin is None:
        return None
    plugin = Path(spec.origin).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    return plugin if plugin.is_file() else None


def parse_ldd(output: str) -> list[str]:
    """The libraries `ldd` reports as "not found", each once, in order."""
    missing: list[str] = []
    for line in output.splitlines():
        name, sep, rest = line.strip().partition("=>")
        if sep and rest.strip() == "not found":
            library = name.strip()
            if library not in missing:
                missing.append(library)
    return missing


def missing_libraries(plugin: Path) -> list[Missing]:
    ldd = shutil.which("ldd")
    if ldd is None:
        return []  # cannot tell: let Qt try
    run = subprocess.run(
        [ldd, str(plugin)], capture_output=True, text=True, timeout=30, check=False
    )
    return [Missing(lib, DEBIAN_PACKAGES.get(lib)) for lib in parse_ldd(run.stdout)]


def describe(missing: list[Missing]) -> str:
    names = ", ".join(m.library for m in missing)
    packages = sorted({m.package for m in missing if m.package})
    unknown = [m.library for m in missing if not m.package]
    lines = [
        f"axmem-gui: Qt's X11 platform plugin cannot load; missing system libraries: {names}.",
    ]
    if packages:
        lines.append(f"  On Debian/Ubuntu: sudo apt-get install {' '.join(packages)}")
    if unknown:
        lines.append(f"  (find the package that ships {', '.join(unknown)} for your system)")
    lines.append("  Or run without a display: QT_QPA_PLATFORM=offscreen (screenshots, self-test).")
    return "\n".join(lines)


def check(environ: Mapping[str, str] | None = None) -> str | None:
    """None when all is well (or nothing to check); else the message naming what to install."""
    env = os.environ if environ is None else environ
    if not check_needed(env):
        return None
    plugin = xcb_plugin()
    if plugin is None:
        return None
    missing = missing_libraries(plugin)
    return describe(missing) if missing else None


def main() -> int:
    message = check()
    if message is None:
        return 0
    print(message, file=sys.stderr)
    return 1


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
