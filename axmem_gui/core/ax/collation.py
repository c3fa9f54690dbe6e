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
of an ASCII string is the per-level concatenation of its characters' weights.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import TypeVar

import pyuca

T = TypeVar("T")


@lru_cache(maxsize=1)
def _collator() -> pyuca.Collator:
    return pyuca.Collator()


def _weights_str(key: Iterable[int]) -> str:
    return "".join(map(chr, key))


@lru_cache(maxsize=1)
def _ascii_tables() -> tuple[dict[int, str], dict[int, str], dict[int, str]]:
    primary: dict[int, str] = {}
    secondary: dict[int, str] = {}
    tertiary: dict[int, str] = {}
    for code in range(128):
        key = _collator().sort_key(chr(code))
        levels = _weights_str(key).split("\0")
        primary[code], secondary[code], tertiary[code] = levels[0], levels[1], levels[2]
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
