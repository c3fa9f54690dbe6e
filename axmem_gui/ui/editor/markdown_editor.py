"""The content editor: markdown source with highlighting, counters, the unsearched tail
shaded, and a live preview beside it."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent, QTextCursor, QTextFormat
from PySide6.QtWidgets import (
    QHBoxLayout,
    QPlainTextEdit,
    QSizePolicy,
    QSplitter,
    QTextEdit,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.ui.editor.colors import unsearched_background
from axmem_gui.ui.editor.highlighter import MarkdownHighlighter
from axmem_gui.ui.editor.preview import SafeMarkdownBrowser
from axmem_gui.ui.editor.text_metrics import SEARCH_CONTENT_CUT, content_counts, unsearched_range
from axmem_gui.ui.inert_text import plain_label

UNSEARCHED_TIP = (
    f"Beyond the first {SEARCH_CONTENT_CUT} UTF-16 units: Ax's search (discover and recall) "
    "never indexes this part. It is still shown to the model when the entry is loaded, so put "
    "the words people search for near the top."
)


def exact_text(edit: QPlainTextEdit) -> str:
    """The document's text exactly: `toPlainText()` would turn non-breaking spaces into
    plain ones, which would silently change what Ax renders."""
    return edit.document().toRawText().replace("\u2029", "\n")


class ContentEdit(QPlainTextEdit):
    """Markdown source. Positions are UTF-16 units, like Ax's own counting."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("contentEdit")
        self.setProperty("exactText", True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        # The window's one undo stack owns undo; the widget's own history would fork it.
        self.setUndoRedoEnabled(False)
        self.setTabChangesFocus(False)
        self.highlighter = MarkdownHighlighter(self.document(), self.palette())
        self.unsearched: tuple[int, int] | None = None
        self.textChanged.connect(self.update_shading)

    def text(self) -> str:
        return exact_text(self)

    def set_text_keeping_cursor(self, text: str) -> None:
        """Replace the text; the cursor goes to the first changed place (where an undo
        or a reload made its change), not to the start."""
        old = self.text()
        if old == text:
            return
        common = 0
        for a, b in zip(old, text, strict=False):
            if a != b:
                break
            common += 1
        bar = self.verticalScrollBar().value()
        self.setPlainText(text)
        cursor = self.textCursor()
        cursor.setPosition(min(_utf16_index(text, common), self.document().characterCount() - 1))
        self.setTextCursor(cursor)
        self.verticalScrollBar().setValue(bar)

    def update_shading(self) -> None:
        span = unsearched_range(self.text())
        self.unsearched = span
        if span is None:
            self.setExtraSelections([])
            return
        selection = QTextEdit.ExtraSelection()
        cursor = QTextCursor(self.document())
        cursor.setPosition(span[0])
        cursor.setPosition(
            min(span[1], self.document().characterCount() - 1), QTextCursor.MoveMode.KeepAnchor
        )
        selection.cursor = cursor
        selection.format.setBackground(unsearched_background(self.palette()))
        selection.format.setProperty(QTextFormat.Property.FullWidthSelection, False)
        self.setExtraSelections([selection])

    def keyPressEvent(self, event: QKeyEvent) -> None:
        # Shift+Enter would insert U+2028 (a line separator) that Ax would see as-is.
        shift = event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if shift and enter and not self.isReadOnly():
            self.textCursor().insertText("\n")
            return
        super().keyPressEvent(event)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and self.unsearched is not None:
            pos = event.pos()  # type: ignore[attr-defined]
            at = self.cursorForPosition(pos).position()
            if at >= self.unsearched[0]:
                QToolTip.showText(event.globalPos(), UNSEARCHED_TIP, self)  # type: ignore[attr-defined]
            else:
                QToolTip.hideText()
            return True
        return super().event(event)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.highlighter.set_palette(self.palette())
            self.update_shading()


def _utf16_index(text: str, index: int) -> int:
    head = text[:index]
    return len(head) + sum(1 for c in head if ord(c) >= 0x10000)


class MarkdownEditor(QWidget):
    """Source over preview, with the counters line between them."""

    #: The user changed the text (not emitted for `set_text`).
    edited = Signal()
    focus_left = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.edit = ContentEdit()
        self.preview = SafeMarkdownBrowser()
        # Wrapped at its " · " (on a laptop it was cut after "426 beyon…"); a long count
        # line takes a second line rather than pushing the list aside.
        self.counts = plain_label()
        self.counts.setWordWrap(True)
        self.counts.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.counts.setObjectName("contentCounts")
        self.counts.setToolTip(UNSEARCHED_TIP)
        self.link_status = plain_label()
        self.link_status.setObjectName("linkStatus")
        self.link_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.preview.link_hovered.connect(self._show_link)
        self.preview_toggle = QToolButton()
        self.preview_toggle.setText("Preview")
        self.preview_toggle.setCheckable(True)
        self.preview_toggle.setChecked(True)
        self.preview_toggle.setToolTip("Show or hide the rendered preview")
        self.preview_toggle.toggled.connect(self._toggle_preview)

        self.beside_toggle = QToolButton()
        self.beside_toggle.setObjectName("previewBeside")
        self.beside_toggle.setText("Side by side")
        self.beside_toggle.setCheckable(True)
        self.beside_toggle.setToolTip("The rendered preview beside the source, or below it")
        self.beside_toggle.toggled.connect(self.set_beside)

        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.counts, 1)
        bar.addWidget(self.beside_toggle)
        bar.addWidget(self.preview_toggle)
        preview_box = QWidget()
        preview_layout = QVBoxLayout(preview_box)
        preview_layout.setContentsMargins(0, 0, 0, 0)
        preview_layout.setSpacing(2)
        preview_layout.addWidget(self.preview, 1)
        preview_layout.addWidget(self.link_status)
        self.preview_box = preview_box
        # Three lines each at least (Qt's 70-pixel default for both, with the lint box,
        # made the page scroll in the default layout of a 1366×768 laptop).
        three_lines = self.fontMetrics().lineSpacing() * 3 + 8
        self.edit.setMinimumHeight(three_lines)
        self.preview.setMinimumHeight(three_lines)
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.setChildrenCollapsible(False)
        self.split.addWidget(self.edit)
        self.split.addWidget(preview_box)
        # The source gets the room: most of the height, the preview the rest.
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 2)
        self.split.setSizes([360, 180])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.split, 1)
        layout.addLayout(bar)

        self._loading = False
        self._chosen_beside = False
        self.edit.textChanged.connect(self._on_text_changed)
        self.edit.installEventFilter(self)
        self._show_link("")
        self._refresh_counts()

    # API ----------------------------------------------------------------------------
    def text(self) -> str:
        return self.edit.text()

    def set_text(self, text: str) -> None:
        """Show `text` without counting it as a user edit."""
        self._loading = True
        try:
            self.edit.set_text_keeping_cursor(text)
        finally:
            self._loading = False
        self._refresh_counts()
        self.preview.set_markdown_source(text, immediately=True)

    def set_read_only(self, read_only: bool) -> None:
        self.edit.setReadOnly(read_only)

    #: The user switched between preview below and beside (True: beside).
    layout_changed = Signal(bool)

    def is_beside(self) -> bool:
        return self.split.orientation() == Qt.Orientation.Horizontal

    def set_beside(self, beside: bool) -> None:
        """The user's choice (remembered by whoever listens to `layout_changed`)."""
        self._chosen_beside = beside
        if self._orient(beside):
            self.layout_changed.emit(beside)
        self._show_toggle(beside)

    def set_writing(self, writing: bool) -> None:
        """Focus mode: the docks are gone and the editor has the window's width, so the
        rendered preview stands beside the source and the source keeps the height; out
        of it, the preview goes back where the user had it (not a choice to remember)."""
        beside = writing or self._chosen_beside
        self._orient(beside)
        self._show_toggle(beside)

    def _orient(self, beside: bool) -> bool:
        orientation = Qt.Orientation.Horizontal if beside else Qt.Orientation.Vertical
        if self.split.orientation() == orientation:
            return False
        self.split.setOrientation(orientation)
        total = sum(self.split.sizes()) or 2
        self.split.setSizes([total * 3 // 5, total - total * 3 // 5])
        return True

    def _show_toggle(self, beside: bool) -> None:
        if self.beside_toggle.isChecked() != beside:
            self.beside_toggle.blockSignals(True)
            self.beside_toggle.setChecked(beside)
            self.beside_toggle.blockSignals(False)

    # internals ----------------------------------------------------------------------
    def _on_text_changed(self) -> None:
        self._refresh_counts()
        if self._loading:
            return
        if self.preview_box.isVisibleTo(self):
            self.preview.set_markdown_source(self.edit.text())
        self.edited.emit()

    def _refresh_counts(self) -> None:
        counts = content_counts(self.edit.text())
        self.counts.setText(counts.summary())
        self.counts.setProperty("beyondCut", bool(counts.unsearched))
        self.counts.style().unpolish(self.counts)
        self.counts.style().polish(self.counts)

    def _show_link(self, target: str) -> None:
        hint = f"Link: {target}  — click to open (you will be asked)" if target else ""
        self.link_status.setText(hint)

    def _toggle_preview(self, shown: bool) -> None:
        self.preview_box.setVisible(shown)
        if shown:
            self.preview.set_markdown_source(self.edit.text(), immediately=True)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.edit and event.type() == QEvent.Type.FocusOut:
            self.focus_left.emit()
        return super().eventFilter(watched, event)
