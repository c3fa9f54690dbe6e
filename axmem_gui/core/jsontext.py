"""JSON from files other people made: one parser and one type vocabulary for every format.

`loads` checks nesting depth and number lengths *before* parsing, in linear time, so a
hostile file ends in a one-line error naming the place instead of a RecursionError, a
ValueError from a 5,000-digit integer or minutes of work.

Every file format checks its objects here, with one small schema: a `Field` says which JSON
types a field takes and what else its value must satisfy, and `check_field` /
`read_object` turn a wrong value into one message shape, whatever the file:

    <source>: <place>: field 'k' is missing
    <source>: <place>: field 'k' must be <what>, got <a JSON type | the value>
    <source>: <place>: unknown field 'k' (allowed: ...)

(catalog imports collect the same words as `Problem`s: core/formats/model.py)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol, TypeVar

from axmem_gui.core.errors import InputError
from axmem_gui.core.jsout import json_dumps

#: Deepest nesting of arrays and objects accepted (real files stay under 20).
MAX_DEPTH = 200
#: Longest run of digits accepted in a number (Python refuses integers over 4,300 digits;
#: every count, score and id in our formats fits in far fewer).
MAX_NUMBER_DIGITS = 400
#: Largest integer magnitude kept: JavaScript's Number.MAX_SAFE_INTEGER (Ax reads numbers as
#: doubles), well inside SQLite's 64-bit integers.
MAX_SAFE_INTEGER = 2**53 - 1

_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"', re.S)
# Digits become "0", everything else " ": a long run is then one substring search
# (linear, C speed; a regex would retry inside every shorter run).
_DIGITS_ONLY = bytes(0x30 if 0x30 <= b <= 0x39 else 0x20 for b in range(256))
_LONG_RUN = b"0" * (MAX_NUMBER_DIGITS + 1)
_BRACKET = re.compile(r"[\[\]{}]")


class JsonLimitError(json.JSONDecodeError):
    """Input over one of the limits; raised before parsing, with the position."""


#: Characters scanned at a time for digit runs: the encoded and translated copies of a
#: window, not of the whole text, are what the scan holds (a 1 GiB import).
_DIGIT_WINDOW = 1 << 22


def _long_digit_run_at(text: str) -> int | None:
    """Character offset of the first run of more than MAX_NUMBER_DIGITS digits."""
    for start in range(0, len(text), _DIGIT_WINDOW):
        # Overlapping by a run's length: a run across two windows lies whole in the first.
        window = text[start : start + _DIGIT_WINDOW + MAX_NUMBER_DIGITS]
        data = window.encode("utf-8", "surrogatepass")
        at = data.translate(_DIGITS_ONLY).find(_LONG_RUN)
        if at >= 0:
            return start + len(data[:at].decode("utf-8", "surrogatepass"))
    return None


#: Bytes that are not `[]{}` (deleted), and brackets as parentheses: the depth walk
#: runs over bytes made by two C-speed translations of the text.
_NOT_BRACKET_BYTES = bytes(b for b in range(256) if b not in b"[]{}")
_AS_PARENS = bytes.maketrans(b"[{]}", b"(())")
_OPEN = ord("(")
_SMALL = 16
_LARGE = 256


@lru_cache(maxsize=1 << 17)
def _small_walk(chunk: bytes) -> tuple[int, int]:
    """(depth change, highest depth) over `chunk` of at most _SMALL parentheses. There
    are at most 2**16 such chunks, so after a warm-up every one is a dictionary hit."""
    depth = peak = 0
    for ch in chunk:
        depth += 1 if ch == _OPEN else -1
        peak = max(peak, depth)
    return depth, peak


@lru_cache(maxsize=4096)
def _large_walk(chunk: bytes) -> tuple[int, int]:
    """The same over _LARGE parentheses, from _SMALL ones (a repeated shape, such as
    16 MB of `[]`, is one dictionary hit per chunk)."""
    depth = peak = 0
    for start in range(0, len(chunk), _SMALL):
        change, high = _small_walk(chunk[start : start + _SMALL])
        peak = max(peak, depth + high)
        depth += change
    return depth, peak


def _first_too_deep_bracket(structural: str, limit: int) -> int | None:
    """The index, among the brackets `[]{}` of `structural`, of the first one that takes
    the depth over `limit`, or None. Linear; the walk looks chunks up instead of stepping
    through them in Python, so 16 MB of `[]` takes a fraction of a second (it took 2 s)."""
    data = structural.encode("utf-8", "surrogatepass")
    parens = data.translate(_AS_PARENS, _NOT_BRACKET_BYTES)
    depth = 0
    for start in range(0, len(parens), _LARGE):
        chunk = parens[start : start + _LARGE]
        change, high = _large_walk(chunk)
        if depth + high > limit:
            for i, ch in enumerate(chunk):
                depth += 1 if ch == _OPEN else -1
                if depth > limit:
                    return start + i
        depth += change
    return None


def _in_original(text: str, at: int) -> int:
    """The offset in `text` of offset `at` of `_STRING.sub('""', text)` (each string
    there is two characters long): strings before it are walked, nothing after."""
    shift = 0
    for m in _STRING.finditer(text):
        if m.start() - shift >= at:
            break
        shift += m.end() - m.start() - 2
    return at + shift


def _nth_bracket_at(text: str, index: int) -> int:
    """The offset in `text` of its bracket number `index` (counting `[]{}` only),
    counted a block at a time at C speed."""
    seen = 0
    for start in range(0, len(text), 65536):
        block = text[start : start + 65536]
        here = sum(map(block.count, "[]{}"))
        if seen + here > index:
            for m in _BRACKET.finditer(block):
                if seen == index:
                    return start + m.start()
                seen += 1
        seen += here
    return 0  # pragma: no cover - `index` comes from the same brackets


def _without_strings(text: str) -> str:
    """`_STRING.sub('""', text)`, a match at a time: one `sub` over a 20 MB file held the
    GIL for about 250 ms (a worker reading a session file froze the GUI thread that long);
    this lets other threads run between strings, and is as fast."""
    parts: list[str] = []
    add = parts.append
    last = 0
    for m in _STRING.finditer(text):
        start, end = m.span()
        add(text[last:start])
        add('""')
        last = end
    add(text[last:])
    return "".join(parts)


def check_json_limits(text: str, *, max_depth: int = MAX_DEPTH) -> None:
    """Raise JsonLimitError when `text` nests deeper than `max_depth` or holds a number
    with more than MAX_NUMBER_DIGITS digits. Linear time; cheap for ordinary files."""
    may_be_deep = text.count("[") + text.count("{") > max_depth
    may_be_long = _long_digit_run_at(text) is not None
    if not may_be_deep and not may_be_long:
        return
    # Strings hold no structure: with each replaced by "", what is left is what counts.
    structural = _without_strings(text)
    long_at = _long_digit_run_at(structural) if may_be_long else None
    if long_at is not None:
        at = _in_original(text, long_at)
        raise JsonLimitError(f"a number with more than {MAX_NUMBER_DIGITS} digits", text, at)
    deep_at = _first_too_deep_bracket(structural, max_depth) if may_be_deep else None
    if deep_at is not None:
        at = _in_original(text, _nth_bracket_at(structural, deep_at))
        raise JsonLimitError(f"nested more than {max_depth} levels deep", text, at)


def _finite_float(raw: str) -> float:
    value = float(raw)
    if not math.isfinite(value):
        raise ValueError(f"the number {raw[:40]} is out of range")
    return value


def _no_constant(raw: str) -> Any:
    raise ValueError(f"{raw} is not a JSON value")


def parse(
    text: str, *, object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None
) -> Any:
    """json.loads with the limits checked first. Raises json.JSONDecodeError (with a
    position) for bad or over-limit text, ValueError for out-of-range numbers."""
    check_json_limits(text)
    try:
        return json.loads(
            text,
            object_pairs_hook=object_pairs_hook,
            parse_float=_finite_float,
            parse_constant=_no_constant,
        )
    except RecursionError:  # pragma: no cover - the depth check comes first
        raise JsonLimitError("nested too deeply", text, 0) from None


def error_message(exc: ValueError) -> str:
    """'not valid JSON (line L, column C: what)' for any error `parse` raises."""
    if isinstance(exc, json.JSONDecodeError):
        return f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
    return f"not valid JSON ({exc})"


def loads(text: str, source: str, **kwargs: Any) -> Any:
    """`parse`, with every failure an InputError starting with `source`."""
    try:
        return parse(text, **kwargs)
    except ValueError as exc:
        raise InputError(f"{source}: {error_message(exc)}") from None


# --- one type vocabulary ------------------------------------------------------------------

_KIND_NAMES: dict[type, str] = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "true or false",
    dict: "an object",
    list: "a list",
}


def type_name(value: Any) -> str:
    """What a JSON value is, in the words every error message uses."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def describe_kinds(kinds: tuple[type, ...], *, nullable: bool = False) -> str:
    if int in kinds and float in kinds:  # an integer is a number: say it once
        kinds = tuple(k for k in kinds if k is not int)
    wanted = " or ".join(_KIND_NAMES.get(k, k.__name__) for k in kinds)
    return wanted + " or null" if nullable else wanted


def type_problem(value: Any, kinds: tuple[type, ...], *, nullable: bool = False) -> str | None:
    """None when `value` is one of `kinds` (booleans are not numbers; integers must be
    safe integers), else 'must be K, got T'."""
    if value is None and nullable:
        return None
    numeric = int in kinds or float in kinds
    is_bool_as_number = isinstance(value, bool) and bool not in kinds and numeric
    ok = isinstance(value, kinds) and not is_bool_as_number
    if ok and isinstance(value, int) and not isinstance(value, bool):
        if abs(value) > MAX_SAFE_INTEGER:
            digits = len(str(abs(value)))
            return f"must be at most {MAX_SAFE_INTEGER} in size, got a {digits}-digit integer"
        return None
    if ok and isinstance(value, float) and not math.isfinite(value):
        return f"must be a finite number, got {value}"
    if ok:
        return None
    return f"must be {describe_kinds(kinds, nullable=nullable)}, got {type_name(value)}"


# --- one schema for the fields of every file format --------------------------------------


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


#: `Field.default` of a field that must be given.
REQUIRED: Any = _Required()


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


@dataclass(frozen=True)
class Field:
    """One field of a JSON object: the JSON types it takes and what its value must satisfy.

    `default` is what an absent field reads as (REQUIRED: absence is an error); `nullable`
    reads null as absent. `non_empty`: a string with more than blanks, a list or object
    with something in it. `minimum`/`maximum` bound numbers, `choices` lists the values
    allowed, `items` checks each item of a list, `aliases` are other accepted keys, and
    `whole` reads a number such as 4000.0 as the integer 4000."""

    kinds: tuple[type, ...]
    default: Any = REQUIRED
    nullable: bool = False
    non_empty: bool = False
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[Any, ...] = ()
    items: Field | None = None
    aliases: tuple[str, ...] = ()
    whole: bool = False

    def describe(self) -> str:
        """What the value must be, in the words every message uses."""
        if self.choices:
            shown = [repr(c) for c in self.choices]
            text = " or ".join(shown) if len(shown) <= 2 else "one of " + ", ".join(shown)
        elif self.kinds == (int,) and self.maximum is None and self.minimum in (0, 1):
            text = "a positive integer" if self.minimum == 1 else "a non-negative integer"
        else:
            text = describe_kinds(self.kinds)
            if self.non_empty:
                text = text.replace("a ", "a non-empty ", 1).replace("an ", "a non-empty ", 1)
            if self.minimum is not None and self.maximum is not None:
                text += f" from {_number(self.minimum)} to {_number(self.maximum)}"
            elif self.minimum is not None:
                text += f" of at least {_number(self.minimum)}"
            elif self.maximum is not None:
                text += f" of at most {_number(self.maximum)}"
        # Null reads as absent in an optional field: only a required one says so.
        return text + " or null" if self.nullable and self.default is REQUIRED else text


def _is_empty(value: Any) -> bool:
    return not value.strip() if isinstance(value, str) else not value


def check_value(value: Any, where: str, label: str, spec: Field) -> Any:
    """`value` as field `label` of the object at `where`, or an InputError
    '<where>: field '<label>' must be <what>, got <it>'."""
    if spec.whole and isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    at = f"{where}: field '{label}'" if where else f"field '{label}'"
    problem = type_problem(value, spec.kinds)
    if problem is not None:
        wrong_type = not isinstance(value, spec.kinds) or isinstance(value, bool)
        got = type_name(value) if wrong_type else None
        raise InputError(f"{at} must be {spec.describe()}, got {got}" if got else f"{at} {problem}")
    too_small = spec.minimum is not None and value < spec.minimum
    too_large = spec.maximum is not None and value > spec.maximum
    empty = spec.non_empty and _is_empty(value)
    if too_small or too_large or empty or (spec.choices and value not in spec.choices):
        shown = repr(value) if isinstance(value, str | int | float) else type_name(value)
        if empty and isinstance(value, list | dict):
            shown = shown.replace("a ", "an empty ", 1).replace("an object", "an empty object")
        raise InputError(f"{at} must be {spec.describe()}, got {shown}")
    if spec.items is not None:
        for i, item in enumerate(value):
            check_value(item, where, f"{label}[{i}]", spec.items)
    return value


def check_field(obj: Mapping[str, Any], key: str, where: str, spec: Field) -> Any:
    """Field `key` of `obj` (the object at `where`), checked against `spec`: its value, or
    the default when absent (or null and nullable); InputError names the place."""
    name = next((k for k in (key, *spec.aliases) if k in obj), None)
    if name is None or (obj[name] is None and spec.nullable):
        if spec.default is REQUIRED and name is None:
            at = f"{where}: " if where else ""
            raise InputError(f"{at}field '{key}' is missing")
        return None if spec.default is REQUIRED else spec.default
    return check_value(obj[name], where, key, spec)


NAME = Field((str,), non_empty=True)


def name_of(value: Any, where: str) -> str:
    """The checked, non-empty field 'name' of an object ("" when `value` is no object):
    read first, so later messages can name the object by it."""
    return check_field(value, "name", where, NAME) if isinstance(value, dict) else ""


def read_object(
    value: Any, where: str, what: str, schema: Mapping[str, Field], *, closed: bool = True
) -> dict[str, Any]:
    """Check `value` is an object (`what` names it: "a case"), has no field the schema
    does not know (when `closed`: a misspelt key would be silently ignored), and every
    field; returns the fields' values by key, defaults filled in."""
    if not isinstance(value, dict):
        raise InputError(f"{where}: {what} must be an object, got {type_name(value)}")
    if closed:
        known = {k for key, spec in schema.items() for k in (key, *spec.aliases)}
        unknown = sorted(set(value) - known)
        if unknown:
            raise InputError(
                f"{where}: unknown field '{unknown[0]}' (allowed: {', '.join(sorted(schema))})"
            )
    return {key: check_field(value, key, where, spec) for key, spec in schema.items()}


class _Named(Protocol):
    @property
    def name(self) -> str: ...


_N = TypeVar("_N", bound=_Named)


def named_items(
    value: Any,
    source: str,
    parse: Callable[[Any, str], _N],
    *,
    key: str,
    expected: str,
    noun: str,
) -> list[_N]:
    """The documents that hold named objects with `cases` (suites, eval sets): one object,
    a list of them, or `{key: [...]}`; each read by `parse(value, where)`, names unique.
    `expected` says what the value should have been, `noun` names one item."""
    if isinstance(value, dict) and key in value and "cases" not in value:
        value = value[key]
        if not isinstance(value, list):
            raise InputError(f"{source}: '{key}' must be a list")
    if isinstance(value, dict):
        return [parse(value, source)]
    if not isinstance(value, list):
        raise InputError(f"{source}: expected {expected}, got {type_name(value)}")
    items = [parse(v, f"{source}: [{i}]") for i, v in enumerate(value)]
    check_unique_names(items, source, "", noun)
    return items


class _Writable(Protocol):
    def to_json(self) -> Any: ...


def named_items_text(items: Sequence[_Writable]) -> str:
    """The writer `named_items` reads back: one item as an object, several as a list;
    pretty JSON (lone surrogates escaped) ending with a newline."""
    value: Any = items[0].to_json() if len(items) == 1 else [i.to_json() for i in items]
    return json_dumps(value, indent=2) + "\n"


def check_unique_names(items: Sequence[_Named], where: str, key: str, noun: str) -> None:
    """InputError '<where>: <key>[i]: duplicate <noun> name 'x'' for the first repeat."""
    seen: set[str] = set()
    for i, item in enumerate(items):
        if item.name in seen:
            raise InputError(f"{where}: {key}[{i}]: duplicate {noun} name '{item.name}'")
        seen.add(item.name)
