"""Render the app icon (resources/icons/axmem.svg) to the bitmap sizes desktops want.

Writes, under OUT_DIR:
  hicolor/<N>x<N>/apps/io.github.axmem.Studio.png  for N in SIZES (freedesktop icon theme)
  hicolor/scalable/apps/io.github.axmem.Studio.svg  (the source, renamed to the app id)
  io.github.axmem.Studio.ico                          (Windows executable icon)
  io.github.axmem.Studio.icns                         (macOS app bundle icon)

Rendering uses QtSvg on the offscreen platform, so it runs on a machine without a screen.
The bitmaps are build outputs (`make icons`), not committed: the SVG is the only source.

Usage: python packaging/make_icons.py OUT_DIR
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

APP_ID = "io.github.axmem.Studio"
REPO_ROOT = Path(__file__).resolve().parents[1]
SOURCE_SVG = REPO_ROOT / "resources" / "icons" / "axmem.svg"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
#: ICO entries above 256 px are not allowed by the format.
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
#: ICNS element types that hold a PNG of the given pixel size.
ICNS_TYPES = {16: b"icp4", 32: b"icp5", 64: b"icp6", 128: b"ic07", 256: b"ic08", 512: b"ic09"}


def render_png(svg: Path, size: int) -> bytes:
    """PNG bytes of `svg` drawn on a transparent `size` x `size` canvas."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise ValueError(f"{svg}: not a valid SVG image")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(0)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    # PySide6 6.x accepts only a str format here, though its stub says bytes
    if not image.save(buffer, "PNG"):  # type: ignore[call-overload]
        raise RuntimeError(f"cannot encode a {size}px PNG of {svg}")
    return bytes(data.data())


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """A Windows .ico holding PNG-compressed images (supported since Windows Vista)."""
    sizes = sorted(pngs)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = len(header) + 16 * len(sizes)
    entries, blobs = b"", b""
    for size in sizes:
        blob = pngs[size]
        side = 0 if size >= 256 else size  # 0 means 256 in an ICONDIRENTRY
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(blob), offset)
        blobs += blob
        offset += len(blob)
    return header + entries + blobs


def icns_bytes(pngs: dict[int, bytes]) -> bytes:
    """A macOS .icns whose elements are PNGs."""
    body = b"".join(
        ICNS_TYPES[size] + struct.pack(">I", 8 + len(pngs[size])) + pngs[size]
        for size in sorted(pngs)
        if size in ICNS_TYPES
    )
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def make_icons(
    out_dir: Path, svg: Path = SOURCE_SVG, *, app_icons_dir: Path | None = None
) -> list[Path]:
    """Write the theme icons under `out_dir`/hicolor and the .ico/.icns into `app_icons_dir`
    (default `out_dir`); return the paths written."""
    app_icons_dir = out_dir if app_icons_dir is None else app_icons_dir
    from PySide6.QtGui import QGuiApplication

    if QGuiApplication.instance() is None:
        # Rendering needs no screen; this also runs inside PyInstaller and on build servers.
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    _app = QGuiApplication.instance() or QGuiApplication(["make_icons"])
    pngs = {size: render_png(svg, size) for size in SIZES}
    written: list[Path] = []

    def write(relative: str, data: bytes, base: Path = out_dir) -> None:
        path = base / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(path)

    for size, png in pngs.items():
        write(f"hicolor/{size}x{size}/apps/{APP_ID}.png", png)
    write(f"hicolor/scalable/apps/{APP_ID}.svg", svg.read_bytes())
    write(f"{APP_ID}.ico", ico_bytes({s: pngs[s] for s in ICO_SIZES}), app_icons_dir)
    write(f"{APP_ID}.icns", icns_bytes(pngs), app_icons_dir)
    return written


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    written = make_icons(Path(argv[0]))
    print(f"{len(written)} icon files written to {argv[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
