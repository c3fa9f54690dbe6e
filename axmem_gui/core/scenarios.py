"""Workspace scenarios: an Ax scenario (`core/ax/scenario.py`) stored under a name.

The stored JSON is the scenario's own object plus its `name` (the document's key, taken
off before validation and put back first on save). `read_scenario_document` is the one
reader of it and `ScenarioDocument.to_json` the one writer; a stored document that does
not validate (written by another version or program) is still a document: it keeps its
JSON as it was and the reader's message, so it can be shown, renamed, deleted and
brought back unchanged, but not simulated or edited field by field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from axmem_gui.core.ax.jstext import js_to_number
from axmem_gui.core.ax.scenario import Scenario
from axmem_gui.core.errors import InputError


@dataclass(frozen=True, slots=True)
class ScenarioDocument:
    """A named scenario, or (scenario None) the stored JSON it could not be read from
    (`unread`, without its name) and why (`problem`)."""

    name: str
    scenario: Scenario | None
    problem: str = ""
    unread: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        body = self.scenario.to_json() if self.scenario is not None else dict(self.unread)
        return {"name": self.name, **body}

    def renamed(self, name: str) -> ScenarioDocument:
        return replace(self, name=name)

    def with_scenario(self, scenario: Scenario) -> ScenarioDocument:
        return ScenarioDocument(self.name, scenario)


def scenario_from_document(data: Any, source: str = "scenario") -> Scenario:
    """Validate a workspace scenario document (its `name` key is allowed and ignored)."""
    if isinstance(data, dict) and "name" in data:
        name = data["name"]
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"{source}: 'name' must be a non-empty string")
        data = {k: v for k, v in data.items() if k != "name"}
    return Scenario.from_json(data, source)


def read_scenario_document(name: str, data: object, source: str) -> ScenarioDocument:
    """The document stored under `name` (its own `name` key, if any, is the key's)."""
    body = {k: v for k, v in data.items() if k != "name"} if isinstance(data, dict) else {}
    try:
        return ScenarioDocument(name, scenario_from_document(data, source))
    except InputError as exc:
        return ScenarioDocument(name, None, str(exc), body)


def item_id(item: Mapping[str, Any]) -> str | None:
    """The id of a preset skill or preloaded memory (Ax takes them as free objects: the
    scenario keeps each as given, and this is how the studio names one)."""
    value = item.get("id")
    return value if isinstance(value, str) else None


def item_label(item: Mapping[str, Any]) -> str:
    name = item.get("name")
    return f"{item_id(item) or '?'} — {name if isinstance(name, str) else ''}"


#: The `relevanceRanking` options a scenario may set (an object; `true`/`false` set none).
RANKING_KEYS = ("topK", "minScore", "marginRatio", "minDocs")


def ranking_number(ranking: bool | Mapping[str, Any], key: str) -> float | None:
    """A `relevanceRanking` option as Ax reads it: any JSON value converted like
    `Number(value)` ("1" is 1; what is not a number is NaN); None when not set."""
    if not isinstance(ranking, Mapping) or ranking.get(key) is None:
        return None
    return js_to_number(ranking[key])


def new_scenario_document(name: str, task: str = "") -> ScenarioDocument:
    return ScenarioDocument(name, Scenario(task=task, turns=()))


def unique_name(existing: Sequence[str], base: str) -> str:
    """`base`, or `base 2`, `base 3`... whichever is free."""
    taken = set(existing)
    if base not in taken:
        return base
    n = 2
    while f"{base} {n}" in taken:
        n += 1
    return f"{base} {n}"


def check_name(name: str) -> str:
    """A scenario name as typed: trimmed and non-empty (InputError otherwise)."""
    cleaned = name.strip()
    if not cleaned:
        raise InputError("a scenario needs a name")
    return cleaned
