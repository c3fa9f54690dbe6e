"""Writing text the way JavaScript holds it: lone surrogates never crash a writer.

A JavaScript string is UTF-16 and may hold an unpaired surrogate: Ax cuts memory snippets
at 80 UTF-16 units and content at 600, so half an emoji is an ordinary Ax value (the
engine keeps it, as a lone surrogate in a Python `str`). UTF-8 cannot encode one, so
every writer of the project follows one of two rules (docs/ax-text.md):

- **JSON** (JSON output, JSON files, session and suite files, the workspace's stored JSON,
  JSON fragments inside text) escapes it, `"\\ud83c"`, as `JSON.stringify` does. The value
  reads back exactly.
- **Text** (stdout/stderr, text files and reports) writes U+FFFD REPLACEMENT CHARACTER in
  its place, as Node's `process.stdout.write` and `fs.writeFileSync` do.

Either way a surrogate *pair* that sits in a `str` as two code points (JavaScript's
`'\\ud83c' + '\\udf50'`) is the character it encodes. Nothing is dropped silently.
"""

from __future__ import annotations

import codecs
import json
import re
from typing import Any

#: The error handler name for `str.encode` / `open(..., errors=...)` / `reconfigure`:
#: lone surrogates become U+FFFD, split pairs become their character.
JS_TEXT_ERRORS = "axmem-js-text"

_SURROGATE = re.compile("[\ud800-\udfff]")
_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def _joined(pair: re.Match[str]) -> str:
    text = pair.group()
    high, low = text[0], text[1]
    return chr(0x10000 + ((ord(high) - 0xD800) << 10) + (ord(low) - 0xDC00))


#: Characters `has_surrogate` searches at a time: a search of a whole 20 MB text held the
#: GIL for about 170 ms (a worker's JSON froze the GUI thread that long); a block, ~2 ms.
_SEARCH_BLOCK = 1 << 18


def has_surrogate(text: str) -> bool:
    """True when `text` holds a surrogate code point (paired or not), searched a block
    at a time so that other threads get the GIL in between (one character class: a
    block boundary cannot split a match)."""
    search = _SURROGATE.search
    return any(
        search(text, start, start + _SEARCH_BLOCK) for start in range(0, len(text), _SEARCH_BLOCK)
    )


def join_surrogate_pairs(text: str) -> str:
    """`text` with every high+low surrogate pair made into the character it encodes."""
    if not has_surrogate(text):
        return text
    return _PAIR.sub(_joined, text)


def has_lone_surrogate(text: str) -> bool:
    return _SURROGATE.search(join_surrogate_pairs(text)) is not None


def _js_text_errors(exc: UnicodeError) -> tuple[bytes, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    chunk = exc.object[exc.start : exc.end]
    if not all(0xD800 <= ord(c) <= 0xDFFF for c in chunk):
        raise exc  # a real encoding problem (a character the codec does not have)
    fixed = _SURROGATE.sub("\ufffd", join_surrogate_pairs(chunk))
    # bytes: CPython's UTF-8 encoder takes only ASCII text back from a handler
    return fixed.encode(exc.encoding, "backslashreplace"), exc.end


codecs.register_error(JS_TEXT_ERRORS, _js_text_errors)


def encode_text(text: str) -> bytes:
    """UTF-8 bytes of `text` under the text rule (lone surrogate -> U+FFFD)."""
    return text.encode("utf-8", JS_TEXT_ERRORS)


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def escape_lone_surrogates(json_text: str) -> str:
    """JSON text (from `json.dumps(..., ensure_ascii=False)`) with each lone surrogate
    written as its `\\uXXXX` escape; only string contents can hold one."""
    if not has_surrogate(json_text):
        return json_text
    return _SURROGATE.sub(_escape, join_surrogate_pairs(json_text))


def json_dumps(value: Any, **kwargs: Any) -> str:
    """`json.dumps(value, ensure_ascii=False, **kwargs)` that any UTF-8 writer can write:
    lone surrogates escaped as `JSON.stringify` escapes them."""
    return escape_lone_surrogates(json.dumps(value, ensure_ascii=False, **kwargs))


def as_text(text: str) -> str:
    """`text` under the text rule, as a `str`: each lone surrogate replaced by U+FFFD.
    For places that would drop one silently (Qt's QString conversion does)."""
    if not has_surrogate(text):
        return text
    return _SURROGATE.sub("\ufffd", join_surrogate_pairs(text))
