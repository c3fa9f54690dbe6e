"""Ax's two tokenizers (`relevanceRanker.ts`), exact to the UTF-16 code unit.

Prose (queries; skill name/description/content; memory content): NFKD, delete combining
marks U+0300-U+036F, lower-case (NFKD and lower-casing by ICU, as V8 does them), replace
the profile's ASCII punctuation with spaces, split on JavaScript `\\s+`, keep tokens of
>= 2 UTF-16 units that are not all ASCII digits and not stopwords. Identifier (the `id`
field only): split on non-[A-Za-z0-9], break acronym and camelCase boundaries,
lower-case, keep >= 2 chars, not all digits; stopwords are NOT removed there.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from itertools import filterfalse, islice, repeat
from typing import Any, TypeVar

from axmem_gui.core.ax.icutext import js_canonical, js_lower, js_nfkd
from axmem_gui.core.ax.jstext import js_split_nonempty
from axmem_gui.core.ax.profile import AxProfile

T = TypeVar("T")

_NON_ALNUM = re.compile(r"[^A-Za-z0-9]+")
_ACRONYM = re.compile(r"([A-Z]+)([A-Z][a-z])")
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_HAS_UPPER = re.compile(r"[A-Z]")
_HAS_INFO_SEPARATOR = re.compile(rb"[\x1c-\x1f]")
_HAS_DIGIT = re.compile(rb"[0-9]")
_HAS_INFO_SEPARATOR_STR = re.compile(r"[\x1c-\x1f]")
#: Identifier batches: letters and digits stay, NUL (the batch separator) stays, every
#: other byte becomes a space.
_ALNUM_OR_NUL = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789\0")
_IDENTIFIER_BYTES = bytes(c if c in _ALNUM_OR_NUL else 0x20 for c in range(256))


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


#: Texts counted in one C call by `count_words_many`.
_COUNT_RUN = 128


def count_words_many(counts: Iterable[dict[str, Any]], words: Iterable[Iterable[str]]) -> None:
    """`count_words(c, w)` for each pair, without a Python-level call per pair.

    At most `_COUNT_RUN` texts per C call: CPython switches threads only between
    bytecodes, and one call over an index build's batch of 2,048 texts kept every other
    thread (the GUI's) waiting for up to 50 ms."""
    counter = _count_c if _count_c is not None else _count_words_py
    counts = counts if isinstance(counts, list) else list(counts)
    words = iter(words)
    for start in range(0, len(counts), _COUNT_RUN):
        # `map` takes a word list only after a dict: none is taken past the run's end.
        # The counter returns None: any() runs them all.
        any(map(counter, counts[start : start + _COUNT_RUN], words))


def _lists_in_runs(words: Iterable[Iterable[str]], count: int) -> list[list[str]]:
    """`list(map(list, words))`, `_COUNT_RUN` texts per C call (see `count_words_many`)."""
    out: list[list[str]] = []
    words = iter(words)
    for _ in range(0, count, _COUNT_RUN):
        out += map(list, islice(words, _COUNT_RUN))
    return out


def is_never_a_term(word: str) -> bool:
    """One ASCII character, or only ASCII digits: neither tokenizer keeps such a word."""
    return word.isascii() and (len(word) == 1 or word.isdigit())


def _prose_batch(texts: list[str]) -> tuple[list[int] | None, bytes]:
    """Which texts the ASCII batch takes (None: every one), and their U+001C-joined bytes.

    Only ASCII texts without U+001C-U+001F qualify (Python's split() splits on those,
    JavaScript's \\s does not). Checks run over the joined text first: `in` on bytes is a
    memchr, many times faster than a regular expression."""
    joined = "\x1c".join(texts)
    if texts and joined.isascii():
        data = joined.encode("ascii")
        if data.count(b"\x1c") == len(texts) - 1 and not any(
            c in data for c in (b"\x1d", b"\x1e", b"\x1f")
        ):
            return None, data
    batch = [
        i for i, t in enumerate(texts) if t.isascii() and not _HAS_INFO_SEPARATOR_STR.search(t)
    ]
    return batch, "\x1c".join([texts[i] for i in batch]).encode("ascii")


def _merged(
    size: int, batch: list[int], batched: Iterable[T], one: Callable[[int], T]
) -> Iterator[T]:
    """Results at positions `batch` (increasing) from `batched`, the others from
    `one(position)`, lazily."""
    taken = iter(batched)
    positions = iter(batch)
    at = next(positions, size)
    for i in range(size):
        if i == at:
            yield next(taken)
            at = next(positions, size)
        else:
            yield one(i)


class Drop(Enum):
    """Why a raw prose token is not a search term."""

    SHORT = "short"  # fewer than 2 UTF-16 code units
    NUMBER = "number"  # only ASCII digits
    STOPWORD = "stopword"


@dataclass(frozen=True)
class RawToken:
    text: str
    dropped: Drop | None


#: Distinct words whose classification `raw_prose` keeps (then it starts over).
_RAW_TOKENS_KEPT = 200_000


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
        self._raw_tokens: dict[str, RawToken] = {}

    def _normalized(self, text: str) -> str:
        if not text.isascii():
            # Deleting a mark can join a high and a low surrogate into one character, as
            # it does in JavaScript's string of code units (js_canonical).
            text = js_lower(js_canonical(js_nfkd(text).translate(self._strip_marks)))
        else:
            text = text.lower()
        return text.translate(self._punct_table)

    def raw_prose(self, text: str) -> list[RawToken]:
        """Every whitespace-separated piece after normalization, with why it is dropped."""
        known = self._raw_tokens
        if len(known) > _RAW_TOKENS_KEPT:
            known.clear()
        return [
            known.get(token) or self._raw_token(token)
            for token in js_split_nonempty(self._normalized(text))
        ]

    def _raw_token(self, token: str) -> RawToken:
        # Classified once per distinct word (lint tokenizes every entry; words repeat).
        if not _long_enough(token):
            raw = RawToken(token, Drop.SHORT)
        elif _is_ascii_number(token):
            raw = RawToken(token, Drop.NUMBER)
        elif token in self.stopwords:
            raw = RawToken(token, Drop.STOPWORD)
        else:
            raw = RawToken(token, None)
        self._raw_tokens[token] = raw
        return raw

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

    def prose_counts_many(self, texts: Sequence[str]) -> list[dict[str, float]]:
        """`prose_counts` of each text, except that words made only of ASCII digits may be
        left in (see `is_never_a_term`): an index drops those once for its whole vocabulary,
        which is cheaper than once per text.

        ASCII texts are normalized all at once, joined by U+001C (Python's split() splits
        there; JavaScript's \\s would not, so texts holding U+001C-U+001F take the general
        path); stopwords and one-character words are filtered out of each text's words
        before counting, inside C iterators."""
        texts = list(texts)
        batch, data = _prose_batch(texts)
        if batch is not None and not batch:
            return [self.prose_counts(t) for t in texts]
        counts: list[dict[str, float]] = [{} for _ in (texts if batch is None else batch)]
        count_words_many(counts, self._ascii_words_many(data))
        if batch is None:
            return counts
        return list(_merged(len(texts), batch, counts, lambda i: self.prose_counts(texts[i])))

    def prose_many(self, texts: Sequence[str]) -> list[list[str]]:
        """`prose` of each text, except that words made only of ASCII digits may be left
        in (see `prose_counts_many`)."""
        return _lists_in_runs(self.iter_prose_many(texts), len(texts))

    def iter_prose_many(self, texts: Sequence[str]) -> Iterator[Iterable[str]]:
        """`prose_many`, lazily: each text's words are made when they are taken, so
        a big batch never holds thousands of word lists at once (they would outlive
        the cycle collector's young generation and make it scan everything)."""
        texts = list(texts)
        batch, data = _prose_batch(texts)
        if batch is not None and not batch:
            return map(self.prose, texts)
        words = self._ascii_words_many(data)
        if batch is None:
            return words
        return _merged(len(texts), batch, words, lambda i: self.prose(texts[i]))

    def _ascii_words_many(self, data: bytes) -> Iterator[Iterator[str]]:
        """The words of each U+001C-separated ASCII text, stopwords and one-character
        words filtered out lazily (numbers left in). Words are interned: an index keeps
        millions of them, mostly repeats of a few thousand (half its memory otherwise)."""
        pieces = data.translate(self._punct_bytes).lower().decode("ascii").split("\x1c")
        kept = map(filterfalse, repeat(self._drop_ascii.__contains__), map(str.split, pieces))
        return map(map, repeat(sys.intern), kept)

    def identifier_many(self, texts: Sequence[str]) -> list[list[str]]:
        """`identifier` of each text, except that one-character words and words made only
        of digits may be left in (see `is_never_a_term`). ASCII texts without upper case
        are split all at once (joined by NUL)."""
        return _lists_in_runs(self.iter_identifier_many(texts), len(texts))

    def iter_identifier_many(self, texts: Sequence[str]) -> Iterator[Iterable[str]]:
        """`identifier_many`, lazily (see `iter_prose_many`)."""
        texts = list(texts)
        if not texts:
            return iter(())
        joined = "\0".join(texts)
        if joined.isascii() and joined.count("\0") == len(texts) - 1:
            return self._ascii_identifiers_many(texts, joined)
        batch = [i for i, t in enumerate(texts) if t.isascii() and "\0" not in t]
        chosen = [texts[i] for i in batch]
        return _merged(
            len(texts),
            batch,
            self._ascii_identifiers_many(chosen, "\0".join(chosen)),
            lambda i: self.identifier(texts[i]),
        )

    def _ascii_identifiers_many(self, texts: list[str], joined: str) -> Iterator[Iterable[str]]:
        if not texts:
            return iter(())
        spaced = joined.encode("ascii").translate(_IDENTIFIER_BYTES).decode("ascii")
        pieces = spaced.split("\0")
        # numbers are dropped here: ids often end in one, each a word of its own
        kept = map(filterfalse, repeat(str.isdigit), map(str.split, pieces))
        words = map(map, repeat(sys.intern), kept)
        if spaced.lower() == spaced:
            return words
        # case boundaries split words: those ids one by one
        return (
            self.identifier(text) if _HAS_UPPER.search(piece) else split
            for text, piece, split in zip(texts, pieces, words, strict=True)
        )

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
                word = word.lower()  # [A-Za-z0-9] only: ASCII lower-casing is JS's
                if len(word) > 1 and not word.isdigit():
                    out.append(word)
        return out

