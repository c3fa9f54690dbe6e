"""Suites from and to their JSON form, with errors that name the place."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from axmem_gui.core import jsontext
from axmem_gui.core.ax.search import (
    DISCOVER,
    RECALL,
    PolicyError,
    normalize_search_input,
)
from axmem_gui.core.errors import InputError
from axmem_gui.core.jsontext import type_name
from axmem_gui.core.jsout import json_dumps
from axmem_gui.core.suites.model import CASE_KINDS, CaseKind, Suite, SuiteCase

_CASE_KEYS = frozenset(
    {"name", "kind", "searches", "loaded", "mustInclude", "mustExclude", "k", "note"}
)

_SUITE_KEYS = frozenset({"name", "description", "cases"})


def _id_list(obj: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    raw = obj.get(key)
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise InputError(f"{where}: field '{key}' must be a list of ids, got {type_name(raw)}")
    for i, item in enumerate(raw):
        if not isinstance(item, str) or not item.strip():
            raise InputError(f"{where}: {key}[{i}] must be a non-empty string")
    return tuple(cast(list[str], raw))


def _searches(obj: Mapping[str, Any], kind: str, where: str) -> tuple[str, ...]:
    raw = obj.get("searches")
    if isinstance(raw, str):
        raw = [raw]  # one string is one search, as in `discover({ skills: 'x' })`
    if not isinstance(raw, list) or not raw:
        raise InputError(f"{where}: field 'searches' must be a non-empty list of strings")
    # Ax refuses the whole call for one blank or non-string entry ([POLICY] error, nothing
    # searched): such a case could never pass, so it is refused with Ax's own words.
    primitive = DISCOVER if kind == "discover" else RECALL
    for i, item in enumerate(raw):
        try:
            normalize_search_input([item], primitive)
        except PolicyError as exc:
            raise InputError(f"{where}: searches[{i}] is refused by Ax: {exc}") from None
    return tuple(cast(list[str], raw))


def case_from_json_value(obj: Any, where: str) -> SuiteCase:
    """Validate one case object; InputError messages name the case and the field."""
    if not isinstance(obj, dict):
        raise InputError(f"{where}: a case must be an object, got {type_name(obj)}")
    unknown = sorted(set(obj) - _CASE_KEYS)
    if unknown:
        # A misspelt 'mustInclude' would make the case pass vacuously: refuse it.
        raise InputError(
            f"{where}: unknown field '{unknown[0]}' (allowed: {', '.join(sorted(_CASE_KEYS))})"
        )
    name = obj.get("name")
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"{where}: field 'name' must be a non-empty string")
    where = f"{where} ({name})"
    kind = obj.get("kind")
    if kind not in CASE_KINDS:
        raise InputError(f"{where}: field 'kind' must be 'discover' or 'recall', got {kind!r}")
    searches = _searches(obj, str(kind), where)
    must_include = _id_list(obj, "mustInclude", where)
    must_exclude = _id_list(obj, "mustExclude", where)
    loaded = _id_list(obj, "loaded", where)
    if loaded and kind == "discover":
        raise InputError(
            f"{where}: field 'loaded' only applies to recall cases "
            "(discover does not skip loaded skills)"
        )
    if not must_include and not must_exclude:
        raise InputError(f"{where}: a case needs at least one id in mustInclude or mustExclude")
    both = sorted(set(must_include) & set(must_exclude))
    if both:
        raise InputError(f"{where}: id '{both[0]}' is in both mustInclude and mustExclude")
    k = obj.get("k")
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        raise InputError(f"{where}: field 'k' must be a positive integer, got {k!r}")
    note = obj.get("note", "")
    if not isinstance(note, str):
        raise InputError(f"{where}: field 'note' must be a string")
    return SuiteCase(
        name=name,
        kind=cast(CaseKind, kind),
        searches=searches,
        must_include=must_include,
        must_exclude=must_exclude,
        loaded=loaded,
        k=k,
        note=note,
    )


def suite_from_json_value(value: Any, source: str = "suite") -> Suite:
    if not isinstance(value, dict):
        raise InputError(f"{source}: a suite must be an object, got {type_name(value)}")
    unknown = sorted(set(value) - _SUITE_KEYS)
    if unknown:
        raise InputError(
            f"{source}: unknown field '{unknown[0]}' (allowed: cases, description, name)"
        )
    name = value.get("name")
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"{source}: field 'name' must be a non-empty string")
    description = value.get("description", "")
    if not isinstance(description, str):
        raise InputError(f"{source}: suite '{name}': field 'description' must be a string")
    raw_cases = value.get("cases")
    if not isinstance(raw_cases, list):
        raise InputError(f"{source}: suite '{name}': field 'cases' must be a list")
    cases = [
        case_from_json_value(c, f"{source}: suite '{name}': cases[{i}]")
        for i, c in enumerate(raw_cases)
    ]
    seen: set[str] = set()
    for i, case in enumerate(cases):
        if case.name in seen:
            raise InputError(
                f"{source}: suite '{name}': cases[{i}]: duplicate case name '{case.name}'"
            )
        seen.add(case.name)
    return Suite(name=name, cases=tuple(cases), description=description)


def suites_from_json_value(value: Any, source: str = "suites") -> list[Suite]:
    """Accept one suite object, a list of suites, or `{"suites": [...]}`."""
    return jsontext.named_items(
        value,
        source,
        suite_from_json_value,
        key="suites",
        expected="a suite object or a list of suites",
        noun="suite",
    )


def json_text_value(text: str, source: str) -> Any:
    return jsontext.loads(text, source)


def suites_from_json_text(text: str, source: str = "suites") -> list[Suite]:
    return suites_from_json_value(json_text_value(text, source), source)


def suites_to_json_text(suites: Sequence[Suite]) -> str:
    """One suite is written as an object, several as a list (both read back)."""
    value: Any = suites[0].to_json() if len(suites) == 1 else [s.to_json() for s in suites]
    return json_dumps(value, indent=2) + "\n"
