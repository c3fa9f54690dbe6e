"""Issue: the "safe" markdown preview read local files (`![d](/dev/zero)` aborted the app,
a FIFO hung it, a local PNG was shown) and froze on ordinary block markdown (quadratic
renderer). Now every src/href reaches Qt as a private URL, images are inert placeholders,
and long text renders in slices without holding the GUI thread."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QImage, QTextDocument, QTextImageFormat
from pytestqt.qtbot import QtBot

from axmem_gui.ui.editor import preview
from axmem_gui.ui.editor.dialogs import OpenLinkDialog
from axmem_gui.ui.editor.markdown_render import (
    MAX_LINK_SCAN,
    MAX_PIECE_UNITS,
    PIECE_CHARS,
    PIECE_LINES,
    PIECE_MARKUP,
    RenderedMarkdown,
    layout_units,
    link_scan_cost,
    markdown_pieces,
    markup_weight,
    render_markdown,
    render_pieces,
)
from axmem_gui.ui.editor.preview import SafeMarkdownBrowser

HOSTILE_SHAPES = {
    "setext": "a\n=\n" * 25000,
    "hashes": "#\n" * 50000,
    "rules": "---\n" * 25000,
}


def _image_names(doc: QTextDocument) -> list[str]:
    names = []
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isImageFormat():
                names.append(QTextImageFormat(fmt).name())
            it += 1
        block = block.next()
    return names


def test_generated_html_has_only_private_urls(tmp_path: Path) -> None:
    html = render_markdown(
        "![z](/dev/zero) ![f](file:///etc/passwd) ![r](http://127.0.0.1:9/x.png) "
        "[l](file:///etc/passwd) <http://127.0.0.1:9/> [ref]\n\n[ref]: /etc/shadow"
    )
    urls = re.findall(r'(?:src|href)="([^"]*)"', html)
    assert len(urls) == 6 and all(re.fullmatch(r"axmem-(res|link):\d+", u) for u in urls), urls


def test_preview_reads_no_device_fifo_or_local_image(qtbot: QtBot, tmp_path: Path) -> None:
    png = tmp_path / "local.png"
    QImage(50, 40, QImage.Format.Format_RGB32).save(str(png))
    fifo = tmp_path / "pipe.png"
    os.mkfifo(fifo)
    browser = SafeMarkdownBrowser()
    qtbot.addWidget(browser)
    browser.show()
    old = os.getcwd()
    os.chdir(tmp_path)  # so that relative names would resolve to the planted files
    try:
        browser.set_markdown_source(
            f"![zero](/dev/zero)\n\n![pipe]({fifo})\n\n![pipe2](pipe.png)\n\n"
            f"![png]({png})\n\n![uri]({png.as_uri()})\n\n![rel](local.png)",
            immediately=True,
        )
        qtbot.waitUntil(lambda: len(browser.blocked_resources) >= 6)
    finally:
        os.chdir(old)
    names = _image_names(browser.document())
    assert len(names) == 6 and all(n.startswith("axmem-res:") for n in names), names
    for name in names:
        image = browser.document().resource(QTextDocument.ResourceType.ImageResource, QUrl(name))
        assert isinstance(image, QImage) and image.size().width() == 24  # the placeholder
    assert "/dev/zero" in browser.blocked_resources  # recorded by its original name


def test_links_map_back_to_their_target_and_are_still_confirmed(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    refused: list[str] = []
    monkeypatch.setattr(OpenLinkDialog, "refuse", classmethod(lambda cls, p, u: refused.append(u)))
    monkeypatch.setattr(OpenLinkDialog, "ask", classmethod(lambda cls, p, u: False))
    browser = SafeMarkdownBrowser()
    qtbot.addWidget(browser)
    browser.set_markdown_source("[passwd](file:///etc/passwd)", immediately=True)
    browser.anchorClicked.emit(QUrl("axmem-link:0"))
    assert refused == ["file:///etc/passwd"]
    assert not preview.open_link(browser, QUrl("axmem-link:0"))


@pytest.mark.parametrize("shape", sorted(HOSTILE_SHAPES))
def test_quadratic_shapes_are_cut_into_bounded_pieces(shape: str) -> None:
    pieces = markdown_pieces(HOSTILE_SHAPES[shape])
    assert len(pieces) > 100
    assert all(p.count("\n") <= PIECE_LINES and len(p) <= PIECE_CHARS for p in pieces)


def test_tables_cut_in_pieces_keep_their_header() -> None:
    html = render_markdown("| a | b |\n|---|---|\n" + "| 1 | 2 |\n" * 200)
    assert html.count("<th>") == 2 * html.count("<table>") and html.count("<td>") == 400


@pytest.mark.parametrize("shape", sorted(HOSTILE_SHAPES))
def test_hostile_markdown_renders_in_slices_in_the_widget(qtbot: QtBot, shape: str) -> None:
    browser = SafeMarkdownBrowser()
    qtbot.addWidget(browser)
    with qtbot.waitSignal(browser.render_finished, timeout=120_000):
        browser.set_markdown_source(HOSTILE_SHAPES[shape], immediately=True)
        assert browser.rendering  # returned to the event loop before the work was done
    assert not browser.rendering
    if shape == "setext":  # 25,000 headings: the preview stops at its block limit
        lines = browser.toPlainText().split("\n")
        assert preview.MAX_PREVIEW_BLOCKS - 100 <= lines.count("a") <= 25000
        assert lines[-1] == preview.too_long_note(preview.MAX_PREVIEW_BLOCKS)[6:-8]


def test_a_new_text_replaces_a_render_in_progress(qtbot: QtBot) -> None:
    browser = SafeMarkdownBrowser()
    qtbot.addWidget(browser)
    browser.set_markdown_source(HOSTILE_SHAPES["setext"], immediately=True)
    with qtbot.waitSignal(browser.render_finished, timeout=10_000):
        browser.set_markdown_source("# Only this", immediately=True)
    assert browser.toPlainText().strip() == "Only this"
    assert not browser.rendering


#: Shapes whose cost to Qt or to Python-Markdown is far above what their length says.
COSTLY_SHAPES = {
    # 300 columns in 2,400 characters: laid out at once in one call, 81 ms of CPU.
    "wide table": "|" + "a|" * 300 + "\n|" + "-|" * 300 + "\n" + ("|" + "1|" * 300 + "\n") * 2,
    # 100 rows of 20 cells went to Qt as one piece (2,000 cells, 120 ms).
    "20-column table": "|" + "a|" * 20 + "\n|" + "-|" * 20 + "\n" + ("|" + "1|" * 20 + "\n") * 400,
    # Python-Markdown scans each `](` to the end of the text: 8,000 characters took 1.5 s.
    "open link parens": "[a](" * 900,
    "open image brackets": "![" * 1800,
    # Every `*a*` is a match after which the text is rebuilt: 3,200 characters, 45 ms.
    "dense emphasis": ("*a* _b_ " * 10 + "\n") * 40,
    "quote-list ladder": ("> - " * 19 + "x\n") * 40,
    "fenced code": "```python\n" + "x = f(1, 'a')\n" * 3000 + "```\n",
}


@pytest.mark.parametrize("shape", sorted(COSTLY_SHAPES))
def test_every_piece_is_bounded_in_conversion_and_layout_cost(shape: str) -> None:
    text = COSTLY_SHAPES[shape]
    for piece in markdown_pieces(text):
        lines = piece.split("\n")
        code = lines[0].startswith("```")  # no inline patterns inside fenced code
        assert code or len(lines) == 1 or sum(map(markup_weight, lines)) <= PIECE_MARKUP
    for html in render_pieces(text, RenderedMarkdown()):
        assert layout_units(html) <= MAX_PIECE_UNITS, html[:80]
        assert html.count("<td") + html.count("<th") <= 120


def test_a_table_too_wide_to_cut_is_shown_as_text() -> None:
    html = render_markdown(COSTLY_SHAPES["wide table"])
    assert "<table" not in html and html.startswith("<pre>") and "|a|a|" in html


@pytest.mark.parametrize("shape", ["open link parens", "open image brackets"])
def test_link_brackets_scanned_quadratically_are_shown_as_text(shape: str) -> None:
    text = COSTLY_SHAPES[shape]
    assert len(text) <= PIECE_CHARS and link_scan_cost(text) > MAX_LINK_SCAN
    assert render_markdown(text) == "<pre>" + text.replace("&", "&amp;") + "</pre>"
    ordinary = ("See [a](http://x), [b](http://y) and ![c](z.png).\n" * 10 + "\n") * 30
    assert render_markdown(ordinary).count("<a href") == 600  # ordinary links render


def test_appended_batches_keep_the_format_of_their_first_block(qtbot: QtBot) -> None:
    """Each batch's first block merged into the document's last block: the heading lost
    its format and the block grew with every turn (quadratic appending)."""
    browser = SafeMarkdownBrowser()
    qtbot.addWidget(browser)
    with qtbot.waitSignal(browser.render_finished, timeout=60_000):
        browser.set_markdown_source("a\n=\n" * 2000, immediately=True)
    headings = []
    block = browser.document().begin()
    while block.isValid():
        headings.append((block.text(), block.blockFormat().headingLevel()))
        block = block.next()
    assert len(browser.slice_units) > 1  # appended in several batches
    assert headings == [("a", 1)] * 2000
    with qtbot.waitSignal(browser.render_finished, timeout=60_000):
        browser.set_markdown_source("word " * 20000, immediately=True)
    assert browser.document().blockCount() >= 20000 * 5 // PIECE_CHARS


def test_a_turn_lays_out_a_bounded_amount(qtbot: QtBot) -> None:
    browser = SafeMarkdownBrowser()
    qtbot.addWidget(browser)
    with qtbot.waitSignal(browser.render_finished, timeout=60_000):
        browser.set_markdown_source(COSTLY_SHAPES["20-column table"], immediately=True)
        assert browser.rendering  # 2,400 characters, but too much for one turn
    assert len(browser.slice_units) > 3
    assert max(browser.slice_units) <= preview.MAX_SLICE_UNITS + MAX_PIECE_UNITS


def test_the_preview_stops_at_its_block_limit(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(preview, "MAX_PREVIEW_BLOCKS", 300)
    browser = SafeMarkdownBrowser()
    qtbot.addWidget(browser)
    with qtbot.waitSignal(browser.render_finished, timeout=60_000):
        browser.set_markdown_source("para\n\n" * 2000, immediately=True)
    text = browser.toPlainText()
    assert 300 <= text.count("para") < 2000 and "first 300 blocks" in text
