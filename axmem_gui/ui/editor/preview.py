"""The rendered markdown preview: loads nothing, opens links only on click and after a
confirmation that names the target, and never holds the GUI thread for long.

The renderer hands over HTML whose every image and link points to a private scheme
(`markdown_render`), so Qt finds nothing to fetch or read; images become a placeholder.
The text is converted piece by piece and appended on timer turns. A turn converts pieces
for at most CONVERT_BUDGET_S and hands Qt no more pieces than it can lay out in about
INSERT_BUDGET_S: each piece is measured in `layout_units`, and the time per unit is learnt
from the turns before (a table cell costs Qt ten times a paragraph; a turn was once 170 ms
of table rows). Each batch starts a new block, so a piece never merges into the last
block (a block that grew with every turn made appending quadratic). The document stops
growing at MAX_PREVIEW_BLOCKS, so clearing it for the next render is bounded too. Typing
stays responsive whatever the markdown."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from PySide6.QtCore import QByteArray, QEvent, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QDesktopServices,
    QImage,
    QPalette,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import QTextBrowser, QWidget

from axmem_gui.ui.editor.colors import code_background, is_dark, muted_text
from axmem_gui.ui.editor.dialogs import OpenLinkDialog
from axmem_gui.ui.editor.markdown_render import (
    LINK_SCHEME,
    RESOURCE_SCHEME,
    MarkdownConverter,
    RenderedMarkdown,
    code_style_css,
    layout_units,
    render_pieces,
    warm_highlighting,
)
from axmem_gui.ui.resources import resources_dir

PREVIEW_DEBOUNCE_MS = 250
#: Markdown conversion per event-loop turn (plus at most one piece, itself bounded).
CONVERT_BUDGET_S = 0.008
#: Qt layout per event-loop turn, predicted from the pieces' layout units.
INSERT_BUDGET_S = 0.010
#: Seconds per layout unit assumed before any turn was measured (a slow machine's table).
START_SECONDS_PER_UNIT = 60e-6
#: Most layout units in one turn, whatever the measured speed.
MAX_SLICE_UNITS = 3_000
#: The preview stops adding text beyond this many blocks (with a note).
MAX_PREVIEW_BLOCKS = 20_000
#: A document with more blocks than this is cleared in a turn of its own.
CLEAR_ALONE_BLOCKS = 2_000
#: Merged into the last block by each appended batch (then removed); see `_insert`.
_SEPARATOR = "<p>&#8203;</p>"
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
        # A scroll bar that appears part way through a render narrows the page, and Qt
        # then lays out again, at the next append, all that was shown (67 ms at once for
        # twelve tables): the bar is always there.
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
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
        #: A converted piece that did not fit the last turn's layout budget.
        self._held: str | None = None
        self._seconds_per_unit = START_SECONDS_PER_UNIT
        #: Layout units inserted by each turn of the last render (for tests and benches).
        self.slice_units: list[int] = []
        self._keep_scroll = 0
        self._slices = QTimer(self)
        self._slices.setInterval(0)
        self._slices.timeout.connect(self._render_slice)
        self._placeholder = QImage(24, 24, QImage.Format.Format_ARGB32)
        self._placeholder.fill(QColor(128, 128, 128, 90))
        #: The document's style sheet (Pygments colours) is set before the first render:
        #: a preview never shown costs no Pygments import before the first paint.
        self._styled = False

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
        warm_highlighting()  # once per process, off the GUI thread
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
        if not self._styled:
            self._apply_document_style()
        self._keep_scroll = self.verticalScrollBar().value()
        self._rendered = RenderedMarkdown()
        self._pieces = render_pieces(self._pending, self._rendered, self._converter)
        self._held = None
        self.slice_units = []
        self.document().setUndoRedoEnabled(False)  # read-only: no undo history to keep
        big = self.document().blockCount() > CLEAR_ALONE_BLOCKS
        self.clear()
        # The first turn now (short text is shown at once, without a blank frame), the
        # rest on timer turns; clearing a big document is a turn's work by itself.
        if not big:
            self._render_slice()
        if self._pieces is not None:
            self._slices.start()

    def _next_piece(self) -> str | None:
        if self._held is not None:
            piece, self._held = self._held, None
            return piece
        assert self._pieces is not None
        return next(self._pieces, None)

    def _render_slice(self) -> None:
        if self._pieces is None:
            self._slices.stop()
            return
        start = time.perf_counter()
        max_units = min(MAX_SLICE_UNITS, int(INSERT_BUDGET_S / self._seconds_per_unit))
        batch: list[str] = []
        units = 0
        done = False
        while True:
            self._converter.imported = False
            piece = self._next_piece()
            if piece is None:
                done = True
                break
            cost = layout_units(piece)
            if batch and units + cost > max_units:
                self._held = piece
                break
            batch.append(piece)
            units += cost
            if time.perf_counter() - start >= CONVERT_BUDGET_S or self._converter.imported:
                break
        if batch:
            self._insert(batch, units)
        if self.document().blockCount() > MAX_PREVIEW_BLOCKS and not done:
            self._insert([too_long_note(MAX_PREVIEW_BLOCKS)], 1)
            done = True
        if done:
            self._slices.stop()
            self._pieces = None
            self._held = None
            self._finish()

    def _insert(self, batch: list[str], units: int) -> None:
        start = time.perf_counter()
        doc = self.document()
        cursor = QTextCursor(doc)
        cursor.movePosition(QTextCursor.MoveOperation.End)
        html = "\n".join(batch)
        if doc.isEmpty():
            cursor.insertHtml(html)
        else:
            # Inserted HTML merges its first block into the last block of the document
            # (a heading would lose its format, and a block that grew with every turn
            # made appending quadratic): a zero-width space takes that place, then goes.
            end = cursor.position()
            cursor.insertHtml(_SEPARATOR + html)
            cursor.setPosition(end)
            cursor.setPosition(end + 1, QTextCursor.MoveMode.KeepAnchor)
            if cursor.selectedText() == "\u200b":
                cursor.removeSelectedText()
        self.slice_units.append(units)
        measured = (time.perf_counter() - start) / max(units, 1)
        # Slow to trust a fast turn, quick to believe a slow one.
        self._seconds_per_unit = max(measured, 0.8 * self._seconds_per_unit + 0.2 * measured)

    def _finish(self) -> None:
        bar = self.verticalScrollBar()
        bar.setValue(min(self._keep_scroll, bar.maximum()))
        self.render_finished.emit()

    def _apply_document_style(self) -> None:
        self._styled = True
        palette = self.palette()
        template = (resources_dir() / "styles" / "markdown_preview.css").read_text("utf-8")
        css = template.replace("@code_background@", code_background(palette).name())
        css = css.replace("@muted@", muted_text(palette).name())
        css = css.replace("@link@", palette.color(QPalette.ColorRole.Link).name())
        doc: QTextDocument = self.document()
        doc.setDefaultStyleSheet(css + "\n" + code_style_css(is_dark(palette)))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self._styled:
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


def too_long_note(blocks: int) -> str:
    return (
        f"<p><i>The preview shows the first {blocks:,} blocks; "
        "the editor holds the whole text.</i></p>"
    )


def open_link(parent: QWidget, url: QUrl) -> bool:
    """Ask before handing a clicked link to the desktop; only web and mail links qualify."""
    if url.scheme().lower() not in OPENABLE_SCHEMES:
        OpenLinkDialog.refuse(parent, url.toString())
        return False
    if not OpenLinkDialog.ask(parent, url.toString()):
        return False
    return bool(QDesktopServices.openUrl(url))
