"""Trigger eval sets: user requests and which skills and memories the agent should load.

A trigger eval asks the question before a retrieval suite: given this user request, does
the *model* call `discover` / `recall` with strings that load the right entries? A set
names a workspace agent; each case is one request (the agent's input values) with the
skills and memories that must be loaded and those that must not, how many times to run
it, and the share of runs that must get it right.

JSON shape (the workspace `evals` documents, `axmem eval add/show`):

    {"name": "ops-triggers", "agent": "ops-assistant", "description": "...",
     "repeat": 3, "threshold": 0.67,
     "cases": [{"name": "ship a release",
                "inputs": {"request": "How do I ship a new release?"},
                "skills": {"load": ["release-checklist"], "avoid": ["style-guide"]},
                "memories": {"load": ["release-owner"], "avoid": []},
                "repeat": 5, "threshold": 0.8, "note": "..."}]}

`repeat` and `threshold` of a case default to the set's (3 and 1.0 when the set says
nothing). Pure: no IO.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from axmem_gui.core import jsontext
from axmem_gui.core.catalog import CATALOG_KINDS, singular
from axmem_gui.core.errors import InputError
from axmem_gui.core.jsontext import type_name
from axmem_gui.core.jsout import json_dumps

DEFAULT_REPEAT = 3
DEFAULT_THRESHOLD = 1.0
#: A run is one agent session; more than this per case is a typo, not a plan.
MAX_REPEAT = 100

_SET_KEYS = frozenset({"name", "agent", "description", "repeat", "threshold", "cases"})
_CASE_KEYS = frozenset({"name", "inputs", "skills", "memories", "repeat", "threshold", "note"})
_EXPECT_KEYS = frozenset({"load", "avoid"})


@dataclass(frozen=True)
class Expectation:
    """Entries that must be loaded in a run, and entries that must not be."""

    load: tuple[str, ...] = ()
    avoid: tuple[str, ...] = ()

    def to_json(self) -> dict[str, list[str]]:
        return {"load": list(self.load), "avoid": list(self.avoid)}

    @property
    def empty(self) -> bool:
        return not self.load and not self.avoid


@dataclass(frozen=True)
class EvalCase:
    name: str
    inputs: Mapping[str, Any]
    skills: Expectation = field(default_factory=Expectation)
    memories: Expectation = field(default_factory=Expectation)
    repeat: int | None = None
    threshold: float | None = None
    note: str = ""

    def expectation(self, kind: str) -> Expectation:
        return self.skills if kind == "skills" else self.memories

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "inputs": dict(self.inputs),
            "skills": self.skills.to_json(),
            "memories": self.memories.to_json(),
        }
        if self.repeat is not None:
            out["repeat"] = self.repeat
        if self.threshold is not None:
            out["threshold"] = self.threshold
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class EvalSet:
    name: str
    agent: str
    cases: tuple[EvalCase, ...]
    description: str = ""
    repeat: int = DEFAULT_REPEAT
    threshold: float = DEFAULT_THRESHOLD

    def case(self, name: str) -> EvalCase | None:
        return next((c for c in self.cases if c.name == name), None)

    def repeat_of(self, case: EvalCase, override: int | None = None) -> int:
        """Runs planned for a case: an override (`--repeat N`) beats the case and the set."""
        if override is not None:
            return override
        return case.repeat if case.repeat is not None else self.repeat

    def threshold_of(self, case: EvalCase) -> float:
        return case.threshold if case.threshold is not None else self.threshold

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "agent": self.agent}
        if self.description:
            out["description"] = self.description
        out["repeat"] = self.repeat
        out["threshold"] = self.threshold
        out["cases"] = [c.to_json() for c in self.cases]
        return out


# --------------------------------------------------------------------------- parsing


def _unknown(obj: Mapping[str, Any], allowed: frozenset[str], where: str) -> None:
    unknown = sorted(set(obj) - allowed)
    if unknown:
        # A misspelt "avoid" would make a case pass vacuously: refuse it.
        raise InputError(
            f"{where}: unknown field '{unknown[0]}' (allowed: {', '.join(sorted(allowed))})"
        )


def _repeat(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_REPEAT:
        raise InputError(
            f"{where}: field 'repeat' must be an integer from 1 to {MAX_REPEAT}, got {value!r}"
        )
    return value


def _threshold(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise InputError(f"{where}: field 'threshold' must be a number from 0 to 1, got {value!r}")
    return float(value)


def _ids(obj: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    raw = obj.get(key, [])
    if not isinstance(raw, list):
        raise InputError(f"{where}: field '{key}' must be a list of ids, got {type_name(raw)}")
    for i, item in enumerate(raw):
        if not isinstance(item, str) or not item.strip():
            raise InputError(f"{where}: {key}[{i}] must be a non-empty string")
    return tuple(dict.fromkeys(raw))


def _expectation(obj: Mapping[str, Any], kind: str, where: str) -> Expectation:
    raw = obj.get(kind)
    if raw is None:
        return Expectation()
    where = f"{where}: {kind}"
    if not isinstance(raw, dict):
        raise InputError(f"{where}: must be an object with 'load' and 'avoid' lists")
    _unknown(raw, _EXPECT_KEYS, where)
    expectation = Expectation(_ids(raw, "load", where), _ids(raw, "avoid", where))
    both = sorted(set(expectation.load) & set(expectation.avoid))
    if both:
        raise InputError(f"{where}: id '{both[0]}' is in both 'load' and 'avoid'")
    return expectation


def case_from_json_value(obj: Any, where: str) -> EvalCase:
    if not isinstance(obj, dict):
        raise InputError(f"{where}: a case must be an object, got {type_name(obj)}")
    _unknown(obj, _CASE_KEYS, where)
    name = obj.get("name")
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"{where}: field 'name' must be a non-empty string")
    where = f"{where} ({name})"
    inputs = obj.get("inputs")
    if not isinstance(inputs, dict) or not inputs:
        raise InputError(f"{where}: field 'inputs' must be an object of the agent's input values")
    skills = _expectation(obj, "skills", where)
    memories = _expectation(obj, "memories", where)
    if skills.empty and memories.empty:
        raise InputError(f"{where}: a case needs at least one skill or memory id to load or avoid")
    note = obj.get("note", "")
    if not isinstance(note, str):
        raise InputError(f"{where}: field 'note' must be a string")
    return EvalCase(
        name=name,
        inputs=dict(inputs),
        skills=skills,
        memories=memories,
        repeat=None if obj.get("repeat") is None else _repeat(obj["repeat"], where),
        threshold=None if obj.get("threshold") is None else _threshold(obj["threshold"], where),
        note=note,
    )


def eval_set_from_json_value(value: Any, source: str = "eval set") -> EvalSet:
    if not isinstance(value, dict):
        raise InputError(f"{source}: an eval set must be an object, got {type_name(value)}")
    _unknown(value, _SET_KEYS, source)
    name = value.get("name")
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"{source}: field 'name' must be a non-empty string")
    where = f"{source}: eval set '{name}'"
    agent = value.get("agent")
    if not isinstance(agent, str) or not agent.strip():
        raise InputError(f"{where}: field 'agent' must name a workspace agent")
    description = value.get("description", "")
    if not isinstance(description, str):
        raise InputError(f"{where}: field 'description' must be a string")
    raw_cases = value.get("cases")
    if not isinstance(raw_cases, list) or not raw_cases:
        raise InputError(f"{where}: field 'cases' must be a non-empty list")
    cases = [case_from_json_value(c, f"{where}: cases[{i}]") for i, c in enumerate(raw_cases)]
    seen: set[str] = set()
    for i, case in enumerate(cases):
        if case.name in seen:
            raise InputError(f"{where}: cases[{i}]: duplicate case name '{case.name}'")
        seen.add(case.name)
    return EvalSet(
        name=name,
        agent=agent,
        cases=tuple(cases),
        description=description,
        repeat=_repeat(value.get("repeat", DEFAULT_REPEAT), where),
        threshold=_threshold(value.get("threshold", DEFAULT_THRESHOLD), where),
    )


def eval_sets_from_json_value(value: Any, source: str = "eval sets") -> list[EvalSet]:
    """One set object, a list of sets, or `{"evals": [...]}`."""
    return jsontext.named_items(
        value,
        source,
        eval_set_from_json_value,
        key="evals",
        expected="an eval set or a list of them",
        noun="eval set",
    )


def loads_json(text: str, source: str) -> Any:
    """The one JSON reader's rules: depth and number limits checked before parsing."""
    return jsontext.loads(text, source)


def eval_sets_from_json_text(text: str, source: str = "eval sets") -> list[EvalSet]:
    return eval_sets_from_json_value(loads_json(text, source), source)


def eval_sets_to_json_text(sets: Sequence[EvalSet]) -> str:
    value: Any = sets[0].to_json() if len(sets) == 1 else [s.to_json() for s in sets]
    return json_dumps(value, indent=2) + "\n"


def check_against(
    eval_set: EvalSet,
    input_fields: Sequence[str],
    skill_ids: Sequence[str],
    memory_ids: Sequence[str],
) -> list[str]:
    """Problems that make a set unrunnable or meaningless for this agent and catalog:
    missing input values, ids the catalog does not have (a typo never triggers)."""
    problems: list[str] = []
    known = {"skills": set(skill_ids), "memories": set(memory_ids)}
    for case in eval_set.cases:
        missing = [f for f in input_fields if f not in case.inputs]
        extra = [k for k in case.inputs if k not in input_fields]
        if missing:
            problems.append(f"case '{case.name}': no value for input '{missing[0]}'")
        if extra:
            problems.append(f"case '{case.name}': the agent has no input '{extra[0]}'")
        for kind in CATALOG_KINDS:
            exp = case.expectation(kind)
            for entry_id in (*exp.load, *exp.avoid):
                if entry_id not in known[kind]:
                    problems.append(
                        f"case '{case.name}': no {singular(kind)} '{entry_id}' "
                        "in the agent's catalog"
                    )
    return problems
