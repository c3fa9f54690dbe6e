"""Markdown to HTML for the content preview (pure: no Qt, no IO beyond the style template).

Skill guides come from anywhere (imports, teammates, the model itself), so the preview
treats them as untrusted: raw HTML is shown as text, never interpreted, and the viewer
(`preview.SafeMarkdownBrowser`) loads no resource at all."""

from __future__ import annotations

import html
from typing import Any

import markdown
from pygments.formatters import HtmlFormatter

_EXTENSIONS = ["fenced_code", "codehilite", "tables", "sane_lists"]
_EXTENSION_CONFIGS = {"codehilite": {"guess_lang": False, "css_class": "codehilite"}}


def _converter() -> markdown.Markdown:
    md = markdown.Markdown(
        extensions=_EXTENSIONS, extension_configs=_EXTENSION_CONFIGS, output_format="html"
    )
    # Without these two, raw HTML blocks and inline tags pass through untouched; removed,
    # the text stays text and the serializer escapes its '<' and '&'.
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    return md


#: The preview renders at most this much; the rest is noted, not rendered.
MAX_PREVIEW_CHARS = 100_000
#: Python-Markdown recurses per nesting level and backtracks on nested brackets; input
#: nested deeper than this is shown as plain text so the preview never freezes or crashes.
MAX_NESTING = 48


def _too_deep(text: str) -> bool:
    depth = deepest = 0
    for ch in text:
        if ch == "[":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == "]" and depth:
            depth -= 1
        elif ch == "\n":
            depth = 0
    if deepest > MAX_NESTING:
        return True
    for line in text.splitlines():
        stripped = line.lstrip(" \t>")
        prefix = line[: len(line) - len(stripped)]
        if prefix.count(">") > MAX_NESTING or len(prefix.expandtabs(4)) > MAX_NESTING * 4:
            return True
    return False


def _plain(text: str) -> str:
    return f"<pre>{html.escape(text)}</pre>"


def render_markdown(text: str) -> str:
    """The HTML body for `text`; raw HTML in `text` comes out escaped. Untrusted input
    that is huge or pathologically nested is bounded (truncated, or shown as plain text)."""
    note = ""
    if len(text) > MAX_PREVIEW_CHARS:
        text = text[:MAX_PREVIEW_CHARS]
        note = (
            f"<p><i>The preview shows the first {MAX_PREVIEW_CHARS:,} characters; "
            "the editor holds the whole text.</i></p>"
        )
    if _too_deep(text):
        return _plain(text) + note
    try:
        return _converter().convert(text) + note
    except RecursionError:
        return _plain(text) + note


def code_style_css(dark: bool) -> str:
    """Pygments colours for fenced code blocks, matched to the palette's lightness."""
    style = "monokai" if dark else "default"
    formatter: Any = HtmlFormatter(style=style)  # get_style_defs is untyped in the stubs
    return str(formatter.get_style_defs(".codehilite"))
