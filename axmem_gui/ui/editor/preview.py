"""The rendered markdown preview: loads nothing, opens links only on click and after a
confirmation that names the target."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QPalette, QTextDocument
from PySide6.QtWidgets import QTextBrowser, QWidget

from axmem_gui.ui.editor.colors import code_background, is_dark, muted_text
from axmem_gui.ui.editor.dialogs import OpenLinkDialog
from axmem_gui.ui.editor.markdown_render import code_style_css, render_markdown
from axmem_gui.ui.resources import resources_dir

PREVIEW_DEBOUNCE_MS = 250
#: Schemes a confirmed click may hand to the desktop; anything else is only shown.
OPENABLE_SCHEMES = ("http", "https", "mailto")


class SafeMarkdownBrowser(QTextBrowser):
    """A QTextBrowser that never fetches: images, style sheets and every other resource
    resolve to nothing, whatever their URL (remote, file or relative)."""

    link_hovered = Signal(str)

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
        self._apply_document_style()

    def loadResource(self, kind: int, url: QUrl | str) -> Any:
        del kind
        self.blocked_resources.append(url.toString() if isinstance(url, QUrl) else str(url))
        return None

    # rendering ----------------------------------------------------------------------
    def set_markdown_source(self, text: str, *, immediately: bool = False) -> None:
        """Render `text` after a short pause in typing (or now)."""
        self._pending = text
        if immediately:
            self._timer.stop()
            self._render_now()
        else:
            self._timer.start()

    def _render_now(self) -> None:
        bar = self.verticalScrollBar()
        keep = bar.value()
        self.setHtml(render_markdown(self._pending))
        bar.setValue(min(keep, bar.maximum()))

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
    def _on_highlighted(self, url: QUrl) -> None:
        self.link_hovered.emit(url.toString())

    def _on_anchor(self, url: QUrl) -> None:
        open_link(self, url)


def open_link(parent: QWidget, url: QUrl) -> bool:
    """Ask before handing a clicked link to the desktop; only web and mail links qualify."""
    if url.scheme().lower() not in OPENABLE_SCHEMES:
        OpenLinkDialog.refuse(parent, url.toString())
        return False
    if not OpenLinkDialog.ask(parent, url.toString()):
        return False
    return bool(QDesktopServices.openUrl(url))
