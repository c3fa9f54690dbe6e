"""Locating the app's resources (styles, icons) in a checkout, an install or a bundle."""

from __future__ import annotations

import re
import sys
from functools import cache
from pathlib import Path

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QWidget


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


_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_RULE = re.compile(r"([^{}]+)(\{[^{}]*\})")
#: `Class#name[prop="value"]:state::part`: the class, the object name, the property.
_SELECTOR = re.compile(r"\s*([A-Za-z_]\w*)(?:#(\w+))?(?:\[(\w+)[^\]]*\])?")


@cache
def _rules(name: str) -> tuple[tuple[tuple[tuple[str, str | None, str | None], ...], str], ...]:
    """The style sheet's rules: (its selectors as (class, object name, property), its text)."""
    rules = []
    for selectors, block in _RULE.findall(_COMMENT.sub("", style_sheet(name))):
        parsed = []
        for selector in selectors.split(","):
            match = _SELECTOR.match(selector)
            if match is None:
                raise ValueError(f"{name}.qss: cannot read the selector {selector.strip()!r}")
            parsed.append((match.group(1), match.group(2), match.group(3)))
        rules.append((tuple(parsed), f"{selectors.strip()} {block}"))
    return tuple(rules)


def _selects(widget: QWidget, selector: tuple[str, str | None, str | None]) -> bool:
    cls, object_name, prop = selector
    if not widget.inherits(cls):
        return False
    if object_name is not None:
        return widget.objectName() == object_name
    # `Class[prop=...]` without a name: only widgets that carry the property at all
    return prop is None or widget.property(prop) is not None


def style_leaves(root: QWidget, *names: str) -> None:
    """Give each widget under `root` (and `root`) the rules of the style sheets `names`
    that select it, and no others; call it once the widgets exist.

    This stands for `root.setStyleSheet(...)` (and, for "base", the application's style
    sheet): a style sheet on a container or the application sends every widget under it
    through Qt's style-sheet style, which cost about 130 ms of CPU before the main
    window's first paint; on the few widgets the rules name it costs a few. The rules
    are the same, and "base" comes first as the application's sheet did (a view's own
    rules win where both say something)."""
    for widget in (root, *root.findChildren(QWidget)):
        had = widget.property(_SHEETS)
        have = [n for n in str(had).split(",") if n] if had else []
        wanted = [n for n in names if n not in have and _chosen(widget, n)]
        if not wanted:
            continue
        have = sorted([*have, *wanted], key=lambda n: n != "base")  # stable: base first
        widget.setProperty(_SHEETS, ",".join(have))
        widget.setStyleSheet("\n".join(_chosen(widget, n) for n in have))


_SHEETS = "axStyleSheets"


def with_base(widget: QWidget) -> None:
    """Put the "base" rules in front of `widget`'s own style sheet, for a page or dialog
    that is made after the first paint and styles itself as a container: its rules then
    win over base's as they did over the application's sheet."""
    base = style_sheet("base")
    if not widget.styleSheet().startswith(base):
        widget.setStyleSheet(f"{base}\n{widget.styleSheet()}")


def _chosen(widget: QWidget, name: str) -> str:
    """The rules of sheet `name` that select `widget` ("" when none does)."""
    return "\n".join(
        text for selectors, text in _rules(name) if any(_selects(widget, s) for s in selectors)
    )


def icon(name: str) -> QIcon:
    path = resources_dir() / "icons" / f"{name}.svg"
    return QIcon(str(path)) if path.exists() else QIcon()
