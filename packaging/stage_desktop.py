"""Stage the freedesktop integration (menu entry, AppStream metadata, file types, icons).

Lays out, under OUT_DIR:
  share/applications/io.github.axmem.Studio.desktop
  share/metainfo/io.github.axmem.Studio.metainfo.xml
  share/mime/packages/io.github.axmem.Studio.xml
  share/icons/hicolor/<N>x<N>/apps/io.github.axmem.Studio.png (+ scalable SVG)
  install-desktop.sh   (copies share/ into the user's XDG data folder, or removes it)
and the .ico/.icns app icons under OUT_DIR/icons/.

`make icons` stages into build/desktop/; the PyInstaller spec stages into the bundle, so
a bundle carries its own `install-desktop.sh`.

Usage: python packaging/stage_desktop.py OUT_DIR
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_icons import APP_ID, make_icons

LINUX_DIR = Path(__file__).resolve().parent / "linux"
INSTALL_SCRIPT = "install-desktop.sh"


def stage(out_dir: Path) -> None:
    share = out_dir / "share"
    if share.exists():
        shutil.rmtree(share)
    shutil.copytree(LINUX_DIR / "share", share)
    # Theme icons go to share/; the .ico/.icns (for the Windows/macOS bundles) beside it.
    make_icons(share / "icons", app_icons_dir=out_dir / "icons")
    script = out_dir / INSTALL_SCRIPT
    shutil.copyfile(LINUX_DIR / INSTALL_SCRIPT, script)
    script.chmod(0o755)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    stage(Path(argv[0]))
    print(f"desktop integration for {APP_ID} staged in {argv[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
