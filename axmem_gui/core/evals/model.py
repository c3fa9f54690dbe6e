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

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from axmem_gui.core import jsontext
from axmem_gui.core.catalog import CATALOG_KINDS, singular
from axmem_gui.core.errors import InputError
from axmem_gui.core.jsontext import Field

DEFAULT_REPEAT = 3
DEFAULT_THRESHOLD = 1.0
#: A run is one agent session; more than this per case is a typo, not a plan.
MAX_REPEAT = 100



@dataclass(frozen=True, slots=True)
class Expectation:
    """Entries that must be loaded in a run, and entries that must not be."""

    load: tuple[str, ...] = ()
    avoid: tuple[str, ...] = ()

    def to_json(self) -> dict[str, list[str]]:
        return {"load": list(self.load), "avoid": list(self.avoid)}

    @property
    def empty(self) -> bool:
        return not self.load and not self.avoid


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
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


_ID = Field((str,), non_empty=True)
_IDS = Field((list,), default=[], nullable=True, items=_ID)
_EXPECT = {"load": _IDS, "avoid": _IDS}
_REPEAT = Field((int,), minimum=1, maximum=MAX_REPEAT)
_THRESHOLD = Field((int, float), minimum=0, maximum=1)
_CASE = {
    "name": jsontext.NAME,
    "inputs": Field((dict,), non_empty=True),
    "skills": Field((dict,), default=None, nullable=True),
    "memories": Field((dict,), default=None, nullable=True),
    "repeat": replace(_REPEAT, default=None, nullable=True),
    "threshold": replace(_THRESHOLD, default=None, nullable=True),
    "note": Field((str,), default=""),
}
_SET = {
    "name": jsontext.NAME,
    "agent": Field((str,), non_empty=True),
    "description": Field((str,), default=""),
    "repeat": replace(_REPEAT, default=DEFAULT_REPEAT),
    "threshold": replace(_THRESHOLD, default=DEFAULT_THRESHOLD),
    "cases": Field((list,), non_empty=True),
}


def _expectation(raw: Any, kind: str, where: str) -> Expectation:
    """`{"load": [...], "avoid": [...]}`; a misspelt "avoid" would make a case pass
    vacuously, so unknown fields are refused."""
    if raw is None:
        return Expectation()
    where = f"{where}: {kind}"
    f = jsontext.read_object(raw, where, "an expectation", _EXPECT)
    expectation = Expectation(tuple(dict.fromkeys(f["load"])), tuple(dict.fromkeys(f["avoid"])))
    both = sorted(set(expectation.load) & set(expectation.avoid))
    if both:
        raise InputError(f"{where}: id '{both[0]}' is in both 'load' and 'avoid'")
    return expectation


def case_from_json_value(obj: Any, where: str) -> EvalCase:
    name = jsontext.name_of(obj, where)
    if name:
        where = f"{where} ({name})"
    f = jsontext.read_object(obj, where, "a case", _CASE)
    skills = _expectation(f["skills"], "skills", where)
    memories = _expectation(f["memories"], "memories", where)
    if skills.empty and memories.empty:
        raise InputError(f"{where}: a case needs at least one skill or memory id to load or avoid")
    threshold = f["threshold"]
    return EvalCase(
        name=name,
        inputs=dict(f["inputs"]),
        skills=skills,
        memories=memories,
        repeat=f["repeat"],
        threshold=None if threshold is None else float(threshold),
        note=f["note"],
    )


def eval_set_from_json_value(value: Any, source: str = "eval set") -> EvalSet:
    name = jsontext.name_of(value, source)
    where = f"{source}: eval set '{name}'" if name else source
    f = jsontext.read_object(value, where, "an eval set", _SET)
    cases = [case_from_json_value(c, f"{where}: cases[{i}]") for i, c in enumerate(f["cases"])]
    jsontext.check_unique_names(cases, where, "cases", "case")
    return EvalSet(
        name=name,
        agent=f["agent"],
        cases=tuple(cases),
        description=f["description"],
        repeat=f["repeat"],
        threshold=float(f["threshold"]),
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


def eval_sets_from_json_text(text: str, source: str = "eval sets") -> list[EvalSet]:
    return eval_sets_from_json_value(jsontext.loads(text, source), source)


def eval_sets_to_json_text(sets: Sequence[EvalSet]) -> str:
    return jsontext.named_items_text(sets)


def check_against(
    eval_set: EvalSet,
    input_fields: Sequence[str],
    skill_ids: Sequence[str],
    memory_ids: Sequence[str],
    optional: Collection[str] = (),
) -> list[str]:
    """Problems that make a set unrunnable or meaningless for this agent and catalog:
    missing input values (an `optional` one may be left out), ids the catalog does not
    have (a typo never triggers)."""
    problems: list[str] = []
    known = {"skills": set(skill_ids), "memories": set(memory_ids)}
    for case in eval_set.cases:
        missing = [f for f in input_fields if f not in case.inputs and f not in optional]
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
