"""User data made safe for a terminal: control characters, escape sequences, bidi
overrides and bytes that are not UTF-8 are shown as visible escapes, never sent raw (an id
holding ESC ] 0 ; ... BEL would retitle the user's terminal, or worse)."""

from __future__ import annotations

import re

_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def _escape(match: re.Match[str]) -> str:
    ch = match.group()
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def printable(text: str, *, keep_newlines: bool = True) -> str:
    """`text` with every unsafe character as a visible escape (newlines and tabs kept
    unless `keep_newlines` is false)."""
    out = _UNSAFE.sub(_escape, text)
    if not keep_newlines:
        out = out.replace("\n", "\\n").replace("\t", "\\t")
    return out
