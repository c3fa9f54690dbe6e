"""Just enough of Ax's signature syntax to validate an agent config before axllm sees it.

`document:string "the text", query:string -> answer:string`. We only need the field names
(to refuse a field named `context`, check `contextFields`, and name missing inputs); axllm
stays the authority on everything else, and its own parse errors are reported as well.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from axmem_gui.core.errors import InputError

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class SignatureFields:
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]


def _split_top_level(text: str, sep: str) -> list[str]:
    """Split on `sep` outside double-quoted descriptions."""
    parts: list[str] = []
    current: list[str] = []
    in_quote = False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and in_quote and i + 1 < len(text):
            current.append(text[i : i + 2])
            i += 2
            continue
        if ch == '"':
            in_quote = not in_quote
        if not in_quote and text.startswith(sep, i):
            parts.append("".join(current))
            current = []
            i += len(sep)
            continue
        current.append(ch)
        i += 1
    parts.append("".join(current))
    return parts


def _strip_leading_description(text: str) -> str:
    stripped = text.lstrip()
    if not stripped.startswith('"'):
        return text
    end = stripped.find('"', 1)
    return stripped[end + 1 :] if end > 0 else text


def _field_names(side: str, where: str, which: str) -> tuple[str, ...]:
    names: list[str] = []
    for raw in _split_top_level(side, ","):
        part = raw.strip()
        if not part:
            raise InputError(f"{where}: empty {which} field in the signature")
        match = _NAME.match(part)
        if match is None:
            raise InputError(f"{where}: cannot read the {which} field name in {part!r}")
        names.append(match.group(0))
    return tuple(names)


def parse_signature_fields(signature: str, where: str = "signature") -> SignatureFields:
    """Input and output field names of an Ax signature string, or an InputError."""
    sides = _split_top_level(_strip_leading_description(signature), "->")
    if len(sides) != 2:
        raise InputError(
            f"{where}: a signature needs exactly one '->' between inputs and outputs, "
            f"e.g. 'document:string, query:string -> answer:string'"
        )
    return SignatureFields(
        inputs=_field_names(sides[0], where, "input"),
        outputs=_field_names(sides[1], where, "output"),
    )
