"""The markdown content editor: exact text, UTF-16 counters and shading, highlighting, and a
preview that escapes raw HTML and loads nothing."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QFont, QTextBlock, QTextCharFormat, QTextCursor
from pytestqt.qtbot import QtBot

from axmem_gui.ui.editor.markdown_editor import ContentEdit, MarkdownEditor
from axmem_gui.ui.editor.markdown_render import render_markdown
from axmem_gui.ui.editor.preview import SafeMarkdownBrowser, open_link
from axmem_gui.ui.editor.text_metrics import content_counts, unsearched_range
from tests.helpers.links import record_links

EMOJI = "\U0001f600"  # two UTF-16 units


def test_unsearched_range_counts_utf16_units() -> None:
    assert unsearched_range("a" * 600) is None
    assert unsearched_range("a" * 601) == (600, 601)
    # 300 emoji = 600 units exactly: nothing is cut.
    assert unsearched_range(EMOJI * 300) is None
    assert unsearched_range(EMOJI * 300 + "x") == (600, 601)
    # The cut falls inside the 300th emoji: the whole emoji counts as unsearched.
    assert unsearched_range("a" + EMOJI * 300) == (599, 601)
    counts = content_counts("a" + EMOJI * 300)
    assert (counts.units, counts.tokens, counts.unsearched) == (601, 151, 2)
    assert counts.summary() == "601 UTF-16 units · ~151 tokens · 2 beyond the 600-unit search cut"


def _shaded_text(edit: ContentEdit) -> str:
    selections = edit.extraSelections()
    assert len(selections) == 1
    return selections[0].cursor.selectedText()


def test_shading_covers_exactly_the_unsearched_tail_with_emoji(qtbot: QtBot) -> None:
    editor = MarkdownEditor()
    qtbot.addWidget(editor)
    head = "# Title " + EMOJI * 100 + "\n" + "w" * 391  # 8 + 200 + 1 + 391 = 600 units
    editor.set_text(head + "TAIL " + EMOJI)
    edit = editor.edit
    assert edit.unsearched == (600, 607)
    assert _shaded_text(edit) == "TAIL " + EMOJI
    assert "beyond the 600-unit search cut" in editor.counts.text()
    # An emoji straddling the cut is shaded whole.
    editor.set_text("a" + EMOJI * 300)
    assert _shaded_text(edit) == EMOJI
    selections = edit.extraSelections()
    background = selections[0].format.background().color()
    assert background != edit.palette().base().color()
    editor.set_text("short")
    assert edit.extraSelections() == [] and edit.unsearched is None
    assert "beyond" not in editor.counts.text()


def test_editor_keeps_text_exact(qtbot: QtBot) -> None:
    editor = MarkdownEditor()
    qtbot.addWidget(editor)
    text = "non\u00a0breaking and " + EMOJI + "\nsecond line\tafter tab"
    editor.set_text(text)
    assert editor.text() == text
    edited: list[bool] = []
    editor.edited.connect(lambda: edited.append(True))
    editor.edit.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClick(editor.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(editor.edit, "x")
    assert editor.text() == text + "\nx"  # a real newline, not U+2028
    assert edited


def test_highlighter_formats_use_utf16_positions(qtbot: QtBot) -> None:
    editor = MarkdownEditor()
    qtbot.addWidget(editor)
    editor.set_text(f"{EMOJI} **bold** and `code`\n```\n# not a heading\n```\n## Heading")
    doc = editor.edit.document()
    formats = doc.firstBlock().layout().formats()
    bold = [f for f in formats if f.format.fontWeight() == QFont.Weight.Bold]
    # "😀 " is 3 UTF-16 units, so "**bold**" starts at 3, not 2.
    assert [(f.start, f.length) for f in bold] == [(3, 8)]
    code = [f for f in formats if f.format.background().style() != Qt.BrushStyle.NoBrush]
    assert [(f.start, f.length) for f in code] == [(16, 6)]
    in_fence = doc.findBlockByNumber(2)
    assert in_fence.userState() == 1
    assert all(f.format.fontWeight() != QFont.Weight.Bold for f in in_fence.layout().formats())
    heading = doc.findBlockByNumber(4).layout().formats()
    assert heading and heading[0].format.fontWeight() == QFont.Weight.Bold


def test_render_escapes_raw_html() -> None:
    html = render_markdown(
        "# T\n\n<script>alert(1)</script>\n\nhi <b onclick='x()'>there</b>\n\n"
        '<img src="http://127.0.0.1:9/x.png">\n\n```python\nprint("<a>")\n```'
    )
    assert "<script" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<b " not in html and "&lt;b onclick" in html
    assert '<img src="http://127.0.0.1:9/x.png">' not in html
    assert '<div class="codehilite">' in html and "&lt;a&gt;" in html


class _CountingHandler(BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        type(self).hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def http_server() -> Iterator[tuple[str, list[str]]]:
    _CountingHandler.hits = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _CountingHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", _CountingHandler.hits
    server.shutdown()
    server.server_close()


def test_preview_loads_nothing_remote_or_local(
    qtbot: QtBot, http_server: tuple[str, list[str]], tmp_path: Path
) -> None:
    base, hits = http_server
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"not really a png")
    browser = SafeMarkdownBrowser()
    qtbot.addWidget(browser)
    browser.show()
    source = (
        f'<img src="{base}/raw.png">\n\n<script>alert(1)</script>\n\n'
        f"![remote]({base}/md.png)\n\n![local]({secret.as_uri()})\n\n![relative](secret.png)"
    )
    browser.set_markdown_source(source, immediately=True)
    qtbot.waitUntil(lambda: len(browser.blocked_resources) >= 3)
    assert f"{base}/md.png" in browser.blocked_resources
    assert secret.as_uri() in browser.blocked_resources
    text = browser.toPlainText()
    assert "<script>alert(1)</script>" in text  # shown as text
    assert f'<img src="{base}/raw.png">' in text
    # A real server on 127.0.0.1 saw no request at all.
    assert hits == []


def test_preview_debounces_rendering(qtbot: QtBot) -> None:
    browser = SafeMarkdownBrowser()
    qtbot.addWidget(browser)
    browser.set_markdown_source("# One")
    browser.set_markdown_source("# Two")
    assert browser.toPlainText() == ""
    qtbot.waitUntil(lambda: browser.toPlainText().strip() == "Two")


def test_links_open_only_after_confirmation(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    browser = SafeMarkdownBrowser()
    qtbot.addWidget(browser)
    links = record_links(monkeypatch)
    assert not open_link(browser, QUrl("https://example.com/guide"))
    assert links.asked == ["https://example.com/guide"] and links.opened == []
    assert not open_link(browser, QUrl("javascript:alert(1)"))
    assert links.refused == ["javascript:alert(1)"] and links.asked == ["https://example.com/guide"]
    links.answer = True
    assert open_link(browser, QUrl("https://example.com/ok"))
    assert [u.toString() for u in links.opened] == ["https://example.com/ok"]


def test_hovered_link_target_is_shown(qtbot: QtBot) -> None:
    editor = MarkdownEditor()
    qtbot.addWidget(editor)
    editor.preview.highlighted.emit(QUrl("https://example.com/x"))
    assert "https://example.com/x" in editor.link_status.text()
    editor.preview.highlighted.emit(QUrl())
    assert editor.link_status.text() == ""


def _spans(block: QTextBlock, want: Callable[[QTextCharFormat], bool]) -> list[str]:
    text = block.text()
    return [text[f.start : f.start + f.length] for f in block.layout().formats() if want(f.format)]


def test_emphasis_does_not_run_over_an_unclosed_opener(qtbot: QtBot) -> None:
    # CommonMark: "*a *b*" is "*a <em>b</em>"; the old pattern let the span's body run over the
    # unclosed "*" (which is also what made a line of "*a *a *a ..." quadratic to colour).
    editor = MarkdownEditor()
    qtbot.addWidget(editor)
    editor.set_text("*a *b* then **c **d** and `e `f`")
    block = editor.edit.document().firstBlock()
    assert _spans(block, lambda f: f.fontItalic()) == ["*b*"]
    assert _spans(block, lambda f: f.fontWeight() == QFont.Weight.Bold) == ["**d**"]
    code = _spans(block, lambda f: f.background().style() != Qt.BrushStyle.NoBrush)
    assert code == ["`e `"]


def test_long_lines_get_no_inline_spans(qtbot: QtBot) -> None:
    from axmem_gui.ui.editor.highlighter import MAX_INLINE_CHARS

    editor = MarkdownEditor()
    qtbot.addWidget(editor)
    hostile = "*a " * 70_000  # 210k characters on one line
    editor.set_text(f"# title\n**bold** {'x' * MAX_INLINE_CHARS}\n{hostile}\n**short**")
    doc = editor.edit.document()
    highlighter = editor.edit.highlighter
    assert highlighter.plain_blocks >= 2
    bold = lambda f: f.fontWeight() == QFont.Weight.Bold  # noqa: E731
    assert _spans(doc.findBlockByNumber(1), bold) == []
    assert _spans(doc.findBlockByNumber(2), lambda f: f.fontItalic()) == []
    # Block-level colouring and short lines are unchanged.
    assert _spans(doc.findBlockByNumber(0), bold) == ["# title"]
    assert _spans(doc.findBlockByNumber(3), bold) == ["**short**"]
