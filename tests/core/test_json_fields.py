"""One field schema (jsontext.Field) for every file format: the same problem reads the same
in a catalog, a suite, an eval set, an agent config, a session and a context-map state."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from axmem_gui.core.contextmap.state import stored_map_from_json_value
from axmem_gui.core.errors import InputError
from axmem_gui.core.evals.model import eval_set_from_json_value
from axmem_gui.core.formats import catalog_from_json_value, read_ax_json
from axmem_gui.core.jsontext import Field, check_field, check_value, read_object
from axmem_gui.core.session.agent_config import agent_config_from_json
from axmem_gui.core.suites import suites_from_json_value

CASE = {"name": "c", "kind": "discover", "searches": ["x"], "mustInclude": ["a"]}
EVAL_CASE = {"name": "c", "inputs": {"q": "x"}, "skills": {"load": ["a"]}}


def _message(read: Callable[[Any], object], value: Any) -> str:
    with pytest.raises(InputError) as err:
        read(value)
    return str(err.value)


def _import_message(value: Any) -> str:
    import json

    (problem,) = read_ax_json(json.dumps(value), "f.json").errors
    return str(problem)


READERS: dict[str, tuple[Callable[[Any], object], Callable[[str, Any], Any]]] = {
    "catalog": (
        lambda v: catalog_from_json_value(v, "f.json"),
        lambda k, bad: {"skills": [{"id": "a", "name": "A", "content": "", **{k: bad}}]},
    ),
    "import": (
        _import_message,
        lambda k, bad: {"skills": [{"id": "a", "name": "A", "content": "", **{k: bad}}]},
    ),
    "suite": (
        lambda v: suites_from_json_value(v, "f.json"),
        lambda k, bad: {"name": "s", "cases": [{**CASE, **{k: bad}}]},
    ),
    "eval set": (
        lambda v: eval_set_from_json_value(v, "f.json"),
        lambda k, bad: {"name": "e", "agent": "g", "cases": [{**EVAL_CASE, **{k: bad}}]},
    ),
    "agent": (
        lambda v: agent_config_from_json(v, "f.json"),
        lambda k, bad: {"name": "g", "signature": "q:string -> a:string", **{k: bad}},
    ),
    "context map": (
        lambda v: stored_map_from_json_value(v, "f.json"),
        lambda k, bad: {"text": "", **{k: bad}},
    ),
}
#: A string field each format has, to make wrong.
STRING_FIELD = {
    "catalog": "name",
    "import": "name",
    "suite": "note",
    "eval set": "note",
    "agent": "instruction",
    "context map": "text",
}


@pytest.mark.parametrize("fmt", list(READERS))
def test_a_wrong_type_reads_the_same_in_every_format(fmt: str) -> None:
    read, build = READERS[fmt]
    key = STRING_FIELD[fmt]
    value = build(key, 5)
    message = read(value) if fmt == "import" else _message(read, value)
    assert isinstance(message, str)
    assert message.startswith(("f.json: ", "f.json 'g': "))
    assert message.endswith(f"field '{key}' must be a string, got a number")


@pytest.mark.parametrize(
    ("read", "value"),
    [
        (lambda v: catalog_from_json_value(v, "f.json"), {"skills": [{"id": "a", "name": "A"}]}),
        (lambda v: suites_from_json_value(v, "f.json"), {"cases": []}),
        (lambda v: eval_set_from_json_value(v, "f.json"), {"agent": "g", "cases": []}),
        (lambda v: agent_config_from_json(v, "f.json"), {"signature": "q:string -> a:string"}),
        (lambda v: stored_map_from_json_value(v, "f.json"), {"steps": 1}),
    ],
)
def test_a_missing_field_reads_the_same_in_every_format(
    read: Callable[[Any], object], value: Any
) -> None:
    assert re.fullmatch(r"f\.json: (.+: )?field '\w+' is missing", _message(read, value))


def test_the_schema_words_ranges_choices_and_items() -> None:
    steps = Field((int,), minimum=1, maximum=100)
    with pytest.raises(InputError, match=r"^w: field 'n' must be an integer from 1 to 100, got 0$"):
        check_value(0, "w", "n", steps)
    with pytest.raises(InputError, match=r"must be an integer from 1 to 100, got a boolean$"):
        check_value(True, "w", "n", steps)
    with pytest.raises(InputError, match=r"must be 'a' or 'b', got 'c'$"):
        check_value("c", "w", "k", Field((str,), choices=("a", "b")))
    ids = Field((list,), items=Field((str,), non_empty=True))
    with pytest.raises(InputError, match=r"^w: field 'ids\[1\]' must be a non-empty string"):
        check_value(["x", " "], "w", "ids", ids)
    with pytest.raises(InputError, match=r"must be at most 9007199254740991 in size"):
        check_value(2**60, "w", "n", Field((int,)))
    assert check_value(4000.0, "w", "n", Field((int,), whole=True)) == 4000
    spec = Field((int,), default=3, nullable=True, aliases=("max_n",))
    assert check_field({"max_n": 7}, "maxN", "w", spec) == 7
    assert check_field({"maxN": None}, "maxN", "w", spec) == 3
    assert check_field({}, "maxN", "w", spec) == 3


def test_an_unknown_field_is_named_with_the_allowed_ones() -> None:
    schema = {"name": Field((str,)), "note": Field((str,), default="")}
    with pytest.raises(InputError, match=r"^w: unknown field 'nme' \(allowed: name, note\)$"):
        read_object({"nme": "x"}, "w", "a case", schema)
    with pytest.raises(InputError, match=r"^w: a case must be an object, got a list$"):
        read_object([], "w", "a case", schema)
    assert read_object({"name": "x"}, "w", "a case", schema) == {"name": "x", "note": ""}
