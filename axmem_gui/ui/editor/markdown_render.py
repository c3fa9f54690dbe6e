"""Markdown to HTML for the content preview (pure: no Qt, no IO beyond the style template).

Skill guides come from anywhere (imports, teammates, the model itself), so the preview
treats them as untrusted:
- raw HTML is shown as text, never interpreted;
- every image `src` and link `href` in the generated HTML is rewritten to a private
  scheme (`axmem-res:N`, `axmem-link:N`) before Qt sees it, so Qt has nothing it could
  fetch or read by itself (a `file:` URL or `/dev/zero` as an image would otherwise be
  read by Qt, not by our resource loader); the originals are kept beside the HTML;
- the work is bounded: the text is cut into pieces of at most `PIECE_LINES` lines
  (outside fenced code) and each piece is converted on its own, so shapes on which
  Python-Markdown is quadratic (`'a\\n=\\n' * 25000`, `'#\\n' * 50000`, `'---\\n' * 25000`)
  cost linear time, and the preview widget can spread the pieces over event-loop turns.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any, cast

import markdown
from markdown.treeprocessors import Treeprocessor

_EXTENSIONS = ["fenced_code", "codehilite", "tables", "sane_lists"]
_EXTENSION_CONFIGS = {"codehilite": {"guess_lang": False, "css_class": "codehilite"}}

#: Private schemes the preview uses for every image and link (see `preview.py`).
RESOURCE_SCHEME = "axmem-res"
LINK_SCHEME = "axmem-link"

#: The preview renders at most this much; the rest is noted, not rendered.
MAX_PREVIEW_CHARS = 100_000
#: Python-Markdown recurses per nesting level and backtracks on nested brackets; input
#: nested deeper than this is shown as plain text so the preview never freezes or crashes.
MAX_NESTING = 48
#: Most lines converted in one go (outside fenced code): Python-Markdown's block parser
#: re-splits a block for every header/rule it finds in it, quadratic in the block's lines.
PIECE_LINES = 40
#: A piece longer than this is shown as plain text (inline patterns on one huge line).
PIECE_CHARS = 8_000
#: Table rows per piece (the table processor is linear: longer pieces, less overhead).
TABLE_PIECE_LINES = 100
#: Lines of fenced code per piece (a long block is shown as consecutive blocks).
FENCE_PIECE_LINES = 200

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_REFERENCE = re.compile(r"^ {0,3}\[([^\]\n]{1,200})\]:[ \t]*<?([^\s>]+)>?", re.M)


@dataclass
class RenderedMarkdown:
    """HTML with private URLs, and what each stands for."""

    html: str = ""
    #: Original `src` of image N (`axmem-res:N`).
    images: list[str] = field(default_factory=list)
    #: Original `href` of link N (`axmem-link:N`).
    links: list[str] = field(default_factory=list)


class _PrivateUrls(Treeprocessor):
    """Rewrites every src/href in the element tree to the private schemes."""

    def __init__(self, md: markdown.Markdown) -> None:
        super().__init__(md)
        self.out = RenderedMarkdown()

    def run(self, root: ET.Element) -> None:
        for element in root.iter():
            for attr, scheme, table in (
                ("src", RESOURCE_SCHEME, self.out.images),
                ("href", LINK_SCHEME, self.out.links),
            ):
                value = element.get(attr)
                if value is not None:
                    table.append(value)
                    element.set(attr, f"{scheme}:{len(table) - 1}")


class MarkdownConverter:
    """A Python-Markdown instance set up for the preview; building one takes tens of
    milliseconds, so a widget keeps one and reuses it for every render. It is built at
    the first render, not with the widget (six preview widgets are made before the
    window's first paint, and most never render)."""

    def __init__(self) -> None:
        self._md: markdown.Markdown | None = None

    @property
    def md(self) -> markdown.Markdown:
        if self._md is None:
            self._md = _converter()
        return self._md

    def convert(self, piece: str, out: RenderedMarkdown, refs: dict[str, Any]) -> str:
        md = self.md
        md.reset()  # the stash of code blocks would grow with every piece
        md.references.update(refs)
        cast(_PrivateUrls, md.treeprocessors["private_urls"]).out = out
        return md.convert(piece)


def _converter() -> markdown.Markdown:
    md = markdown.Markdown(
        extensions=_EXTENSIONS, extension_configs=_EXTENSION_CONFIGS, output_format="html"
    )
    # Without these two, raw HTML blocks and inline tags pass through untouched; removed,
    # the text stays text and the serializer escapes its '<' and '&'.
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    # Last, so every element any extension made is rewritten.
    md.treeprocessors.register(_PrivateUrls(md), "private_urls", 0)
    return md


def _too_deep(text: str) -> bool:
    depth = deepest = 0
    brackets = text if text.count("[") > MAX_NESTING else ""
    for ch in brackets:
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


def _plain_pieces(text: str) -> Iterator[str]:
    # In parts, so the widget never takes one huge block at once.
    for start in range(0, len(text), PIECE_CHARS):
        yield _plain(text[start : start + PIECE_CHARS])


def _is_table_row(line: str) -> bool:
    return line.lstrip().startswith("|")


_TABLE_DELIMITER = re.compile(r"^ {0,3}\|?(?: *:?-+:? *\|)+ *(?::?-+:? *)?$")


def markdown_pieces(text: str) -> list[str]:
    """`text` cut at line ends into pieces converted one by one: at a blank line once a
    piece has PIECE_LINES lines, or anywhere after PIECE_LINES lines without one (never
    inside fenced code; a table cut in two repeats its header). Linear time."""
    pieces: list[str] = []
    current: list[str] = []
    fence = ""
    header: list[str] = []
    fence_line = ""
    for line in text.split("\n"):
        opening = _FENCE.match(line)
        if fence:
            closing = opening.group(1) if opening else ""
            if closing[:1] == fence[:1] and len(closing) >= len(fence):
                current.append(line)
                fence = ""
            elif len(current) >= FENCE_PIECE_LINES:
                # A long code block goes out in parts, each a complete block.
                pieces.append("\n".join([*current, fence]))
                current = [fence_line, line]
            else:
                current.append(line)
            continue
        if opening:
            fence = opening.group(1)
            fence_line = line
        blank = not line.strip()
        table_goes_on = bool(current) and _is_table_row(line) and _is_table_row(current[-1])
        if not table_goes_on:
            header = []
        elif _TABLE_DELIMITER.match(line) and len(current) >= 1:
            header = [current[-1], line]
        limit = TABLE_PIECE_LINES if table_goes_on else PIECE_LINES
        if len(current) >= limit and not fence:
            pieces.append("\n".join(current))
            current = list(header) if table_goes_on and header else []
            if blank:
                continue
        current.append(line)
    if current:
        pieces.append("\n".join(current))
    return pieces


def _references(text: str) -> dict[str, tuple[str, None]]:
    # Gathered up front so a link resolves whichever piece defines it.
    return {m.group(1).lower(): (m.group(2), None) for m in _REFERENCE.finditer(text)}


def _bounded(text: str) -> tuple[str, str]:
    if len(text) <= MAX_PREVIEW_CHARS:
        return text, ""
    note = (
        f"<p><i>The preview shows the first {MAX_PREVIEW_CHARS:,} characters; "
        "the editor holds the whole text.</i></p>"
    )
    return text[:MAX_PREVIEW_CHARS], note


def render_pieces(
    text: str, out: RenderedMarkdown, converter: MarkdownConverter | None = None
) -> Iterator[str]:
    """The HTML of `text`, piece by piece (each a bounded amount of work); image and link
    originals are appended to `out`. Raw HTML in `text` comes out escaped."""
    text, note = _bounded(text)
    if _too_deep(text):
        yield from _plain_pieces(text)
        if note:
            yield note
        return
    references = _references(text)
    converter = converter or MarkdownConverter()
    for piece in markdown_pieces(text):
        if len(piece) > PIECE_CHARS:
            yield from _plain_pieces(piece)
            continue
        try:
            yield converter.convert(piece, out, references)
        except RecursionError:
            yield _plain(piece)
    if note:
        yield note


def render_markdown_doc(text: str) -> RenderedMarkdown:
    out = RenderedMarkdown()
    out.html = "\n".join(render_pieces(text, out))
    return out


def render_markdown(text: str) -> str:
    """The HTML body for `text` (private URLs; see `render_markdown_doc` for the table)."""
    return render_markdown_doc(text).html


def code_style_css(dark: bool) -> str:
    """Pygments colours for fenced code blocks, matched to the palette's lightness."""
    return _code_style_css(dark)


@cache
def _code_style_css(dark: bool) -> str:
    from pygments.formatters import HtmlFormatter  # once per palette lightness

    style = "monokai" if dark else "default"
    formatter: Any = HtmlFormatter(style=style)  # get_style_defs is untyped in the stubs
    return str(formatter.get_style_defs(".codehilite"))
