"""JavaScript string semantics that Ax relies on, reproduced for Python `str`.

JavaScript strings are UTF-16: `length`, `slice` and the `>= 2` token-length rule count
UTF-16 code units, so a character outside the BMP (an emoji) counts 2 and a slice can cut
it in half (leaving a lone surrogate, which Python strings can hold too). JavaScript's `\\s`
(used by `split(/\\s+/)`, `replace(/\\s+/g)` and `trim()`) is a fixed set that differs from
Python's `str.split()`/`str.strip()`/`re` `\\s`, so it is spelled out here.
"""

from __future__ import annotations

import re

#: Every character JavaScript's `\s` and `String.prototype.trim` treat as white space.
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000\ufeff"
)

_WS_CLASS = "[" + re.escape(JS_WHITESPACE) + "]"
WS_RUN = re.compile(_WS_CLASS + "+")
#: Python's `str.split()` also splits on these, JavaScript's `\s` does not.
_PY_ONLY_ASCII_WS = ("\x1c", "\x1d", "\x1e", "\x1f")


def js_trim(text: str) -> str:
    """`String.prototype.trim`."""
    return text.strip(JS_WHITESPACE)


def js_split_nonempty(text: str) -> list[str]:
    """The non-empty parts of `text.split(/\\s+/)` (empty ends are dropped)."""
    if text.isascii() and not any(c in text for c in _PY_ONLY_ASCII_WS):
        # Python's split() is JavaScript's \\s split on ASCII without the info separators.
        return text.split()
    return [part for part in WS_RUN.split(text) if part]


def collapse_whitespace(text: str) -> str:
    """`text.replace(/\\s+/g, ' ')`."""
    return WS_RUN.sub(" ", text)


def utf16_len(text: str) -> int:
    """`text.length` in JavaScript."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def utf16_slice(text: str, end: int) -> str:
    """`text.slice(0, end)` for `end >= 0`, counting UTF-16 code units."""
    if len(text) * 2 <= end or text.isascii():
        return text[:end]
    units = text.encode("utf-16-le", "surrogatepass")
    if len(units) <= 2 * end:
        return text
    return units[: 2 * end].decode("utf-16-le", "surrogatepass")


def js_slice_count(count: float, length: int) -> int:
    """How many items `array.slice(0, count)` keeps (`count` converted like JS does)."""
    if count != count:  # NaN
        return 0
    if count == float("inf"):
        return length
    if count == float("-inf"):
        return 0
    whole = int(count)  # truncates toward zero, like ToIntegerOrInfinity
    if whole < 0:
        return max(length + whole, 0)
    return min(whole, length)


def utf16_tail(text: str, start: int) -> str:
    """`text.slice(start)` for `start >= 0`, counting UTF-16 code units."""
    if text.isascii():
        return text[start:]
    units = text.encode("utf-16-le", "surrogatepass")
    return units[2 * start :].decode("utf-16-le", "surrogatepass")
