"""Typed records read from JSON documents, and written back exactly as they were read.

A document (a session, an agent config, ...) is parsed once, where it enters, into frozen
dataclasses (`Record` subclasses); its edge parser checks it and builds them, and the one
writer turns them back into JSON. Two things make the round trip exact without the code
below the edges knowing anything about JSON:

* `extra` keeps the keys a record does not know (a newer writer's fields, a user's notes),
  and `key_order` the object's keys as they were read. The writer emits the keys in that
  order, so a file read and written again is the same file, byte for byte.
* A record built in code (no `key_order`) is written with its fields in declaration order,
  the ones declared `optional()` left out while they are None.

Values we do not own (axllm's requests, responses and traces) stay JSON, in a typed field
(`JsonValue`, `JsonObject`): they are stored and served back verbatim, never navigated
below their edge readers. Adding a field to a record is one line in its class and one in
its parser.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias, cast

#: Any JSON value, as `json.loads` gives it.
JsonValue: TypeAlias = bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"] | None
JsonObject: TypeAlias = dict[str, JsonValue]
JsonList: TypeAlias = list[JsonValue]

_JSON_KEY = "json_key"
_OPTIONAL = "optional"


def key(json_key: str, *, optional: bool = False) -> dict[str, Any]:
    """Field metadata: the field's JSON key when it is not the attribute's name."""
    return {_JSON_KEY: json_key, _OPTIONAL: optional}


def optional() -> dict[str, Any]:
    """Field metadata: a record built in code leaves the key out while the value is None
    (a parsed record writes exactly the keys it was read with)."""
    return {_OPTIONAL: True}


@dataclass(frozen=True, slots=True, kw_only=True)
class Record:
    """Base of every typed record: unknown keys and the keys' order as read."""

    extra: Mapping[str, JsonValue] = field(default_factory=dict, repr=False)
    #: The object's keys as read (None: built in code, written in declaration order).
    key_order: tuple[str, ...] | None = field(default=None, repr=False, compare=False)

    def to_json(self) -> JsonObject:
        """The record as the JSON object it was read from (or would be written as). The
        JSON values it holds are shared, not copied: copy before changing them."""
        return _write(self)

    def has_key(self, json_key: str) -> bool:
        """Whether the written object carries `json_key` (an absent key and a null are
        two things in some files, e.g. an update record written before a key existed)."""
        spec = next((s for s in _spec(type(self)) if s.json_key == json_key), None)
        if spec is None:
            return json_key in self.extra
        value = getattr(self, spec.attr)
        if self.key_order is not None:
            return json_key in self.key_order or value != spec.default
        return not (spec.optional and value is None)


@dataclass(frozen=True, slots=True)
class _FieldSpec:
    attr: str
    json_key: str
    optional: bool
    #: What the field reads as when its key is absent (`_NO_DEFAULT`: it is required).
    default: Any


_NO_DEFAULT = object()


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return _NO_DEFAULT


_SPECS: dict[type, tuple[_FieldSpec, ...]] = {}
_BASE_FIELDS = frozenset(("extra", "key_order"))


def _spec(cls: type) -> tuple[_FieldSpec, ...]:
    spec = _SPECS.get(cls)
    if spec is None:
        spec = tuple(
            _FieldSpec(
                f.name,
                f.metadata.get(_JSON_KEY, f.name),
                bool(f.metadata.get(_OPTIONAL)),
                _default(f),
            )
            for f in dataclasses.fields(cls)
            if f.name not in _BASE_FIELDS
        )
        _SPECS[cls] = spec
    return spec


_KNOWN: dict[type, frozenset[str]] = {}


def known_keys(cls: type[Record]) -> frozenset[str]:
    """The JSON keys a record class reads into fields (every other key is `extra`)."""
    known = _KNOWN.get(cls)
    if known is None:
        known = _KNOWN[cls] = frozenset(s.json_key for s in _spec(cls))
    return known


def to_json_value(value: object) -> JsonValue:
    """A field value as JSON: records become objects, tuples (of records) lists; JSON
    values are already JSON."""
    if isinstance(value, Record):
        return value.to_json()
    if isinstance(value, tuple):
        return [to_json_value(item) for item in value]
    return cast(JsonValue, value)


def _write(record: Record) -> JsonObject:
    out: JsonObject = {}
    specs = _spec(type(record))
    order = record.key_order
    if order is None:
        for s in specs:
            value = getattr(record, s.attr)
            if not (s.optional and value is None):
                out[s.json_key] = to_json_value(value)
        out.update(record.extra)
        return out
    attrs = _attrs(type(record))
    extra = record.extra
    for k in order:
        attr = attrs.get(k)
        if attr is not None:
            out[k] = to_json_value(getattr(record, attr))
        elif k in extra:
            out[k] = extra[k]
    if len(out) == len(order) == len(attrs) + len(extra):
        return out  # (every key was read, none set later: the usual case)
    # Set in code after reading (no longer what an absent key reads as): written after
    # the keys that were there.
    for s in specs:
        if s.json_key not in out:
            value = getattr(record, s.attr)
            if s.default is _NO_DEFAULT or value != s.default:
                out[s.json_key] = to_json_value(value)
    for k, v in extra.items():
        out.setdefault(k, v)
    return out


_ATTRS: dict[type, dict[str, str]] = {}


def _attrs(cls: type) -> dict[str, str]:
    """JSON key -> attribute name of a record class."""
    found = _ATTRS.get(cls)
    if found is None:
        found = _ATTRS[cls] = {s.json_key: s.attr for s in _spec(cls)}
    return found


_ORDERS: dict[tuple[str, ...], tuple[str, ...]] = {}
#: Distinct key orders shared at most, and the longest one shared (a hostile file may
#: hold any number of them, of any length: those are not kept past their record).
_MAX_ORDERS, _MAX_SHARED_KEYS = 4096, 64


def shape_of(obj: Mapping[str, Any], cls: type[Record]) -> dict[str, Any]:
    """`extra` and `key_order` of a record read from `obj` (constructor keywords). Key
    orders are shared between records (a session's thousand exchanges have one or two)."""
    order = tuple(obj)
    if len(order) <= _MAX_SHARED_KEYS:
        if len(_ORDERS) < _MAX_ORDERS:
            order = _ORDERS.setdefault(order, order)
        else:
            order = _ORDERS.get(order, order)
    known = known_keys(cls)
    return {"extra": {k: v for k, v in obj.items() if k not in known}, "key_order": order}
