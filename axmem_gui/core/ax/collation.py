"""JavaScript `a.localeCompare(b)` ordering (ICU, en-US) for ids.

Ax sorts the skills index, Loaded Skills, memories and ranking ties with `localeCompare`.
Node's default ICU collation for en-US is the CLDR root collation at tertiary strength
with non-ignorable punctuation: case-insensitive first, lowercase before uppercase on
ties, punctuation and digits before letters, accents right after the base letter. pyuca's
DUCET sort key reproduces that order (verified against Node on the golden probes).
Strings with equal keys compare as 0 in JavaScript too, and V8's sort is stable, so callers
use a stable sort on this key.

The key is returned as a `str` whose code points are the UCA weights (all < 0x10000):
comparing two such strings is the same as comparing the weight tuples, and it is much
cheaper to build and compare. ASCII strings (the usual id) take a fast path built from
per-character weights; DUCET has no contraction made only of ASCII characters, so the key
of an ASCII string is the per-level concatenation of its characters' weights (spelled out
below, so ASCII ids never load pyuca's table). `collation_keys` makes many at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from itertools import repeat
from typing import TypeVar

import pyuca

T = TypeVar("T")


@lru_cache(maxsize=1)
def _collator() -> pyuca.Collator:
    return pyuca.Collator()


def _weights_str(key: Iterable[int]) -> str:
    return "".join(map(chr, key))


#: DUCET primary weight of each ASCII character (0: completely ignorable, i.e. the C0
#: controls other than TAB..CR, and DEL). Every other ASCII character has exactly one
#: collation element: this primary weight, secondary 0x20, tertiary 0x08 for A-Z and 0x02
#: otherwise. Spelled out so ASCII ids never need pyuca's table (loading it takes a tenth
#: of a second); a test checks every character against pyuca.
_ASCII_PRIMARY = (
    0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
    0x0000, 0x0201, 0x0202, 0x0203, 0x0204, 0x0205, 0x0000, 0x0000,
    0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
    0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
    0x0209, 0x0260, 0x030C, 0x0398, 0x1C12, 0x0399, 0x0396, 0x0305,
    0x0317, 0x0318, 0x038F, 0x0616, 0x0222, 0x020D, 0x0277, 0x0394,
    0x1C3D, 0x1C3E, 0x1C3F, 0x1C40, 0x1C41, 0x1C42, 0x1C43, 0x1C44,
    0x1C45, 0x1C46, 0x0239, 0x0234, 0x061A, 0x061B, 0x061C, 0x0266,
    0x038E, 0x1C47, 0x1C60, 0x1C7A, 0x1C8F, 0x1CAA, 0x1CE5, 0x1CF4,
    0x1D18, 0x1D32, 0x1D4C, 0x1D65, 0x1D77, 0x1DAA, 0x1DB9, 0x1DDD,
    0x1E0C, 0x1E21, 0x1E33, 0x1E71, 0x1E95, 0x1EB5, 0x1EE3, 0x1EF5,
    0x1EFF, 0x1F0B, 0x1F21, 0x0319, 0x0395, 0x031A, 0x0485, 0x020B,
    0x0482, 0x1C47, 0x1C60, 0x1C7A, 0x1C8F, 0x1CAA, 0x1CE5, 0x1CF4,
    0x1D18, 0x1D32, 0x1D4C, 0x1D65, 0x1D77, 0x1DAA, 0x1DB9, 0x1DDD,
    0x1E0C, 0x1E21, 0x1E33, 0x1E71, 0x1E95, 0x1EB5, 0x1EE3, 0x1EF5,
    0x1EFF, 0x1F0B, 0x1F21, 0x031B, 0x061E, 0x031C, 0x0620, 0x0000,
)  # fmt: skip
_SECONDARY = 0x20
_TERTIARY_UPPER = 0x08
_TERTIARY_OTHER = 0x02


def _ascii_weights(code: int) -> tuple[str, str, str]:
    """The (primary, secondary, tertiary) weights of one ASCII character, as strings."""
    primary = _ASCII_PRIMARY[code]
    if not primary:
        return "", "", ""
    tertiary = _TERTIARY_UPPER if 0x41 <= code <= 0x5A else _TERTIARY_OTHER
    return chr(primary), chr(_SECONDARY), chr(tertiary)


@lru_cache(maxsize=1)
def _ascii_tables() -> tuple[dict[int, str], dict[int, str], dict[int, str]]:
    primary: dict[int, str] = {}
    secondary: dict[int, str] = {}
    tertiary: dict[int, str] = {}
    for code in range(128):
        primary[code], secondary[code], tertiary[code] = _ascii_weights(code)
    return primary, secondary, tertiary


def _ascii_key(text: str) -> str:
    primary, secondary, tertiary = _ascii_tables()
    return (
        text.translate(primary)
        + "\0"
        + text.translate(secondary)
        + "\0"
        + text.translate(tertiary)
        + "\0"
    )


# Many ASCII keys at once: the ids are joined by NUL (ignorable, so never part of a batch
# id) and every level is made with `bytes.translate` over the whole batch. A primary
# weight takes two bytes (UTF-16-BE, all weights are below the surrogates); NUL maps to
# U+0001 on every level, which no weight uses, so splitting there gives each id's level.
_SEPARATOR = 0x01
#: Ignorable characters other than NUL: an id with one takes the one-at-a-time path.
_IGNORABLE = bytes(c for c in range(1, 128) if not _ASCII_PRIMARY[c])


def _batchable(text: str) -> bool:
    """ASCII without ignorable characters (NUL included)."""
    if not text.isascii() or "\0" in text:
        return False
    data = text.encode("ascii")
    return len(data.translate(None, _IGNORABLE)) == len(data)


@lru_cache(maxsize=1)
def _batch_tables() -> tuple[bytes, bytes, bytes, bytes]:
    high, low, secondary, tertiary = (bytearray(256) for _ in range(4))
    for code in range(128):
        weights = _ascii_weights(code)
        if code == 0:
            high[code], low[code] = 0, _SEPARATOR
            secondary[code] = tertiary[code] = _SEPARATOR
        elif weights[0]:
            high[code], low[code] = divmod(ord(weights[0]), 256)
            secondary[code], tertiary[code] = ord(weights[1]), ord(weights[2])
    return bytes(high), bytes(low), bytes(secondary), bytes(tertiary)


def _ascii_keys_batch(texts: list[str]) -> list[str]:
    """`_ascii_key` of each text; every text ASCII without ignorable characters."""
    if not texts:
        return []
    data = "\0".join(texts).encode("ascii")
    high, low, secondary, tertiary = _batch_tables()
    units = bytearray(2 * len(data))
    units[0::2] = data.translate(high)
    units[1::2] = data.translate(low)
    separator = chr(_SEPARATOR)
    return list(
        map(
            "\0".join,
            zip(
                units.decode("utf-16-be").split(separator),
                data.translate(secondary).decode("latin-1").split(separator),
                data.translate(tertiary).decode("latin-1").split(separator),
                repeat(""),
                strict=False,
            ),
        )
    )


def collation_keys(texts: Sequence[str]) -> list[str]:
    """`collation_key` of each text: many ids at once, several times faster (not cached)."""
    texts = list(texts)
    joined = "\0".join(texts)
    if joined.isascii() and joined.count("\0") == len(texts) - 1:
        data = joined.encode("ascii")
        if len(data.translate(None, _IGNORABLE)) == len(data):
            return _ascii_keys_batch(texts)
    batchable = [i for i, text in enumerate(texts) if _batchable(text)]
    keys = [""] * len(texts)
    for i, key in zip(batchable, _ascii_keys_batch([texts[i] for i in batchable]), strict=True):
        keys[i] = key
    chosen = set(batchable)
    for i, text in enumerate(texts):
        if i not in chosen:
            keys[i] = collation_key(text)
    return keys


def pyuca_key(text: str) -> str:
    """The key straight from pyuca (no fast path); used to check the fast path."""
    return _weights_str(_collator().sort_key(text))


@lru_cache(maxsize=262_144)
def collation_key(text: str) -> str:
    """Sort key equivalent to JavaScript `localeCompare` (en-US) for `text`."""
    if text.isascii():
        return _ascii_key(text)
    return pyuca_key(text)


def locale_sorted(items: Iterable[T], key: Callable[[T], str]) -> list[T]:
    """Stable sort by `localeCompare` of `key(item)`, as `arr.sort((a, b) => ...)` in V8."""
    return sorted(items, key=lambda item: collation_key(key(item)))


def locale_compare(left: str, right: str) -> int:
    """-1, 0 or 1 like `left.localeCompare(right)`."""
    a, b = collation_key(left), collation_key(right)
    return (a > b) - (a < b)
