"""Locating the app's resources (styles, icons) in a checkout, an install or a bundle."""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

from PySide6.QtGui import QIcon


@cache
def resources_dir() -> Path:
    candidates = []
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        candidates.append(Path(bundle) / "resources")
    package = Path(__file__).resolve().parents[1]
    candidates += [package / "resources", package.parent / "resources"]
    for c in candidates:
        if (c / "styles").is_dir():
            return c
    raise FileNotFoundError("resources folder not found; the installation is incomplete")


def style_sheet(name: str) -> str:
    return (resources_dir() / "styles" / f"{name}.qss").read_text(encoding="utf-8")


def icon(name: str) -> QIcon:
    path = resources_dir() / "icons" / f"{name}.svg"
    return QIcon(str(path)) if path.exists() else QIcon()
