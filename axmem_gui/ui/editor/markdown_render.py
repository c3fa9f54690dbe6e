"""Markdown to HTML for the content preview (pure: no Qt, no IO beyond the style template).

Skill guides come from anywhere (imports, teammates, the model itself), so the preview
treats them as untrusted:
- raw HTML is shown as text, never interpreted;
- every image `src` and link `href` in the generated HTML is rewritten to a private
  scheme (`axmem-res:N`, `axmem-link:N`) before Qt sees it, so Qt has nothing it could
  fetch or read by itself (a `file:` URL or `/dev/zero` as an image would otherwise be
  read by Qt, not by our resource loader); the originals are kept beside the HTML;
- the work is bounded: the text is cut into pieces of at most `PIECE_LINES` lines
  (outside fenced code), `PIECE_CHARS` characters and `TABLE_PIECE_CELLS` table cells, and
  each piece is converted on its own, so shapes on which Python-Markdown is quadratic
  (`'a\\n=\\n' * 25000`, `'#\\n' * 50000`, `'---\\n' * 25000`) cost linear time. A piece
  whose conversion or layout would still be costly (link brackets that Python-Markdown
  scans to the end of the text, `![` x 4000 took 6 s; a table too wide to cut; more
  elements than `MAX_PIECE_UNITS`) is shown as plain text. The preview widget spreads
  the pieces over event-loop turns by their `layout_units`.
"""

from __future__ import annotations

import html
import re
import threading
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:  # imported at the first render (not before the window's first paint)
    import markdown

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
#: A piece longer than this is shown as plain text (inline patterns on one huge line are
#: super-linear: 8,000 characters of `*_` took 80 ms).
PIECE_CHARS = 4_000
#: Table cells per piece (a Qt table cell costs about ten times a paragraph to lay out);
#: a table is cut every `TABLE_PIECE_CELLS // columns` rows, its header repeated.
TABLE_PIECE_CELLS = 100
#: A table with more columns than this is shown as plain text (one row cannot be cut).
MAX_TABLE_COLUMNS = 64
#: Lines of fenced code per piece (a long block is shown as consecutive blocks).
FENCE_PIECE_LINES = 60
#: Characters Python-Markdown's link and image patterns may scan in one piece (each `[`
#: is scanned to its `]`, each `](` to its `)`, or to the end of the text when there is
#: none: quadratic); over this the piece is shown as plain text. About 10 ms of work.
MAX_LINK_SCAN = 60_000
#: Inline markup (`*_`[]!<&\\`, and 8 per quote or list level opened on a line) per piece
#: (a fence naming a language weighs more than a piece may hold, so it starts a piece of
#: its own: the first use of a Pygments lexer imports it, 5 to 50 ms, once per piece):
#: Python-Markdown's inline patterns rebuild the text at every match, so a dense piece
#: costs far more than its length says (3,200 characters of `*a` took 45 ms). A piece is
#: cut before a line would take it over this; a single line over twice this is plain text.
PIECE_MARKUP = 300
#: `layout_units` of one converted piece above which it is shown as plain text instead.
MAX_PIECE_UNITS = 800

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_FENCE_LANGUAGE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})[ \t]*([^\s`{]+)", re.M)
_REFERENCE = re.compile(r"^ {0,3}\[([^\]\n]{1,200})\]:[ \t]*<?([^\s>]+)>?", re.M)


@dataclass
class RenderedMarkdown:
    """HTML with private URLs, and what each stands for."""

    html: str = ""
    #: Original `src` of image N (`axmem-res:N`).
    images: list[str] = field(default_factory=list)
    #: Original `href` of link N (`axmem-link:N`).
    links: list[str] = field(default_factory=list)


class _UrlRewriter:
    """Rewrites every src/href in the element tree to the private schemes (the tree
    processor `_private_urls` makes of it)."""

    out: RenderedMarkdown

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
        self._languages: set[str] = set()
        #: The last piece named a code language not seen before (its lexer was imported,
        #: up to 30 ms): the preview ends its turn after such a piece.
        self.imported = False

    @property
    def md(self) -> markdown.Markdown:
        if self._md is None:
            self._md = _converter()
        return self._md

    def convert(self, piece: str, out: RenderedMarkdown, refs: dict[str, Any]) -> str:
        languages = set(_FENCE_LANGUAGE.findall(piece))
        self.imported = not languages <= self._languages
        self._languages |= languages
        md = self.md
        md.reset()  # the stash of code blocks would grow with every piece
        md.references.update(refs)
        cast(_UrlRewriter, md.treeprocessors["private_urls"]).out = out
        return md.convert(fences_in_lists(piece))


def _private_urls(md: markdown.Markdown) -> Any:
    from markdown.treeprocessors import Treeprocessor

    class PrivateUrls(_UrlRewriter, Treeprocessor):
        def __init__(self, md: markdown.Markdown) -> None:
            Treeprocessor.__init__(self, md)
            self.out = RenderedMarkdown()

    return PrivateUrls(md)


def _converter() -> markdown.Markdown:
    import markdown

    md = markdown.Markdown(
        extensions=_EXTENSIONS, extension_configs=_EXTENSION_CONFIGS, output_format="html"
    )
    # Without these two, raw HTML blocks and inline tags pass through untouched; removed,
    # the text stays text and the serializer escapes its '<' and '&'.
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    # Last, so every element any extension made is rewritten.
    md.treeprocessors.register(_private_urls(md), "private_urls", 0)
    return md


_LIST_ITEM = re.compile(r"^( *)(?:[-+*]|\d{1,9}[.)])[ \t]+\S")
_INDENTED_FENCE = re.compile(r"^( +)(`{3,}|~{3,})[ \t]*([^\s`{]*)")


def fences_in_lists(piece: str) -> str:
    """Fenced code inside a list item, as an indented code block of that item.

    Python-Markdown's fences must start at the margin, and a list item's blocks must be
    indented four spaces per level: a fence indented under its item (`1. Run:` then
    three spaces and a fence, as people and CommonMark write it) became a line of inline
    code in the item's paragraph and cut the list in two. The block is rewritten the way
    Python-Markdown reads code in an item: a blank line, then the code indented four
    spaces past the item's level, its language on a `:::lang` first line (CodeHilite's
    own syntax)."""
    if "```" not in piece and "~~~" not in piece:
        return piece
    lines = piece.split("\n")
    out: list[str] = []
    #: Indentation of the list markers enclosing the current line (innermost last).
    markers: list[int] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        item = _LIST_ITEM.match(line)
        fence = None if item else _INDENTED_FENCE.match(line)
        if item:
            indent = len(item.group(1))
            markers = [m for m in markers if m < indent] + [indent]
        elif line and not line[0].isspace():
            markers = []  # back at the margin: the list is over
        indent = len(fence.group(1)) if fence else 0
        end = i + 1
        if fence is not None:
            while end < len(lines) and not lines[end].strip().startswith(fence.group(2)):
                end += 1
        if fence is None or end == len(lines) or (not markers and indent > 3):
            # not a fence, never closed, or code that shows a fence (indented code)
            out.append(line)
            i += 1
            continue
        code = [c[indent:] if not c[:indent].strip() else c.lstrip() for c in lines[i + 1 : end]]
        if not markers:
            # indented under nothing (a long block's later part): a fence at the margin
            out += [line[indent:], *code, lines[end].lstrip()]
        else:
            # the item the fence is under; Python-Markdown nests four spaces per level
            owner = max((m for m in markers if m < indent), default=0)
            pad = " " * (4 * (owner // 4 + 1) + 4)
            out += ["", f"{pad}:::{fence.group(3) or 'text'}"]
            out += [pad + c if c.strip() else "" for c in code]
            out.append("")
        i = end + 1
    return "\n".join(out)


_CONTAINER_PREFIX = re.compile(r"(?:[ \t]*(?:>|[-+*](?=[ \t])|\d{1,9}[.)](?=[ \t])))+")


_NOT_MARKUP = str.maketrans(dict.fromkeys("*_`[]!<&\\"))


def markup_weight(line: str) -> int:
    """The inline markup of `line` (see PIECE_MARKUP), counted at C speed."""
    weight = len(line) - len(line.translate(_NOT_MARKUP))
    if (fence := _FENCE.match(line)) and line[fence.end() :].strip() and line[0] != " ":
        # (an indented fence belongs to the list item above it: it stays in its piece)
        weight += PIECE_MARKUP + 1
    if line[:1] in " \t>-+*0123456789" and (containers := _CONTAINER_PREFIX.match(line)):
        weight += 8 * len(containers.group().split())
    return weight


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
        # Quotes and list items opened on one line (`> - > - ...`): one level each.
        containers = _CONTAINER_PREFIX.match(line)
        if containers and len(containers.group().split()) > MAX_NESTING:
            return True
    return False


_BRACKETS = re.compile(r"\\.|[\[\]()]")


def link_scan_cost(piece: str) -> int:
    """The characters Python-Markdown's link patterns scan in `piece`, estimated in linear
    time: the distance from each `[` to its `]` and from each `](` to its `)` (to the end
    of the piece when unmatched; escaped brackets are skipped)."""
    end = len(piece)
    squares: list[int] = []
    parens: list[int] = []
    cost = 0
    last, prev_end = "", -1
    for match in _BRACKETS.finditer(piece):
        ch, pos = match.group(), match.start()
        if ch == "[":
            squares.append(pos)
        elif ch == "]":
            if squares:
                cost += pos - squares.pop()
        elif ch == "(":
            if last == "]" and match.start() == prev_end:
                parens.append(pos)
            elif parens:
                parens.append(-1)  # nested plain parenthesis: balances a later ')'
        elif parens:
            start = parens.pop()
            if start >= 0:
                cost += pos - start
        last, prev_end = ch, match.end()
    cost += sum(end - start for start in squares)
    cost += sum(end - start for start in parens if start >= 0)
    return cost


def layout_units(html_piece: str) -> int:
    """A measure of what laying out `html_piece` costs Qt: its tags (blocks, cells, inline
    formats), table cells twice more, and its characters."""
    cells = html_piece.count("<td") + html_piece.count("<th")
    return html_piece.count("<") + 2 * cells + len(html_piece) // 16


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
    return list(iter_markdown_pieces(text))


def iter_markdown_pieces(text: str) -> Iterator[str]:
    """`text` cut at line ends into pieces converted one by one: at a blank line once a
    piece has PIECE_LINES lines, or anywhere after PIECE_LINES lines without one (never
    inside fenced code; a table is cut every TABLE_PIECE_CELLS cells and repeats its
    header), and before a line would take its inline markup over PIECE_MARKUP. Linear
    time, and lazy: each piece costs about its own length."""
    current: list[str] = []
    markup = 0
    fence = ""
    header: list[str] = []
    table_rows = TABLE_PIECE_CELLS
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
                yield "\n".join([*current, fence])
                current = [fence_line, line]
            else:
                current.append(line)
            continue
        blank = not line.strip()
        table_goes_on = bool(current) and _is_table_row(line) and _is_table_row(current[-1])
        if not table_goes_on:
            header = []
        elif _TABLE_DELIMITER.match(line) and len(current) >= 1:
            header = [current[-1], line]
            table_rows = max(2, TABLE_PIECE_CELLS // max(1, line.count("|") - 1))
        limit = table_rows if table_goes_on else PIECE_LINES
        weight = markup_weight(line)
        dense = not table_goes_on and markup + weight > PIECE_MARKUP
        if current and (len(current) >= limit or dense):
            yield "\n".join(current)
            current = list(header) if table_goes_on and header else []
            markup = 0
            if blank:
                continue
        if opening:
            fence = opening.group(1)
            fence_line = line
        current.append(line)
        markup += weight
    if current:
        yield "\n".join(current)


def _costly(piece: str) -> bool:
    if link_scan_cost(piece) > MAX_LINK_SCAN:
        return True
    if len(piece) - len(piece.translate(_NOT_MARKUP)) > 2 * PIECE_MARKUP:
        return True
    # A table row cannot be cut: a row of very many cells is shown as text.
    return any(line.count("|") > MAX_TABLE_COLUMNS + 1 for line in piece.split("\n") if "|" in line)


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
    references = _references(text)
    converter = converter or MarkdownConverter()
    for piece in iter_markdown_pieces(text):
        if len(piece) > PIECE_CHARS or _too_deep(piece) or _costly(piece):
            yield from _plain_pieces(piece)
            continue
        try:
            converted = converter.convert(piece, out, references)
        except RecursionError:
            yield _plain(piece)
            continue
        yield converted if layout_units(converted) <= MAX_PIECE_UNITS else _plain(piece)
    if note:
        yield note


def render_markdown_doc(text: str) -> RenderedMarkdown:
    out = RenderedMarkdown()
    out.html = "\n".join(render_pieces(text, out))
    return out


def render_markdown(text: str) -> str:
    """The HTML body for `text` (private URLs; see `render_markdown_doc` for the table)."""
    return render_markdown_doc(text).html


@cache
def warm_highlighting() -> None:
    """Import Pygments' lexer table, its most common lexer and its formatter on a
    background thread, once: done on the GUI thread by the first fenced `python` block,
    these imports were the longest pause of the preview (about 40 ms)."""

    def warm() -> None:
        _converter().convert("```python\nx = 1\n```\n")  # its own instance
        for dark in (False, True):  # the previews' style sheets, cached
            _code_style_css(dark)

    threading.Thread(target=warm, name="pygments-warm-up", daemon=True).start()


def code_style_css(dark: bool) -> str:
    """Pygments colours for fenced code blocks, matched to the palette's lightness."""
    return _code_style_css(dark)


@cache
def _code_style_css(dark: bool) -> str:
    from pygments.formatters import HtmlFormatter  # once per palette lightness

    style = "monokai" if dark else "default"
    formatter: Any = HtmlFormatter(style=style)  # get_style_defs is untyped in the stubs
    return str(formatter.get_style_defs(".codehilite"))
