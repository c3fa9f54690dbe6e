"""How a search index codes each document's term frequencies: one `str` per document,
one character per term and per frequency (`DocCodes`), so that finding a term in a
document is one `str.find` and the cycle collector has no container per document to walk.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from itertools import repeat
from operator import add, itemgetter, sub
from typing import Any

from axmem_gui.core.ax.tokenize import is_never_a_term

#: Codes are single characters: at most this many distinct terms (or frequencies) get
#: one; the others are kept per document in a plain dict (see `DocCodes`).
_CODE_LIMIT = 0x110000


class NoCodeLeft(Exception):
    """No character is left for a new code."""


class Codes(dict[Hashable, str]):
    """Value -> a one-character code, given in order of first use; `of_code[ord(code)]`
    is the value back. Equal values share a code (1 and 1.0: the first one seen is kept;
    every use of a frequency is arithmetic or ==, where they are the same). Values for
    which `skip` holds get the empty code (and use up none)."""

    def __init__(self, skip: Callable[[Any], bool] | None = None) -> None:
        super().__init__()
        self.of_code: list[Any] = []
        self._skip = skip

    def __missing__(self, value: Hashable) -> str:
        if self._skip is not None and self._skip(value):
            self[value] = ""
            return ""
        count = len(self.of_code)
        if count >= _CODE_LIMIT:
            raise NoCodeLeft
        code = self[value] = chr(count)
        self.of_code.append(value)
        return code


class DocCodes:
    """Term frequencies of many documents, one `str` per document.

    A document with n terms, m of them with a frequency other than 1, is coded as
    `chr(m)`, the codes of those m terms, the codes of the other n - m terms, then the
    codes of the m frequencies (in the order of their terms). Finding a term is one
    `str.find` of its code; a `str` is neither a container the cycle collector tracks
    nor much bigger than its characters (a dict of the same terms takes four to eight
    times the memory). Words that can never be a search term (`is_never_a_term`) are
    left out. Once more distinct terms (or frequencies) have been seen than there are
    characters, a document's terms without a code, or whose frequency has none, go to a
    dict of its own in `wide` (a catalog with over a million distinct words); while any
    document has one, lookups check `wide` too."""

    def __init__(self) -> None:
        self.terms = Codes(is_never_a_term)
        self.freqs = Codes()
        self.wide: dict[int, dict[str, float]] = {}

    def encode_ones(self, handle: int, tf: Mapping[str, float]) -> str:
        """The code of `tf` whose frequencies are all 1 (`InvertedIndex._post` codes the
        others as it posts them)."""
        try:
            return "\0" + "".join(map(self.terms.__getitem__, tf))
        except NoCodeLeft:
            pass
        codes: list[str] = []
        for term, freq in tf.items():
            try:
                codes.append(self.terms[term])
            except NoCodeLeft:
                self.wide.setdefault(handle, {})[term] = freq
        return "\0" + "".join(codes)

    def decode(self, handle: int, code: str) -> dict[str, float]:
        more = ord(code[0])
        end = len(code) - more
        words = self.terms.of_code.__getitem__
        tf: dict[str, float] = dict(
            zip(
                map(words, map(ord, code[1 : 1 + more])),
                map(self.freqs.of_code.__getitem__, map(ord, code[end:])),
                strict=True,
            )
        )
        tf.update(zip(map(words, map(ord, code[1 + more : end])), repeat(1)))
        wide = self.wide.get(handle)
        if wide:
            tf.update(wide)
        return tf

    def freq(self, handle: int, code: str, term: str, term_code: str | None) -> float | None:
        """The frequency of `term` (whose code is `term_code`) in the document."""
        if term_code:
            more = ord(code[0])
            end = len(code) - more
            at = code.find(term_code, 1, end)
            if at > 0:
                return 1 if at > more else self.freqs.of_code[ord(code[at + end - 1])]
        # a term without a code, or one whose frequency in this document has none
        wide = self.wide.get(handle)
        return wide.get(term) if wide else None

    def room_for(self, terms: Iterable[str], freqs: Iterable[float]) -> bool:
        """Whether `terms` and `freqs` (those without a code yet among them) would all
        still get a one-character code."""
        new_terms = sum(1 for term in terms if term not in self.terms)
        new_freqs = sum(1 for freq in freqs if freq not in self.freqs)
        return (
            len(self.terms.of_code) + new_terms <= _CODE_LIMIT
            and len(self.freqs.of_code) + new_freqs <= _CODE_LIMIT
        )


def recoded(codes: list[str], term_codes: list[int], freq_codes: list[int]) -> list[str]:
    """Document codes (count, term codes, frequency codes: see `DocCodes`) with their
    term and frequency codes replaced by `term_codes[code]` and `freq_codes[code]`."""
    ends = list(map(sub, map(len, codes), map(ord, map(itemgetter(0), codes))))
    bodies = map(str.__getitem__, codes, map(slice, repeat(1), ends))
    tails = map(str.__getitem__, codes, map(slice, ends, repeat(None)))
    counts = map(itemgetter(0), codes)
    return list(
        map(
            add,
            map(add, counts, map(str.translate, bodies, repeat(term_codes))),
            map(str.translate, tails, repeat(freq_codes)),
        )
    )

