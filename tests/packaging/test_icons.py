"""The icon renderer: every theme size as a real PNG of the drawing, plus .ico and .icns
files whose directories point at those PNGs."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from tests.packaging.conftest import APP_ID

from make_icons import SIZES, make_icons  # isort: skip  (packaging/ is put on sys.path)


@pytest.fixture(scope="module")
def icons(tmp_path_factory: pytest.TempPathFactory, qapp: object) -> Path:
    # `qapp` first: make_icons would otherwise create a bare QGuiApplication, which the
    # widget tests later in the same run cannot use.
    out = tmp_path_factory.mktemp("icons")
    make_icons(out)
    return out


def opaque_fraction(image: QImage) -> float:
    step = max(1, image.width() // 32)
    points = [(x, y) for x in range(0, image.width(), step) for y in range(0, image.height(), step)]
    return sum(image.pixelColor(x, y).alpha() == 255 for x, y in points) / len(points)


@pytest.mark.parametrize("size", SIZES)
def test_theme_png_has_its_size_and_shows_the_drawing(icons: Path, size: int) -> None:
    image = QImage(str(icons / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"))
    assert not image.isNull()
    assert (image.width(), image.height()) == (size, size)
    assert image.hasAlphaChannel()
    # The rounded square fills most of the canvas; its corners stay transparent.
    assert 0.7 < opaque_fraction(image) < 1.0
    assert image.pixelColor(0, 0).alpha() == 0
    if size >= 64:
        # The badge colours (dark blue ground, orange magnifier) survive rendering.
        colours = {image.pixelColor(x, y).name() for x in range(size) for y in range(size)}
        assert "#1f3a5f" in colours and "#ffb454" in colours


def test_scalable_icon_is_the_source_svg(icons: Path) -> None:
    source = Path(__file__).resolve().parents[2] / "resources" / "icons" / "axmem.svg"
    assert (icons / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg").read_bytes() == (
        source.read_bytes()
    )


def test_ico_directory_lists_png_images_up_to_256(icons: Path) -> None:
    data = (icons / f"{APP_ID}.ico").read_bytes()
    reserved, kind, count = struct.unpack_from("<HHH", data)
    assert (reserved, kind) == (0, 1)
    widths = []
    for i in range(count):
        width, _h, _c, _r, _planes, _bpp, length, offset = struct.unpack_from(
            "<BBBBHHII", data, 6 + 16 * i
        )
        widths.append(width or 256)
        # PySide6 accepts only a str format, though its stub says bytes
        image = QImage.fromData(data[offset : offset + length], "PNG")  # type: ignore[arg-type]
        assert image.width() == (width or 256)
    assert widths == [s for s in SIZES if s <= 256]


def test_icns_elements_cover_the_file_and_hold_pngs(icons: Path) -> None:
    data = (icons / f"{APP_ID}.icns").read_bytes()
    assert data[:4] == b"icns" and struct.unpack_from(">I", data, 4)[0] == len(data)
    position, sizes = 8, []
    while position < len(data):
        length = struct.unpack_from(">I", data, position + 4)[0]
        image = QImage.fromData(data[position + 8 : position + length], "PNG")  # type: ignore[arg-type]  # str only, as above
        assert not image.isNull()
        sizes.append(image.width())
        position += length
    assert position == len(data)
    assert sizes == [16, 32, 64, 128, 256, 512]
