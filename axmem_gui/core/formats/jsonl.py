"""JSON Lines memories: one `{"id", "content", "tags"?}` object per line."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from axmem_gui.core.catalog import Memory
from axmem_gui.core.formats.axjson import parse_json_text
from axmem_gui.core.formats.model import SourceCatalog
from axmem_gui.core.formats.values import Collector, build_source, memory_to_value
from axmem_gui.core.jsout import json_dumps

# JSON allows U+2028/U+2029 raw inside strings, but many line-based tools treat them as
# line breaks; written escaped, a line stays a line everywhere.
_LINE_SEPARATOR_ESCAPES = {"\u2028": "\\u2028", "\u2029": "\\u2029"}


def read_jsonl(text: str, source: str, *, keep_duplicates: bool = False) -> SourceCatalog:
    # Split on LF only: str.splitlines() would also split on U+2028 and friends, which
    # may legally appear raw inside a JSON string. A CR before the LF is JSON whitespace.
    lines = text.removeprefix("\ufeff").split("\n")
    return read_jsonl_lines(lines, source, keep_duplicates=keep_duplicates)


def read_jsonl_lines(
    lines: Iterable[str], source: str, *, keep_duplicates: bool = False
) -> SourceCatalog:
    """`read_jsonl` of lines given one at a time (a big file is never held whole:
    `fileio.iter_text_lines`). What reading the lines raises is the caller's."""
    c = Collector(source)
    items: list[tuple[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip(" \t\r"):
            continue
        where = f"line {number}"
        try:
            value = parse_json_text(line)
        except json.JSONDecodeError as exc:
            c.error(f"not valid JSON (column {exc.colno}: {exc.msg})", where)
            continue
        except ValueError as exc:
            c.error(f"not valid JSON ({exc})", where)
            continue
        if isinstance(value, dict) and "name" in value:
            c.error(
                "looks like a skill (has 'name'); JSON Lines files hold memories only, "
                "use a catalog JSON file for skills",
                where,
            )
            continue
        items.append((where, value))
    return build_source(c, "jsonl", (), items, keep_duplicates=keep_duplicates)


def _line(memory: Memory) -> str:
    text = json_dumps(memory_to_value(memory))
    for raw, escaped in _LINE_SEPARATOR_ESCAPES.items():
        text = text.replace(raw, escaped)
    return text


def write_jsonl(memories: Iterable[Memory]) -> str:
    return "".join(_line(m) + "\n" for m in memories)
