"""The rendered markdown preview: loads nothing, opens links only on click and after a
confirmation that names the target, and never holds the GUI thread for long.

The renderer hands over HTML whose every image and link points to a private scheme
(`markdown_render`), so Qt finds nothing to fetch or read; images become a placeholder.
Long text is converted piece by piece on timer turns, a few milliseconds at a time, and
appended as it goes: typing stays responsive whatever the markdown."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from PySide6.QtCore import QByteArray, QEvent, QTimer, QUrl, Signal
from PySide6.QtGui import QColor, QDesktopServices, QImage, QPalette, QTextCursor, QTextDocument
from PySide6.QtWidgets import QTextBrowser, QWidget

from axmem_gui.ui.editor.colors import code_background, is_dark, muted_text
from axmem_gui.ui.editor.dialogs import OpenLinkDialog
from axmem_gui.ui.editor.markdown_render import (
    LINK_SCHEME,
    RESOURCE_SCHEME,
    MarkdownConverter,
    RenderedMarkdown,
    code_style_css,
    render_pieces,
)
from axmem_gui.ui.resources import resources_dir

PREVIEW_DEBOUNCE_MS = 250
#: Text up to this long is rendered in one go; longer text in timed slices.
SYNC_RENDER_CHARS = 4_000
#: Work done per event-loop turn when rendering in slices.
SLICE_BUDGET_S = 0.01
#: Schemes a confirmed click may hand to the desktop; anything else is only shown.
OPENABLE_SCHEMES = ("http", "https", "mailto")


class SafeMarkdownBrowser(QTextBrowser):
    """A QTextBrowser that never fetches: images, style sheets and every other resource
    resolve to nothing, whatever their URL (remote, file or relative)."""

    link_hovered = Signal(str)
    #: The whole text is shown (after a sliced render, or at once for short text).
    render_finished = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("markdownPreview")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.blocked_resources: list[str] = []
        self.anchorClicked.connect(self._on_anchor)
        self.highlighted.connect(self._on_highlighted)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(PREVIEW_DEBOUNCE_MS)
        self._timer.timeout.connect(self._render_now)
        self._pending = ""
        self._rendered = RenderedMarkdown()
        self._converter = MarkdownConverter()
        self._pieces: Iterator[str] | None = None
        self._keep_scroll = 0
        self._slices = QTimer(self)
        self._slices.setInterval(0)
        self._slices.timeout.connect(self._render_slice)
        self._placeholder = QImage(24, 24, QImage.Format.Format_ARGB32)
        self._placeholder.fill(QColor(128, 128, 128, 90))
        self._apply_document_style()

    def _original(self, url: QUrl, scheme: str, table: list[str]) -> str | None:
        if url.scheme() != scheme:
            return None
        try:
            return table[int(url.path())]
        except (ValueError, IndexError):
            return None

    def loadResource(self, kind: int, url: QUrl | str) -> Any:
        """Nothing is ever loaded: images get an inert placeholder, anything else nothing
        (a value, never None: on None Qt would try to read a local file itself)."""
        qurl = url if isinstance(url, QUrl) else QUrl(str(url))
        original = self._original(qurl, RESOURCE_SCHEME, self._rendered.images)
        self.blocked_resources.append(original if original is not None else qurl.toString())
        if kind == QTextDocument.ResourceType.ImageResource.value:
            return self._placeholder
        return QByteArray()

    # rendering ----------------------------------------------------------------------
    def set_markdown_source(self, text: str, *, immediately: bool = False) -> None:
        """Render `text` after a short pause in typing (or now)."""
        self._pending = text
        if immediately:
            self._timer.stop()
            self._render_now()
        else:
            self._timer.start()

    @property
    def rendering(self) -> bool:
        return self._pieces is not None

    def _render_now(self) -> None:
        self._keep_scroll = self.verticalScrollBar().value()
        self._rendered = RenderedMarkdown()
        pieces = render_pieces(self._pending, self._rendered, self._converter)
        if len(self._pending) <= SYNC_RENDER_CHARS:
            self._slices.stop()
            self._pieces = None
            self.setHtml("\n".join(pieces))
            self._finish()
            return
        self._pieces = pieces
        self.clear()
        self._slices.start()

    def _render_slice(self) -> None:
        if self._pieces is None:
            self._slices.stop()
            return
        start = time.perf_counter()
        batch: list[str] = []
        done = False
        while time.perf_counter() - start < SLICE_BUDGET_S:
            piece = next(self._pieces, None)
            if piece is None:
                done = True
                break
            batch.append(piece)
        if batch:
            cursor = QTextCursor(self.document())
            cursor.movePosition(QTextCursor.MoveOperation.End)
            cursor.insertHtml("\n".join(batch))
        if done:
            self._slices.stop()
            self._pieces = None
            self._finish()

    def _finish(self) -> None:
        bar = self.verticalScrollBar()
        bar.setValue(min(self._keep_scroll, bar.maximum()))
        self.render_finished.emit()

    def _apply_document_style(self) -> None:
        palette = self.palette()
        template = (resources_dir() / "styles" / "markdown_preview.css").read_text("utf-8")
        css = template.replace("@code_background@", code_background(palette).name())
        css = css.replace("@muted@", muted_text(palette).name())
        css = css.replace("@link@", palette.color(QPalette.ColorRole.Link).name())
        doc: QTextDocument = self.document()
        doc.setDefaultStyleSheet(css + "\n" + code_style_css(is_dark(palette)))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._apply_document_style()
            self._render_now()

    # links --------------------------------------------------------------------------
    # Slots return None on purpose: PySide6 6.12 mis-counts references of a value a
    # Python slot returns (a lambda returning `emit(...)`'s True crashes the interpreter).
    def _link_target(self, url: QUrl) -> QUrl:
        original = self._original(url, LINK_SCHEME, self._rendered.links)
        return QUrl(original) if original is not None else url

    def _on_highlighted(self, url: QUrl) -> None:
        self.link_hovered.emit(self._link_target(url).toString() if not url.isEmpty() else "")

    def _on_anchor(self, url: QUrl) -> None:
        open_link(self, self._link_target(url))


def open_link(parent: QWidget, url: QUrl) -> bool:
    """Ask before handing a clicked link to the desktop; only web and mail links qualify."""
    if url.scheme().lower() not in OPENABLE_SCHEMES:
        OpenLinkDialog.refuse(parent, url.toString())
        return False
    if not OpenLinkDialog.ask(parent, url.toString()):
        return False
    return bool(QDesktopServices.openUrl(url))
