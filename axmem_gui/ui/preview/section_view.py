"""One prompt section: exact text (monospace, whitespace toggle, copy) or rendered
markdown, with its size in characters and estimated tokens."""

from __future__ import annotations

import re

from PySide6.QtGui import QGuiApplication, QKeyEvent, QKeySequence, QTextCursor, QTextOption
from PySide6.QtWidgets import QPlainTextEdit, QStackedWidget, QVBoxLayout, QWidget

from axmem_gui.core.jsout import as_text
from axmem_gui.services.scenarios import PreviewSection
from axmem_gui.ui.editor.preview import SafeMarkdownBrowser
from axmem_gui.ui.elided import ElidedLabel
from axmem_gui.ui.inert_text import plain_label
from axmem_gui.ui.pages import monospace_font

#: The rendered view converts at most this much text (markdown of 10,000 index lines takes
#: seconds to lay out); the raw view always shows everything.
RENDER_LIMIT = 40_000


class ExactTextEdit(QPlainTextEdit):
    """Read-only monospace text; Ctrl+C without a selection copies the whole text."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setProperty("exactText", True)
        self.setFont(monospace_font())
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setUndoRedoEnabled(False)
        self._text = ""

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.matches(QKeySequence.StandardKey.Copy) and not self.textCursor().hasSelection():
            QGuiApplication.clipboard().setText(self._text)
            event.accept()
            return
        super().keyPressEvent(event)

    def set_wrap(self, wrap: bool) -> None:
        """Wrap long lines at the view's width (the text itself is unchanged)."""
        mode = QPlainTextEdit.LineWrapMode
        self.setLineWrapMode(mode.WidgetWidth if wrap else mode.NoWrap)

    def set_show_whitespace(self, show: bool) -> None:
        option = self.document().defaultTextOption()
        marks = QTextOption.Flag.ShowTabsAndSpaces | QTextOption.Flag.ShowLineAndParagraphSeparators
        flags = option.flags()
        option.setFlags(flags | marks if show else flags & ~marks)
        self.document().setDefaultTextOption(option)

    def exact_text(self) -> str:
        """The text as last given (what the model sees), without asking the document."""
        return self._text

    def set_exact_text(self, text: str) -> bool:
        """Replace the text (keeping the scroll position); False when it was the same.

        Half an emoji (a lone surrogate Ax cut) shows as U+FFFD: Qt would drop it.
        Only the part that differs is replaced: an edit of one skill changes one line of
        a 10,000-line index, and re-laying out 1.5 MB of text per edit took a second."""
        text = as_text(text)
        old = getattr(self, "_text", None)
        if old is None:
            old = self.toPlainText()
        if text == old:
            self._text = text
            return False
        bar = self.verticalScrollBar()
        keep = bar.value()
        start, old_end, new_end = changed_span(old, text)
        if old and (old_end - start) + (new_end - start) < len(text) // 2:
            cursor = QTextCursor(self.document())
            cursor.setPosition(utf16_len(old, start))
            cursor.setPosition(utf16_len(old, old_end), QTextCursor.MoveMode.KeepAnchor)
            cursor.insertText(text[start:new_end])
        else:
            self.setPlainText(text)
        self._text = text
        bar.setValue(min(keep, bar.maximum()))
        return True


def utf16_len(text: str, end: int) -> int:
    """Qt's position of Python index `end` in `text` (characters beyond the BMP take two)."""
    head = text[:end]
    return len(head) if head.isascii() else len(head.encode("utf-16-le")) // 2


def changed_span(old: str, new: str) -> tuple[int, int, int]:
    """(start, old_end, new_end): `old[start:old_end]` became `new[start:new_end]`; the
    common prefix and suffix are found by halving (C-speed slice compares)."""
    limit = min(len(old), len(new))
    low, high = 0, limit  # the common prefix length is in [low, high]
    while low < high:
        mid = (low + high + 1) // 2
        if old[low:mid] == new[low:mid]:
            low = mid
        else:
            high = mid - 1
    start = low
    limit -= start
    low, high = 0, limit  # the common suffix length (not overlapping the prefix)
    while low < high:
        mid = (low + high + 1) // 2
        if old[len(old) - mid : len(old) - low] == new[len(new) - mid : len(new) - low]:
            low = mid
        else:
            high = mid - 1
    return start, len(old) - low, len(new) - low


_LIST_ITEM = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,9}[.)])\s")


def lists_may_interrupt(text: str) -> str:
    """Insert a blank line before a list that directly follows a paragraph line.

    Ax's prompts (`Skills:\n- ...`) rely on CommonMark, where a list may interrupt a
    paragraph; Python-Markdown needs the blank line. Only the rendered view uses this."""
    out: list[str] = []
    previous = ""
    fenced = False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif (
            not fenced
            and _LIST_ITEM.match(line)
            and previous.strip()
            and not _LIST_ITEM.match(previous)
        ):
            out.append("")
        out.append(line)
        previous = line
    return "\n".join(out)


def rendered_source(text: str, limit: int = RENDER_LIMIT) -> tuple[str, bool]:
    """The part of `text` the rendered view converts (whole lines) and whether it is cut."""
    if len(text) <= limit:
        return lists_may_interrupt(text), False
    cut = text.rfind("\n", 0, limit)
    return lists_may_interrupt(text[: cut if cut > 0 else limit]), True


class SectionView(QWidget):
    """A section's stats line over its raw (exact) or rendered view."""

    def __init__(self, key: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.key = key
        self.section: PreviewSection | None = None
        # elided, with the whole text as its tooltip: a long reason (search unavailable:
        # why) set the dock's minimum width, and the window's
        self.stats = ElidedLabel()
        self.stats.setObjectName("sectionStats")
        self.note = plain_label()
        self.note.setObjectName("sectionNote")
        self.note.setWordWrap(True)
        self.raw = ExactTextEdit()
        self.raw.setObjectName(f"raw_{key}")
        self.rendered = SafeMarkdownBrowser()
        self.stack = QStackedWidget()
        self.stack.addWidget(self.raw)
        self.stack.addWidget(self.rendered)
        self._rendered_for: str | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.stats)
        layout.addWidget(self.note)
        layout.addWidget(self.stack, 1)

    @property
    def showing_rendered(self) -> bool:
        return self.stack.currentWidget() is self.rendered

    def text(self) -> str:
        """The exact text shown (empty when the model does not see this section)."""
        return self.raw.exact_text()

    def set_section(self, section: PreviewSection) -> None:
        self.section = section
        text = section.text or ""
        self.raw.set_exact_text(text)
        if section.text is None:
            self.stats.setText("not shown to the model")
            self.note.setText(section.note)
            self.note.setVisible(True)
        else:
            lines = text.count("\n") + 1
            self.stats.setText(
                f"{section.chars:,} chars · ~{section.tokens:,} tokens · {lines:,} lines"
            )
            self.note.setVisible(False)
        if self.showing_rendered:
            self._render()

    def set_rendered(self, rendered: bool) -> None:
        self.stack.setCurrentWidget(self.rendered if rendered else self.raw)
        if rendered:
            self._render()

    def set_show_whitespace(self, show: bool) -> None:
        self.raw.set_show_whitespace(show)

    def _render(self) -> None:
        text = self.text()
        if text == self._rendered_for:
            return
        self._rendered_for = text
        source, cut = rendered_source(text)
        if cut:
            shown = source.count("\n") + 1
            total = text.count("\n") + 1
            source += (
                f"\n\n*Rendered view: the first {shown:,} of {total:,} lines; "
                "the raw view shows all of them.*"
            )
        self.rendered.set_markdown_source(source, immediately=True)
