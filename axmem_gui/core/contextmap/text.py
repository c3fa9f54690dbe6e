"""The context-map text format: six fixed sections, `[id] content` item lines, decoration.

Every rule here mirrors Ax's `contextMap.ts` (and axllm's `_context_map_*` helpers), down to
the JavaScript details that decide edge cases: `String.prototype.trim()` whitespace, the
`/^\\[([^\\]]+)]\\s*(.*)$/` item pattern, ASCII digits in id numbers and lengths in UTF-16
code units. A header or item that Ax would not recognise is not recognised here either.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

# JavaScript's WhiteSpace + LineTerminator set (what `trim()` and `\s` mean in JS). Python's
# str.strip() and `\s` differ (they add U+001C..U+001F and U+0085, and miss U+FEFF).
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_JS_SPACE_OR_HYPHEN_RUN = re.compile(
    "[" + "".join(f"\\u{ord(c):04x}" for c in JS_WHITESPACE) + "-]+"
)
# What JS `.` refuses to match: an item line containing one of these after its id is no item.
_JS_LINE_TERMINATORS = frozenset("\n\r\u2028\u2029")
_ID_TAIL = re.compile(r"-([0-9]+)\Z")


def js_trim(value: str) -> str:
    """`value.trim()` as JavaScript does it."""
    return value.strip(JS_WHITESPACE)


def utf16_length(value: str) -> int:
    """`value.length` in JavaScript: UTF-16 code units (a lone surrogate counts as one)."""
    return len(value.encode("utf-16-le", "surrogatepass")) // 2


@dataclass(frozen=True)
class Section:
    name: str
    title: str
    slug: str
    description: str


SECTIONS: tuple[Section, ...] = (
    Section(
        "context_roadmap",
        "CONTEXT ROADMAP",
        "cr",
        "Index of what the context contains and where to find it.",
    ),
    Section(
        "context_understanding",
        "CONTEXT UNDERSTANDING",
        "cu",
        "High-level understanding of the context: what it is, how it's organized, "
        "and what matters.",
    ),
    Section(
        "domain_constants",
        "DOMAIN CONSTANTS",
        "dc",
        "Exact parameters, formulas, thresholds, reference values, enum sets, and output "
        "field requirements defined by the context.",
    ),
    Section(
        "parsing_schema",
        "PARSING SCHEMA",
        "ps",
        "How to parse and navigate the context's format.",
    ),
    Section(
        "reusable_results",
        "REUSABLE RESULTS",
        "rr",
        "Reusable knowledge about the context.",
    ),
    Section(
        "error_patterns",
        "ERROR PATTERNS",
        "ep",
        "Concrete failure modes observed while processing this context.",
    ),
)
SECTION_NAMES: tuple[str, ...] = tuple(s.name for s in SECTIONS)
_SECTION_BY_NAME: dict[str, Section] = {s.name: s for s in SECTIONS}
#: Section Ax files an item under when no known header precedes it.
DEFAULT_SECTION = "context_understanding"

#: The map Ax starts from (557 UTF-16 units, and they count against maxChars).
INITIAL_TEXT = "\n\n".join(f"## {s.title}\n({s.description})" for s in SECTIONS) + "\n"


def section_by_name(name: str) -> Section:
    """The section with that canonical name (KeyError for anything else)."""
    return _SECTION_BY_NAME[name]


def normalize_section_name(name: str) -> str:
    """Lower-case, trim, runs of whitespace/hyphens to `_`, one trailing `:` dropped."""
    underscored = _JS_SPACE_OR_HYPHEN_RUN.sub("_", js_trim(name.lower()))
    return underscored[:-1] if underscored.endswith(":") else underscored


def section_for_name(name: str) -> Section | None:
    """The section a header or an ADD's `section` names: by name or by title, loosely.

    Titles normalise to the names (`CONTEXT ROADMAP` -> `context_roadmap`), so one lookup
    covers both, as in Ax.
    """
    if not name:
        return None
    normalized = normalize_section_name(name)
    return _SECTION_BY_NAME.get(normalized) or _SECTION_BY_TITLE.get(normalized)


_SECTION_BY_TITLE: dict[str, Section] = {normalize_section_name(s.title): s for s in SECTIONS}


def normalize_text(text: str) -> str:
    """Ax's text normalisation: trimmed plus one `\\n`; blank text becomes the template."""
    trimmed = js_trim(text)
    return (trimmed if trimmed else js_trim(INITIAL_TEXT)) + "\n"


def header_text(line: str) -> str | None:
    """The title of a `## TITLE` line (any number of leading `#`, at least two), else None."""
    stripped = js_trim(line)
    if not stripped.startswith("##"):
        return None
    return js_trim(stripped.lstrip("#"))


def match_item_line(line: str) -> tuple[str, str] | None:
    """`(id, content)` when the line is an `[id] content` line by Ax's pattern, else None.

    The content may be empty here; such a line is not an item for scoring or eviction, but
    Ax still deletes or rewrites it when its id is deleted or replaced.
    """
    stripped = js_trim(line)
    if not stripped.startswith("["):
        return None
    close = stripped.find("]")
    if close < 2:
        return None
    rest = stripped[close + 1 :].lstrip(JS_WHITESPACE)
    if any(ch in _JS_LINE_TERMINATORS for ch in rest):
        return None
    return stripped[1:close], js_trim(rest)


def item_number(item_id: str) -> int | None:
    """The numeric suffix of an id (`cu-00012` -> 12), or None when it has none."""
    match = _ID_TAIL.search(item_id)
    return int(match.group(1)) if match else None


def item_age(item_id: str) -> int:
    """Eviction tie-breaker: lower is older; ids without a number count as 0."""
    number = item_number(item_id)
    return 0 if number is None else number


def format_item_id(section: Section, number: int) -> str:
    return f"{section.slug}-{number:05d}"


class LineKind(StrEnum):
    HEADER = "header"
    ITEM = "item"
    BLANK = "blank"
    DECORATION = "decoration"


@dataclass(frozen=True)
class MapLine:
    """One line of the map text, classified.

    `section` is the section Ax files the line under: for a header, the section it names
    (None when unknown); for anything else, the last known header above it (Ax keeps the
    previous section across an unknown header), or `context_understanding` before any.
    """

    index: int
    raw: str
    kind: LineKind
    section: str | None
    item_id: str = ""
    content: str = ""


@dataclass(frozen=True)
class MapItem:
    id: str
    section: str
    content: str
    line_index: int

    @property
    def number(self) -> int | None:
        return item_number(self.id)


@dataclass(frozen=True)
class ParsedMap:
    text: str
    lines: tuple[MapLine, ...]

    @property
    def items(self) -> tuple[MapItem, ...]:
        return tuple(
            MapItem(line.item_id, line.section or DEFAULT_SECTION, line.content, line.index)
            for line in self.lines
            if line.kind is LineKind.ITEM
        )

    @property
    def item_ids(self) -> frozenset[str]:
        return frozenset(line.item_id for line in self.lines if line.kind is LineKind.ITEM)

    def item(self, item_id: str) -> MapItem | None:
        """The first item with that id."""
        return next((i for i in self.items if i.id == item_id), None)

    @property
    def duplicate_ids(self) -> tuple[str, ...]:
        seen: set[str] = set()
        dupes: list[str] = []
        for item in self.items:
            if item.id in seen and item.id not in dupes:
                dupes.append(item.id)
            seen.add(item.id)
        return tuple(dupes)

    @property
    def next_item_number(self) -> int:
        return next_item_number(item.id for item in self.items)

    @property
    def missing_sections(self) -> tuple[str, ...]:
        """Canonical sections without a header in the text (ADD would append one)."""
        present = {line.section for line in self.lines if line.kind is LineKind.HEADER}
        return tuple(name for name in SECTION_NAMES if name not in present)


def next_item_number(item_ids: Iterable[str]) -> int:
    """Highest numeric id suffix in the map plus one (1 for a map without numbered items)."""
    highest = 0
    for item_id in item_ids:
        number = item_number(item_id)
        if number is not None and number > highest:
            highest = number
    return highest + 1


def parse_map(text: str) -> ParsedMap:
    """Classify every line of `text` (split on `\\n` exactly as Ax does; nothing is dropped)."""
    lines: list[MapLine] = []
    section = DEFAULT_SECTION
    for index, raw in enumerate(text.split("\n")):
        title = header_text(raw)
        if title is not None:
            matched = section_for_name(title)
            if matched is not None:
                section = matched.name
            lines.append(MapLine(index, raw, LineKind.HEADER, matched.name if matched else None))
            continue
        match = match_item_line(raw)
        if match is not None and match[0] and match[1]:
            lines.append(MapLine(index, raw, LineKind.ITEM, section, match[0], match[1]))
        elif not js_trim(raw):
            lines.append(MapLine(index, raw, LineKind.BLANK, section))
        else:
            lines.append(MapLine(index, raw, LineKind.DECORATION, section))
    return ParsedMap(text, tuple(lines))


def collapse_blank_lines(text: str) -> str:
    """Drop a blank line that follows an empty one; trim; end with one `\\n`."""
    out: list[str] = []
    for line in text.split("\n"):
        if not js_trim(line) and out and out[-1] == "":
            continue
        out.append(line)
    return js_trim("\n".join(out)) + "\n"


def remove_item_lines(text: str, item_ids: Iterable[str]) -> str:
    """The text without the item lines of those ids, blank runs collapsed (Ax `removeItems`)."""
    doomed = frozenset(item_ids)
    kept = []
    for line in text.split("\n"):
        match = match_item_line(line)
        if match is None or match[0] not in doomed:
            kept.append(line)
    return collapse_blank_lines("\n".join(kept))
