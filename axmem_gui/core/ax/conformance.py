"""Run a conformance case file (the format of the golden `cases.json`) through our engine
and produce the structure of the golden `expected.json`.

Everything is computed from the cases and the profile; nothing is looked up in expected
data, so the same code answers cases it has never seen.
"""

from __future__ import annotations

from typing import Any

from axmem_gui.core.ax.collation import locale_sorted
from axmem_gui.core.ax.profile import AxProfile
from axmem_gui.core.ax.scenario import Scenario, scenario_catalog_json
from axmem_gui.core.ax.simulate import simulate
from axmem_gui.core.ax.tokenize import Tokenizer
from axmem_gui.core.errors import InputError
from axmem_gui.core.formats import catalog_from_json_value
from axmem_gui.core.jsontext import type_name


def _string_list(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(f"{where} must be a list of strings")
    return value


def run_case(case: Any, profile: AxProfile, source: str) -> dict[str, Any]:
    if not isinstance(case, dict):
        raise InputError(f"{source}: a case must be an object, got {type(case).__name__}")
    catalog = catalog_from_json_value(scenario_catalog_json(case), source)
    scenario = Scenario.from_json(case, source)
    result = simulate(catalog, scenario, profile)
    return {
        "id": case.get("id"),
        "endToEnd": result.end_to_end_json(),
        "internals": result.internals_json(),
    }


def run_cases(value: Any, profile: AxProfile, source: str = "cases") -> dict[str, Any]:
    """`{tokenizer, collation, cases}` in -> expected.json-shaped dict out."""
    if not isinstance(value, dict):
        raise InputError(f"{source}: expected an object with 'cases', got {type_name(value)}")
    if not {"cases", "tokenizer", "collation"} & value.keys():
        looks = (
            " (it looks like an Ax catalog)"
            if {"skillsCatalog", "memoriesCatalog", "skills", "memories"} & value.keys()
            else ""
        )
        raise InputError(
            f"{source}: not a conformance case file: it has none of 'cases', 'tokenizer', "
            f"'collation'{looks}"
        )
    tokenizer = Tokenizer(profile)
    out: dict[str, Any] = {"package": profile.package, "stopwords": _profile_stopwords(profile)}
    probes = value.get("tokenizer") or {}
    if not isinstance(probes, dict):
        raise InputError(f"{source}: 'tokenizer' must be an object")
    out["tokenizer"] = {
        "text": [
            {"input": text, "tokens": tokenizer.prose(text)}
            for text in _string_list(probes.get("text", []), f"{source}: tokenizer.text")
        ],
        "identifier": [
            {"input": text, "tokens": tokenizer.identifier(text)}
            for text in _string_list(
                probes.get("identifier", []), f"{source}: tokenizer.identifier"
            )
        ],
    }
    collation = value.get("collation") or []
    if not isinstance(collation, list):
        raise InputError(f"{source}: 'collation' must be a list of string lists")
    out["collation"] = [
        locale_sorted(_string_list(group, f"{source}: collation[{i}]"), key=str)
        for i, group in enumerate(collation)
    ]
    cases = value.get("cases") or []
    if not isinstance(cases, list):
        raise InputError(f"{source}: 'cases' must be a list")
    out["cases"] = [
        run_case(case, profile, f"{source}: cases[{i}]") for i, case in enumerate(cases)
    ]
    return out


def _profile_stopwords(profile: AxProfile) -> list[str]:
    listed = profile.raw.get("stopwords")
    return list(listed) if isinstance(listed, list) else sorted(profile.stopwords)
