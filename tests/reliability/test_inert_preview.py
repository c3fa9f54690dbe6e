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

from axmem_gui.ui.editor import preview
from axmem_gui.ui.editor.dialogs import OpenLinkDialog
from axmem_gui.ui.editor.markdown_render import (
    PIECE_CHARS,
    PIECE_LINES,
    markdown_pieces,
    render_markdown,
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


def test_preview_reads_no_device_fifo_or_local_image(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
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


def test_links_map_back_to_their_target_and_are_still_confirmed(qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
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
def test_hostile_markdown_renders_in_slices_in_the_widget(qtbot, shape: str) -> None:  # type: ignore[no-untyped-def]
    browser = SafeMarkdownBrowser()
    qtbot.addWidget(browser)
    with qtbot.waitSignal(browser.render_finished, timeout=120_000):
        browser.set_markdown_source(HOSTILE_SHAPES[shape], immediately=True)
        assert browser.rendering  # returned to the event loop before the work was done
    assert not browser.rendering
    if shape == "setext":
        assert browser.toPlainText().count("a") == 25000


def test_a_new_text_replaces_a_render_in_progress(qtbot) -> None:  # type: ignore[no-untyped-def]
    browser = SafeMarkdownBrowser()
    qtbot.addWidget(browser)
    browser.set_markdown_source(HOSTILE_SHAPES["setext"], immediately=True)
    with qtbot.waitSignal(browser.render_finished, timeout=10_000):
        browser.set_markdown_source("# Only this", immediately=True)
    assert browser.toPlainText().strip() == "Only this"
    assert not browser.rendering
