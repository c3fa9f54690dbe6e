"""Suites from and to their JSON form, with errors that name the place."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from axmem_gui.core import jsontext
from axmem_gui.core.ax.search import (
    DISCOVER,
    RECALL,
    PolicyError,
    normalize_search_input,
)
from axmem_gui.core.errors import InputError
from axmem_gui.core.jsontext import Field
from axmem_gui.core.suites.model import CASE_KINDS, CaseKind, Suite, SuiteCase

_ID = Field((str,), non_empty=True)
_IDS = Field((list,), default=[], nullable=True, items=_ID)
_CASE = {
    "name": jsontext.NAME,
    "kind": Field((str,), choices=CASE_KINDS),
    "searches": Field((list, str)),
    "loaded": _IDS,
    "mustInclude": _IDS,
    "mustExclude": _IDS,
    "k": Field((int,), default=None, nullable=True, minimum=1),
    "note": Field((str,), default=""),
}
_SUITE = {
    "name": jsontext.NAME,
    "description": Field((str,), default=""),
    "cases": Field((list,)),
}


def _searches(raw: Any, kind: str, where: str) -> tuple[str, ...]:
    if isinstance(raw, str):
        raw = [raw]  # one string is one search, as in `discover({ skills: 'x' })`
    jsontext.check_value(raw, where, "searches", Field((list,), non_empty=True))
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
    """Validate one case object; InputError messages name the case and the field.
    Unknown fields are refused: a misspelt 'mustInclude' would make the case pass
    vacuously."""
    name = jsontext.name_of(obj, where)
    if name:
        where = f"{where} ({name})"
    f = jsontext.read_object(obj, where, "a case", _CASE)
    kind = f["kind"]
    searches = _searches(f["searches"], kind, where)
    must_include, must_exclude = tuple(f["mustInclude"]), tuple(f["mustExclude"])
    loaded = tuple(f["loaded"])
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
    return SuiteCase(
        name=name,
        kind=cast(CaseKind, kind),
        searches=searches,
        must_include=must_include,
        must_exclude=must_exclude,
        loaded=loaded,
        k=f["k"],
        note=f["note"],
    )


def suite_from_json_value(value: Any, source: str = "suite") -> Suite:
    name = jsontext.name_of(value, source)
    where = f"{source}: suite '{name}'" if name else source
    f = jsontext.read_object(value, where, "a suite", _SUITE)
    cases = [case_from_json_value(c, f"{where}: cases[{i}]") for i, c in enumerate(f["cases"])]
    jsontext.check_unique_names(cases, where, "cases", "case")
    return Suite(name=name, cases=tuple(cases), description=f["description"])


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


def suites_from_json_text(text: str, source: str = "suites") -> list[Suite]:
    return suites_from_json_value(jsontext.loads(text, source), source)


def suites_to_json_text(suites: Sequence[Suite]) -> str:
    """One suite is written as an object, several as a list (both read back)."""
    return jsontext.named_items_text(suites)
