"""Ax's two tokenizers (`relevanceRanker.ts`), exact to the UTF-16 code unit.

Prose (queries; skill name/description/content; memory content): NFKD, delete combining
marks U+0300-U+036F, lower-case, replace the profile's ASCII punctuation with spaces,
split on JavaScript `\\s+`, keep tokens of >= 2 UTF-16 units that are not all ASCII
digits and not stopwords. Identifier (the `id` field only): split on non-[A-Za-z0-9],
break acronym and camelCase boundaries, lower-case, keep >= 2 chars, not all digits;
stopwords are NOT removed there.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from axmem_gui.core.ax.jstext import js_split_nonempty
from axmem_gui.core.ax.profile import AxProfile

_NON_ALNUM = re.compile(r"[^A-Za-z0-9]+")
_ACRONYM = re.compile(r"([A-Z]+)([A-Z][a-z])")
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_HAS_UPPER = re.compile(r"[A-Z]")
_HAS_INFO_SEPARATOR = re.compile(rb"[\x1c-\x1f]")
_HAS_DIGIT = re.compile(rb"[0-9]")


def _count_words_py(counts: dict[str, Any], words: Iterable[str]) -> None:
    for word in words:
        counts[word] = counts.get(word, 0) + 1


try:  # the C helper behind collections.Counter; same result, several times faster
    from _collections import _count_elements as _count_c  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - other Python implementations
    _count_c = None


def count_words(counts: dict[str, Any], words: Iterable[str]) -> None:
    """Add 1 to `counts[word]` for each word (what collections.Counter.update does)."""
    if _count_c is not None:
        _count_c(counts, words)
    else:  # pragma: no cover
        _count_words_py(counts, words)


class Drop(Enum):
    """Why a raw prose token is not a search term."""

    SHORT = "short"  # fewer than 2 UTF-16 code units
    NUMBER = "number"  # only ASCII digits
    STOPWORD = "stopword"


@dataclass(frozen=True)
class RawToken:
    text: str
    dropped: Drop | None


def _is_ascii_number(token: str) -> bool:
    return token.isascii() and token.isdigit()


def _long_enough(token: str) -> bool:
    # >= 2 UTF-16 units: two or more code points, or one astral code point.
    return len(token) > 1 or (len(token) == 1 and ord(token) > 0xFFFF)


class Tokenizer:
    """Prose and identifier tokenizers bound to one Ax profile."""

    def __init__(self, profile: AxProfile) -> None:
        self.stopwords = profile.stopwords
        self._punct_table = str.maketrans({c: " " for c in profile.punctuation})
        ascii_punct = profile.punctuation.encode("ascii")
        self._punct_bytes = bytes.maketrans(ascii_punct, b" " * len(ascii_punct))
        self._drop_ascii = frozenset(
            {chr(c) for c in range(128)} | {w for w in self.stopwords if w.isascii()}
        )
        low, high = profile.diacritic_range
        self._strip_marks = str.maketrans({c: None for c in range(low, high + 1)})

    def _normalized(self, text: str) -> str:
        if not text.isascii():
            text = unicodedata.normalize("NFKD", text).translate(self._strip_marks)
        return text.lower().translate(self._punct_table)

    def raw_prose(self, text: str) -> list[RawToken]:
        """Every whitespace-separated piece after normalization, with why it is dropped."""
        out: list[RawToken] = []
        for token in js_split_nonempty(self._normalized(text)):
            if not _long_enough(token):
                out.append(RawToken(token, Drop.SHORT))
            elif _is_ascii_number(token):
                out.append(RawToken(token, Drop.NUMBER))
            elif token in self.stopwords:
                out.append(RawToken(token, Drop.STOPWORD))
            else:
                out.append(RawToken(token, None))
        return out

    def prose(self, text: str) -> list[str]:
        """Ax `tokenizeText`: the search terms of `text`, in order, with repeats."""
        stop = self.stopwords
        return [
            t
            for t in js_split_nonempty(self._normalized(text))
            if (len(t) > 1 or ord(t) > 0xFFFF)
            and t not in stop
            and not (t.isascii() and t.isdigit())
        ]

    def prose_counts(self, text: str) -> dict[str, float]:
        """How often each term of `prose(text)` occurs (what an index needs)."""
        data = text.encode("ascii", "ignore") if text.isascii() else None
        if data is None or _HAS_INFO_SEPARATOR.search(data):
            # Non-ASCII text, or U+001C-U+001F (Python's str.split() would split on them,
            # JavaScript's \s does not): the general tokenizer.
            counts: dict[str, float] = {}
            count_words(counts, self.prose(text))
            return counts
        # ASCII fast path: punctuation and case in one C call each, counting in C.
        words = data.translate(self._punct_bytes).lower().decode("ascii").split()
        counted: dict[str, float] = {}
        count_words(counted, words)
        # stopwords and one-character words (frozenset.intersection walks the small dict)
        for dropped in self._drop_ascii.intersection(counted):
            del counted[dropped]
        if _HAS_DIGIT.search(data):
            for number in [w for w in counted if w.isdigit()]:
                del counted[number]
        return counted

    @staticmethod
    def identifier(text: str) -> list[str]:
        """Ax `splitIdentifierWords`."""
        if not _HAS_UPPER.search(text):  # no case boundaries: split and filter only
            return [w for w in _NON_ALNUM.split(text) if len(w) > 1 and not w.isdigit()]
        out: list[str] = []
        for chunk in _NON_ALNUM.split(text):
            if not chunk:
                continue
            if _HAS_UPPER.search(chunk):
                chunk = _CAMEL.sub(r"\1 \2", _ACRONYM.sub(r"\1 \2", chunk))
                words = chunk.split(" ")
            else:
                words = [chunk]
            for word in words:
                word = word.lower()
                if len(word) > 1 and not word.isdigit():
                    out.append(word)
        return out

