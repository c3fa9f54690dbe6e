"""Issue: untrusted content. Markdown from other people renders inert, loads nothing, opens
no link without a click and a confirmation, and huge or pathologically nested content
neither freezes nor crashes the preview."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QUrl
from pytestqt.qtbot import QtBot

from axmem_gui.ui.editor import preview
from axmem_gui.ui.editor.markdown_render import MAX_PREVIEW_CHARS, render_markdown
from tests.helpers.links import record_links

HOSTILE = (
    "<script>alert(1)</script>\n\n<iframe src='http://127.0.0.1:9/'></iframe>\n\n"
    "<img src=x onerror=alert(1)>\n\n<style>body{display:none}</style>\n\n"
    "[js](javascript:alert(1)) [local](file:///etc/passwd) ![remote](http://127.0.0.1:9/a.png)"
)


def test_raw_html_is_escaped_text() -> None:
    out = render_markdown(HOSTILE)
    for tag in ("<script", "<iframe", "<img src=x", "<style"):
        assert tag not in out
    assert "&lt;iframe" in out and "&lt;script&gt;" in out


#: Inputs that make naive Markdown renderers recurse or backtrack. How fast they render is a
#: speed figure: bench/markdown_bench.py prints it.
PATHOLOGICAL_MARKDOWN = {
    "nested-list": "".join("  " * i + "- item\n" for i in range(600)),
    "nested-quote": ">" * 5000 + " deep quote",
    "nested-brackets": "[" * 30000 + "x" + "]" * 30000,
    "emphasis": "*a " * 40000,
    "backticks": "`" * 50000,
    "table": "| a | b |\n|---|---|\n" + "| 1 | 2 |\n" * 20000,
}


@pytest.mark.parametrize("text", PATHOLOGICAL_MARKDOWN.values(), ids=PATHOLOGICAL_MARKDOWN.keys())
def test_pathological_markdown_renders(text: str) -> None:
    out = render_markdown(text)
    assert out.strip()
    assert "<script" not in out.lower()


def test_huge_content_is_truncated_with_a_note() -> None:
    out = render_markdown("word " * (MAX_PREVIEW_CHARS // 2))
    assert f"first {MAX_PREVIEW_CHARS:,} characters" in out


def test_only_web_links_can_open_and_only_after_confirmation(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtWidgets import QWidget

    links = record_links(monkeypatch)
    parent = QWidget()
    qtbot.addWidget(parent)
    for url in ("javascript:alert(1)", "file:///etc/passwd", "data:text/html,hi"):
        assert not preview.open_link(parent, QUrl(url))
    assert len(links.refused) == 3 and not links.asked and not links.opened
    assert not preview.open_link(parent, QUrl("https://example.org/"))  # user said no
    assert links.asked == ["https://example.org/"] and not links.opened
