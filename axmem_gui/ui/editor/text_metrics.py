"""Counts shown under the content editor, in the units Ax uses (no Qt here).

Ax measures text as JavaScript does: UTF-16 code units. Qt's QString (and so every
QTextCursor position) is UTF-16 too, which is why the ranges computed here can be handed to
the editor as cursor positions unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

try:
    from axmem_gui.core.ax.jstext import utf16_len
except ImportError:  # pragma: no cover - the core text module is built alongside

    def utf16_len(text: str) -> int:
        return len(text.encode("utf-16-le", "surrogatepass")) // 2


#: Ax's search indexes only `content.slice(0, 600)` of a skill or memory (Ax 24.0.21; see
#: tests/golden/ax-24.0.21). The rest is shown when the entry is loaded, never searched.
SEARCH_CONTENT_CUT = 600

#: The rough, model-independent estimate the studio uses everywhere: 4 characters a token.
CHARS_PER_TOKEN = 4


def token_estimate(units: int) -> int:
    return (units + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def unsearched_range(text: str, cut: int = SEARCH_CONTENT_CUT) -> tuple[int, int] | None:
    """The UTF-16 range [start, end) of `text` that search never sees, or None.

    When the cut falls between the two halves of a surrogate pair, Ax keeps a lone high
    surrogate, so that character is not searchable either: the range starts at its first
    unit, which also keeps the range on a character boundary for the editor."""
    total = utf16_len(text)
    if total <= cut:
        return None
    start = cut
    if not text.isascii():
        units = text.encode("utf-16-le", "surrogatepass")
        high = int.from_bytes(units[2 * (cut - 1) : 2 * cut], "little")
        if 0xD800 <= high <= 0xDBFF:
            start = cut - 1
    return start, total


@dataclass(frozen=True)
class ContentCounts:
    units: int
    tokens: int
    unsearched: int  # UTF-16 units beyond the search cut

    def summary(self) -> str:
        text = f"{self.units:,} UTF-16 units · ~{self.tokens:,} tokens"
        if self.unsearched:
            text += f" · {self.unsearched:,} beyond the {SEARCH_CONTENT_CUT}-unit search cut"
        return text


def content_counts(text: str) -> ContentCounts:
    units = utf16_len(text)
    span = unsearched_range(text)
    return ContentCounts(units, token_estimate(units), 0 if span is None else span[1] - span[0])


def utf16_offsets(text: str) -> list[int] | None:
    """Python index -> UTF-16 index for each position of `text` (len(text) + 1 entries), or
    None when they are equal (no character outside the BMP)."""
    if text.isascii() or all(ord(c) < 0x10000 for c in text):
        return None
    out = [0]
    for c in text:
        out.append(out[-1] + (2 if ord(c) >= 0x10000 else 1))
    return out
