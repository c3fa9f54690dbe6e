"""Markdown syntax colouring for the content editor: headings, emphasis, code spans, fenced
blocks, lists, block quotes and links. Line by line, with one block state for fences."""

from __future__ import annotations

import re

from PySide6.QtGui import QFont, QPalette, QSyntaxHighlighter, QTextCharFormat, QTextDocument

from axmem_gui.ui.editor.colors import code_background, muted_text
from axmem_gui.ui.editor.text_metrics import utf16_offsets

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_LIST = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])(?=[ \t]|$)")
_QUOTE = re.compile(r"^ {0,3}>")
# The inline patterns never let a span's body run over its own opening delimiter, so a
# failed opener stops scanning at the next one: each line is walked in linear time (an
# unbounded `.+?` made "*a *a *a ..." quadratic: 17 s on one 60k-character line).
_CODE_SPAN = re.compile(r"(`+)(?!`)((?:(?!\1).)+?)(?<!`)\1(?!`)")
_STRONG = re.compile(r"(\*\*|__)(?=\S)((?:(?!\1).)+?)(?<=\S)\1")
_EMPHASIS = re.compile(
    r"(?<![*_\w])([*_])(?=[^\s*_])((?:(?!\1).)+?)(?<=[^\s*_])\1(?![*_\w])"
)
_LINK = re.compile(r"!?\[([^\]\n]*)\]\(([^)\s]*)(?:\s+\"[^\"]*\")?\)")
_AUTOLINK = re.compile(r"<(?:https?|mailto):[^>\s]+>")

#: Lines longer than this get block-level colouring only (headings, quotes, fences), no
#: inline spans: the work per keystroke stays bounded whatever one line holds.
MAX_INLINE_CHARS = 4000

#: Block states: not in a fence (default -1/0), or inside a ``` or a ~~~ fence.
_IN_BACKTICK_FENCE = 1
_IN_TILDE_FENCE = 2


class MarkdownHighlighter(QSyntaxHighlighter):
    def __init__(self, document: QTextDocument, palette: QPalette) -> None:
        super().__init__(document)
        #: How many blocks were coloured without inline spans (too long; see MAX_INLINE_CHARS).
        self.plain_blocks = 0
        self.set_palette(palette)

    def set_palette(self, palette: QPalette) -> None:
        link = palette.color(QPalette.ColorRole.Link)
        self.heading = QTextCharFormat()
        self.heading.setFontWeight(QFont.Weight.Bold)
        self.heading.setForeground(link)
        self.strong = QTextCharFormat()
        self.strong.setFontWeight(QFont.Weight.Bold)
        self.emphasis = QTextCharFormat()
        self.emphasis.setFontItalic(True)
        self.code = QTextCharFormat()
        self.code.setBackground(code_background(palette))
        self.fence = QTextCharFormat(self.code)
        self.fence_marker = QTextCharFormat(self.code)
        self.fence_marker.setForeground(muted_text(palette))
        self.marker = QTextCharFormat()
        self.marker.setForeground(palette.color(QPalette.ColorRole.Highlight))
        self.marker.setFontWeight(QFont.Weight.Bold)
        self.quote = QTextCharFormat()
        self.quote.setForeground(muted_text(palette))
        self.quote.setFontItalic(True)
        self.link_text = QTextCharFormat()
        self.link_text.setForeground(link)
        self.link_text.setFontUnderline(True)
        self.link_target = QTextCharFormat()
        self.link_target.setForeground(muted_text(palette))
        self.rehighlight()

    def highlightBlock(self, text: str) -> None:
        # setFormat counts UTF-16 units; Python indexes count code points.
        offsets = utf16_offsets(text)

        def fmt(start: int, end: int, form: QTextCharFormat) -> None:
            if offsets is not None:
                start, end = offsets[start], offsets[end]
            if end > start:
                self.setFormat(start, end - start, form)

        state = self.previousBlockState()
        fence = _FENCE.match(text)
        if state in (_IN_BACKTICK_FENCE, _IN_TILDE_FENCE):
            fmt(0, len(text), self.fence)
            closing = _IN_BACKTICK_FENCE if text.lstrip(" ").startswith("`") else _IN_TILDE_FENCE
            ends = fence is not None and closing == state and not text.strip(" `~")
            self.setCurrentBlockState(0 if ends else state)
            if ends:
                fmt(0, len(text), self.fence_marker)
            return
        if fence is not None:
            fmt(0, len(text), self.fence_marker)
            kind = _IN_BACKTICK_FENCE if fence.group(1)[0] == "`" else _IN_TILDE_FENCE
            self.setCurrentBlockState(kind)
            return
        self.setCurrentBlockState(0)

        if _HEADING.match(text):
            fmt(0, len(text), self.heading)
        elif (quote := _QUOTE.match(text)) is not None:
            fmt(0, len(text), self.quote)
            fmt(0, quote.end(), self.marker)
        elif (item := _LIST.match(text)) is not None:
            fmt(0, item.end(), self.marker)

        if len(text) > MAX_INLINE_CHARS:
            self.plain_blocks += 1
            return
        code_spans: list[tuple[int, int]] = []
        for m in _CODE_SPAN.finditer(text):
            code_spans.append(m.span())
            fmt(m.start(), m.end(), self.code)

        def in_code(pos: int) -> bool:
            return any(a <= pos < b for a, b in code_spans)

        for m in _STRONG.finditer(text):
            if not in_code(m.start()):
                fmt(m.start(), m.end(), self.strong)
        for m in _EMPHASIS.finditer(text):
            if not in_code(m.start()):
                fmt(m.start(), m.end(), self.emphasis)
        for m in _LINK.finditer(text):
            if not in_code(m.start()):
                fmt(m.start(1), m.end(1), self.link_text)
                fmt(m.start(2), m.end(2), self.link_target)
        for m in _AUTOLINK.finditer(text):
            if not in_code(m.start()):
                fmt(m.start(), m.end(), self.link_text)
