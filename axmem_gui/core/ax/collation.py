"""JavaScript `a.localeCompare(b)` ordering (ICU, en-US) for ids.

Ax sorts the skills index, Loaded Skills, memories and ranking ties with `localeCompare`,
which in Node is ICU's collator for en-US (the CLDR root collation): tertiary strength,
non-ignorable punctuation; case-insensitive first, lowercase before uppercase on ties,
punctuation, symbols and digits before letters, accents right after the base letter, Han
in radical-stroke order. The key here is ICU's own sort key for that collator (see
`icutext`), so the order is ICU's by construction, for every string (lone surrogates
included). Strings with equal keys compare as 0 in JavaScript too, and V8's sort is
stable, so callers use a stable sort on this key.

ICU's `getSortKey` is faster than the pure-Python ASCII weight table this module used to
keep, so there is no fast path: one code path for every id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import TypeVar

from axmem_gui.core.ax.icutext import sort_key_function, sort_keys_of

T = TypeVar("T")

#: A collation sort key: compare keys with `<` (bytes order) to compare the strings.
CollationKey = bytes


#: Keys made per C call by `collation_keys`.
_KEYS_RUN = 4096


def collation_keys(texts: Sequence[str]) -> list[CollationKey]:
    """`collation_key` of each text: many ids at once (not cached), `_KEYS_RUN` per C call
    (CPython lets no other thread run during one: 100,000 keys at once kept the GUI
    thread waiting about 50 ms)."""
    keys: list[CollationKey] = []
    for start in range(0, len(texts), _KEYS_RUN):
        keys += sort_keys_of(texts[start : start + _KEYS_RUN])
    return keys


@lru_cache(maxsize=262_144)
def collation_key(text: str) -> CollationKey:
    """Sort key equivalent to JavaScript `localeCompare` (en-US) for `text`."""
    return sort_key_function()(text)


def locale_sorted(items: Iterable[T], key: Callable[[T], str]) -> list[T]:
    """Stable sort by `localeCompare` of `key(item)`, as `arr.sort((a, b) => ...)` in V8."""
    return sorted(items, key=lambda item: collation_key(key(item)))


def locale_compare(left: str, right: str) -> int:
    """-1, 0 or 1 like `left.localeCompare(right)`."""
    a, b = collation_key(left), collation_key(right)
    return (a > b) - (a < b)
