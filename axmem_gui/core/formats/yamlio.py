"""YAML frontmatter: a strict loader and an emitter that round-trips exactly.

Loader: PyYAML's safe loader with three changes. Dates stay strings (`2024-05-01` is
kept as written instead of becoming a date object that JSON cannot hold), a key given twice
is an error instead of silently keeping the last value, and aliases are refused (they can
multiply a small file into a huge value).

Emitter: every scalar is tried in the most readable style (plain, then a literal block for
multi-line text, then double quotes with escapes) and each candidate is kept only if
loading it gives back exactly the same value; the whole document is verified the same
way. Ax keeps strings verbatim, so `" spaced "`, `"yes"`, `"2024-01-01"`, CRLF, NUL or
astral characters all come back unchanged.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

import yaml

_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"


class FrontmatterError(Exception):
    """Frontmatter that cannot be used; the message names the line when known."""


class FrontmatterLoader(yaml.SafeLoader):
    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                duplicate = key in seen
            except TypeError:
                continue  # unhashable key: the base class reports it
            if duplicate:
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"key '{key}' is given twice",
                    key_node.start_mark,
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


FrontmatterLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != _TIMESTAMP_TAG]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _mark_text(exc: yaml.YAMLError, first_line: int) -> str:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    if problem == "mapping values are not allowed here":
        problem += "; put the value in quotes if it contains ': '"
    if mark is not None:
        return f"line {mark.line + first_line}, column {mark.column + 1}: {problem}"
    return str(problem)


def _check_json_compatible(value: Any, where: str) -> None:
    if isinstance(value, str | bool | int) or value is None:
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise FrontmatterError(f"{where}: {value} cannot be kept (not a finite number)")
        return
    if isinstance(value, list):
        for i, item in enumerate(value):
            _check_json_compatible(item, f"{where}[{i}]")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise FrontmatterError(f"{where}: key {key!r} must be a string")
            _check_json_compatible(item, f"{where}.{key}" if where else key)
        return
    raise FrontmatterError(f"{where}: values of type {type(value).__name__} are not supported")


#: Frontmatter holds a name, a description and a little metadata; anything much larger
#: or deeper is refused before PyYAML sees it (its time grows with the square of the depth).
MAX_FRONTMATTER_CHARS = 1024 * 1024
MAX_FRONTMATTER_DEPTH = 128
MAX_NUMBER_DIGITS = 400

_QUOTED = re.compile(r"'(?:[^'\n]|'')*+'|\"(?:[^\"\\\n]|\\.)*+\"")
_BLOCK_MARKERS = re.compile(r"(?:[-?:][ \t]+)+")
_FLOW_BRACKETS = re.compile(r"[\[\]{}]")
_LONG_DIGITS = re.compile(rf"\d{{{MAX_NUMBER_DIGITS + 1},}}")


def check_frontmatter_limits(text: str, first_line: int = 1) -> None:
    """FrontmatterError when `text` is too large, nests too deeply (an upper estimate:
    indentation + stacked block markers + open flow brackets, per line) or holds a run of
    digits too long for a number. Linear time."""
    if len(text) > MAX_FRONTMATTER_CHARS:
        raise FrontmatterError(
            f"too large ({len(text):,} characters; the limit is {MAX_FRONTMATTER_CHARS:,})"
        )
    digits = _LONG_DIGITS.search(text)
    if digits is not None:
        at = text.count("\n", 0, digits.start()) + first_line
        raise FrontmatterError(f"line {at}: a number with more than {MAX_NUMBER_DIGITS} digits")
    flow = 0
    for number, line in enumerate(text.split("\n"), start=first_line):
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        markers = _BLOCK_MARKERS.match(body)
        stacked = markers.group().count(" ") + markers.group().count("\t") if markers else 0
        for bracket in _FLOW_BRACKETS.findall(_QUOTED.sub("", body).split(" #")[0]):
            flow = flow + 1 if bracket in "[{" else max(0, flow - 1)
            if indent + stacked + flow > MAX_FRONTMATTER_DEPTH:
                break
        if indent + stacked + flow > MAX_FRONTMATTER_DEPTH:
            raise FrontmatterError(
                f"line {number}: nested too deeply (the limit is {MAX_FRONTMATTER_DEPTH} levels)"
            )


def load_frontmatter(text: str, first_line: int = 1) -> Any:
    """Parse frontmatter YAML into JSON-compatible values; FrontmatterError otherwise.
    `first_line` is the file line the YAML text starts on (for messages)."""
    check_frontmatter_limits(text, first_line)
    try:
        for event in yaml.parse(text, Loader=FrontmatterLoader):
            if isinstance(event, yaml.AliasEvent):
                mark = event.start_mark
                where = f"line {mark.line + first_line}: " if mark is not None else ""
                raise FrontmatterError(f"{where}YAML aliases (*name) are not supported")
        value = yaml.load(text, Loader=FrontmatterLoader)
    except yaml.YAMLError as exc:
        raise FrontmatterError(f"malformed YAML ({_mark_text(exc, first_line)})") from None
    except RecursionError:
        raise FrontmatterError("malformed YAML (nested too deeply)") from None
    except ValueError as exc:  # e.g. an integer PyYAML cannot convert
        raise FrontmatterError(f"malformed YAML ({exc})") from None
    _check_json_compatible(value, "")
    return value


# --- emitting -------------------------------------------------------------------------

_NAMED_ESCAPES = {
    "\0": "\\0",
    "\a": "\\a",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\v": "\\v",
    "\f": "\\f",
    "\r": "\\r",
    "\x1b": "\\e",
    '"': '\\"',
    "\\": "\\\\",
}


def _needs_escape(ch: str) -> bool:
    o = ord(ch)
    return (
        o < 0x20
        or 0x7F <= o <= 0x9F
        or 0xD800 <= o <= 0xDFFF
        or o in (0xFEFF, 0xFFFE, 0xFFFF, 0x2028, 0x2029)
    )


def double_quoted(text: str) -> str:
    """A YAML double-quoted scalar for `text`; correct by construction."""
    out = ['"']
    for ch in text:
        if ch in _NAMED_ESCAPES:
            out.append(_NAMED_ESCAPES[ch])
        elif _needs_escape(ch):
            o = ord(ch)
            out.append(f"\\x{o:02x}" if o <= 0xFF else f"\\u{o:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _literal_block(text: str) -> str | None:
    if "\n" not in text or any(_needs_escape(ch) for ch in text if ch != "\n"):
        return None
    stripped = text.rstrip("\n")
    trailing = len(text) - len(stripped)
    chomp = "-" if trailing == 0 else ("" if trailing == 1 else "+")
    lines = stripped.split("\n")
    indent_hint = "2" if lines[0][:1].isspace() or not lines[0] else ""
    body = "\n".join(("  " + line) if line else "" for line in lines)
    extra_blank_lines = "\n" * max(0, trailing - 1)
    return f"|{indent_hint}{chomp}\n{body}{extra_blank_lines}"


def _loads_to(
    candidate_doc: str, expected: Mapping[str, Any], *, also_standard: bool = False
) -> bool:
    """Whether the text loads to exactly `expected`; with `also_standard`, PyYAML's own
    safe loader must agree too (it reads `2024-01-01` as a date), so other tools that
    read the SKILL.md see the same strings we do."""
    loaders: list[type[yaml.SafeLoader]] = [FrontmatterLoader]
    if also_standard:
        loaders.append(yaml.SafeLoader)
    for loader in loaders:
        try:
            value = yaml.load(candidate_doc, Loader=loader)
        except yaml.YAMLError:
            return False
        if not (isinstance(value, dict) and list(value.items()) == list(expected.items())):
            return False
    return True


@functools.lru_cache(maxsize=1024)
def _key_text(key: str) -> str:
    # Cached: the same few keys (name, description, metadata...) head every SKILL.md of
    # an export, and each check loads YAML twice (about a third of a skills-dir export).
    if key and _loads_to(f"{key}: x\n", {key: "x"}, also_standard=True):
        return key
    return double_quoted(key)


def _flow(value: Any) -> str:
    """JSON-like flow YAML, used when the block dumper's output does not verify."""
    if isinstance(value, str):
        return double_quoted(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float):
        text = repr(value)
        if "." not in text and "e" in text:
            # YAML 1.1 reads `5e-324` as a string; it needs a dot in the mantissa.
            mantissa, exponent = text.split("e")
            text = f"{mantissa}.0e{exponent}"
        return text
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{double_quoted(k)}: {_flow(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot write {type(value).__name__} to YAML")


def _string_entry(key_text: str, key: str, value: str) -> str:
    candidates = []
    if value and "\n" not in value and "\r" not in value:
        candidates.append(value)
    block = _literal_block(value)
    if block is not None:
        candidates.append(block)
    for candidate in candidates:
        entry = f"{key_text}: {candidate}"
        if _loads_to(entry + "\n", {key: value}, also_standard=True):
            return entry
    return f"{key_text}: {double_quoted(value)}"


def _entry(key: str, value: Any) -> str:
    key_text = _key_text(key)
    if isinstance(value, str):
        return _string_entry(key_text, key, value)
    if isinstance(value, dict | list) and value:
        dumped = yaml.dump(
            value,
            Dumper=yaml.SafeDumper,
            allow_unicode=True,
            sort_keys=False,
            default_flow_style=False,
            width=1 << 16,
            indent=2,
        ).rstrip("\n")
        indented = "\n".join(("  " + line) if line else line for line in dumped.split("\n"))
        entry = f"{key_text}:\n{indented}"
        if _loads_to(entry + "\n", {key: value}):
            return entry
    return f"{key_text}: {_flow(value)}"


def dump_frontmatter(pairs: Iterable[tuple[str, Any]], newline: str = "\n") -> str:
    """YAML text for the given top-level keys in order, each line ending in `newline`,
    verified to load back to exactly these values."""
    items = list(pairs)
    expected = dict(items)
    text = "".join(_entry(k, v) + "\n" for k, v in items)
    if newline != "\n":
        text = text.replace("\n", newline)
    if not _loads_to(text, expected):
        # Never expected; a plain flow rendering of every value is always exact.
        text = "".join(f"{double_quoted(k)}: {_flow(v)}{newline}" for k, v in items)
        if not _loads_to(text, expected):
            raise ValueError("frontmatter cannot be written losslessly")
    return text
