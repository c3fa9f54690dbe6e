"""JavaScript string semantics that Ax relies on, reproduced for Python `str`.

JavaScript strings are UTF-16: `length`, `slice` and the `>= 2` token-length rule count
UTF-16 code units, so a character outside the BMP (an emoji) counts 2 and a slice can cut
it in half (leaving a lone surrogate, which Python strings can hold too). JavaScript's `\\s`
(used by `split(/\\s+/)`, `replace(/\\s+/g)` and `trim()`) is a fixed set that differs from
Python's `str.split()`/`str.strip()`/`re` `\\s`, so it is spelled out here.
"""

from __future__ import annotations

import re
from typing import Any

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


_JS_DECIMAL = re.compile(r"[+-]?(?:Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")
_JS_RADIX = re.compile(r"0(?:[xX](?P<hex>[0-9a-fA-F]+)|[oO](?P<oct>[0-7]+)|[bB](?P<bin>[01]+))")


def js_to_number(value: Any) -> float:
    """JavaScript `Number(value)` (ToNumber) for a JSON value: what a relational operator
    (`docs.length < minDocs`) or `slice` does with a loosely typed option (`"1"` -> 1,
    `"abc"` -> NaN, `true` -> 1, `[]` -> 0, `[2]` -> 2, an object -> NaN)."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value)
    if value is None:
        return 0.0
    if isinstance(value, list | tuple):
        # ToPrimitive of an array is its join(","): [] -> "", [2] -> "2", [1, 2] -> NaN
        if len(value) > 1:
            return float("nan")
        return js_to_number(_js_string(value[0])) if value else 0.0
    if not isinstance(value, str):
        return float("nan")  # "[object Object]"
    text = js_trim(value)
    if not text:
        return 0.0
    radix = _JS_RADIX.fullmatch(text)
    if radix:
        digits, base = next((d, b) for d, b in zip(radix.groups(), (16, 8, 2), strict=True) if d)
        return float(int(digits, base))
    if not _JS_DECIMAL.fullmatch(text):
        return float("nan")
    if text.lstrip("+-") == "Infinity":
        return float("-inf") if text.startswith("-") else float("inf")
    return float(text)


def _js_string(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(_js_string(v) for v in value)
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return repr(value) if isinstance(value, float) and not value.is_integer() else str(
            int(value)
        )
    return "[object Object]"
