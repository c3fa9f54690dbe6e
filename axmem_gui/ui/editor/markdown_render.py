"""Markdown to HTML for the content preview (pure: no Qt, no IO beyond the style template).

Skill guides come from anywhere (imports, teammates, the model itself), so the preview
treats them as untrusted: raw HTML is shown as text, never interpreted, and the viewer
(`preview.SafeMarkdownBrowser`) loads no resource at all."""

from __future__ import annotations

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


def render_markdown(text: str) -> str:
    """The HTML body for `text`; raw HTML in `text` comes out escaped."""
    return _converter().convert(text)


def code_style_css(dark: bool) -> str:
    """Pygments colours for fenced code blocks, matched to the palette's lightness."""
    style = "monokai" if dark else "default"
    return str(HtmlFormatter(style=style).get_style_defs(".codehilite"))
