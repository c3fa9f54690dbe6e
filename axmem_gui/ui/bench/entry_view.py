"""A catalog entry as Ax indexes it, with the matched terms highlighted and the content
beyond the search cut shaded."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QEvent
from PySide6.QtGui import QColor, QPalette, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QTextEdit, QWidget

from axmem_gui.core.ax.jstext import utf16_len
from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.services.bench import term_spans
from axmem_gui.services.live_search import LiveSearch
from axmem_gui.ui.preview.section_view import ExactTextEdit

MATCH = QColor(250, 205, 60)
BEYOND_CUT = QColor(128, 128, 128)


def _mix(palette: QPalette, color: QColor, amount: float) -> QColor:
    base = palette.color(QPalette.ColorRole.Base)
    return QColor(
        round(base.red() + (color.red() - base.red()) * amount),
        round(base.green() + (color.green() - base.green()) * amount),
        round(base.blue() + (color.blue() - base.blue()) * amount),
    )


class EntryView(ExactTextEdit):
    """`id`, `name`, `description` lines and the content, exactly as stored."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("benchEntry")
        self.setLineWrapMode(ExactTextEdit.LineWrapMode.WidgetWidth)
        self.setPlaceholderText("Select a result to see the entry with its matched terms.")
        self.highlighted: list[str] = []  # the highlighted words, in order (for tests)
        self.entry_id: str | None = None
        self._painted: tuple[str, list[tuple[int, int]], int, int] | None = None

    def clear(self) -> None:
        self._painted = None
        self.entry_id = None
        self.highlighted = []
        self.setExtraSelections([])
        self.set_exact_text("")

    def show_entry(
        self, live: LiveSearch, domain: str, entry_id: str, terms: Iterable[str]
    ) -> None:
        entry = live.entry(domain, entry_id)
        self.entry_id = entry_id
        if entry is None:
            self._painted = None
            self.set_exact_text("")
            self.setExtraSelections([])
            self.highlighted = []
            return
        wanted = list(terms)
        tokenizer, punctuation = live.tokenizer, live.profile.punctuation
        pieces: list[tuple[str, str, bool]] = [("id: ", entry.id, True)]
        if isinstance(entry, Skill):
            pieces.append(("\nname: ", entry.name, False))
            if entry.description:
                pieces.append(("\ndescription: ", entry.description, False))
            cut = live.profile.skill_content_chars
        else:
            cut = live.profile.memory_content_chars
        assert isinstance(entry, Skill | Memory)
        pieces.append(("\n\n", entry.content, False))
        text = ""
        spans: list[tuple[int, int]] = []  # Python indices into `text`
        content_at = 0
        for label, value, identifier in pieces:
            text += label
            start = len(text)
            content_at = start
            spans.extend(
                (start + a, start + b)
                for a, b in term_spans(value, wanted, tokenizer, punctuation, identifier=identifier)
            )
            text += value
        self.set_exact_text(text)
        self.highlighted = [text[a:b] for a, b in spans]
        self._paint(text, spans, content_at, cut)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self._painted is not None:
            self._paint(*self._painted)  # the tints are mixed into the palette's base

    def _paint(self, text: str, spans: list[tuple[int, int]], content_at: int, cut: int) -> None:
        self._painted = (text, spans, content_at, cut)
        palette = self.palette()
        selections = []
        match_format = QTextCharFormat()
        match_format.setBackground(_mix(palette, MATCH, 0.55))
        for a, b in spans:
            sel = QTextEdit.ExtraSelection()
            cursor = QTextCursor(self.document())
            cursor.setPosition(utf16_len(text[:a]))
            cursor.setPosition(utf16_len(text[:b]), QTextCursor.MoveMode.KeepAnchor)
            sel.cursor = cursor
            sel.format = match_format
            selections.append(sel)
        content_units = utf16_len(text) - utf16_len(text[:content_at])
        if content_units > cut:
            shade = QTextCharFormat()
            shade.setForeground(_mix(palette, BEYOND_CUT, 0.9))
            shade.setToolTip(f"Beyond the {cut}-unit search cut: never searched")
            sel = QTextEdit.ExtraSelection()
            cursor = QTextCursor(self.document())
            cursor.setPosition(utf16_len(text[:content_at]) + cut)
            cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
            sel.cursor = cursor
            sel.format = shade
            selections.append(sel)
        self.setExtraSelections(selections)
