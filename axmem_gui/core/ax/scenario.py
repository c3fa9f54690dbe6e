"""An Ax scenario: what `simulate` (core/ax/simulate.py) replays. The agent's task, its
constructor skills, the forward-time memories, the `relevanceRanking` option and, per
executor turn, the `discover({ skills })` and `recall` calls the model makes; read from its
JSON (a workspace scenario, a golden case) and checked, each problem an InputError naming
the key and its position, and written back.

Conventions of the reference oracle (golden data) that a scenario can override: the
agent signature is `query:string -> answer:string` with the task as `query`; the distiller
forwards with `final('-', {})`, so the executor request is `-`; hints rank the executor's
string inputs joined by a space (`<task> -`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from axmem_gui.core.errors import InputError
from axmem_gui.core.jsontext import type_name

#: The query the golden oracle used when a case has no task (any 4-character text without
#: search terms gives the same result: `taskChars` 6, every hint suppressed).
DEFAULT_TASK = "task"
#: What the oracle's distiller forwarded as `executorRequest` (`final('-', {})`).
DEFAULT_EXECUTOR_REQUEST = "-"

_SCENARIO_KEYS = {
    "task",
    "presetSkills",
    "preloadedMemories",
    "turns",
    "discoverCalls",
    "recallCalls",
    "relevanceRanking",
    "executorRequest",
    "runtime",
    # a golden case is a scenario plus its catalog and labels
    "id",
    "note",
    "skills",
    "memories",
    "skillsCatalog",
    "memoriesCatalog",
}


SearchArg = str | tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ScenarioTurn:
    """The calls the model makes in one executor turn (None: no such call)."""

    discover: SearchArg | None = None
    recall: SearchArg | None = None

    def to_json(self) -> dict[str, Any]:
        return {"discover": arg_json(self.discover), "recall": arg_json(self.recall)}


def arg_json(arg: SearchArg | None) -> Any:
    """A call's argument as its JSON (a list of strings, a string or null)."""
    return list(arg) if isinstance(arg, tuple) else arg


@dataclass(frozen=True, slots=True)
class Scenario:
    task: str | None = None
    preset_skills: tuple[Mapping[str, Any], ...] = ()
    preloaded_memories: tuple[Mapping[str, Any], ...] = ()
    turns: tuple[ScenarioTurn, ...] = ()
    relevance_ranking: bool | Mapping[str, Any] = True
    executor_request: str = DEFAULT_EXECUTOR_REQUEST
    runtime: str = "JavaScript"

    @property
    def query(self) -> str:
        return DEFAULT_TASK if self.task is None else self.task

    def rank_task(self) -> str:
        """The text the executor's hints rank: its string inputs joined by one space."""
        return f"{self.query} {self.executor_request}"

    @classmethod
    def from_json(cls, value: Any, source: str = "scenario") -> Scenario:
        """Validate a scenario object; InputError names the key and position."""
        if not isinstance(value, dict):
            raise InputError(f"{source}: a scenario must be an object, got {type_name(value)}")
        unknown = sorted(set(value) - _SCENARIO_KEYS)
        if unknown:
            raise InputError(f"{source}: unknown key(s) {', '.join(map(repr, unknown))}")
        task = value.get("task")
        if task is not None and not isinstance(task, str):
            raise InputError(f"{source}: 'task' must be a string, got {type(task).__name__}")
        if "turns" in value and ("discoverCalls" in value or "recallCalls" in value):
            raise InputError(f"{source}: give either 'turns' or 'discoverCalls'/'recallCalls'")
        if "turns" in value:
            turns = _turns(value["turns"], source)
        else:
            turns = _turns_from_calls(value.get("discoverCalls"), value.get("recallCalls"), source)
        return cls(
            task=task,
            preset_skills=_objects(value.get("presetSkills"), "presetSkills", source),
            preloaded_memories=_objects(
                value.get("preloadedMemories"), "preloadedMemories", source
            ),
            turns=turns,
            relevance_ranking=_relevance(value.get("relevanceRanking"), source),
            executor_request=_string(value, "executorRequest", DEFAULT_EXECUTOR_REQUEST, source),
            runtime=_string(value, "runtime", "JavaScript", source),
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.task is not None:
            out["task"] = self.task
        out["presetSkills"] = [dict(s) for s in self.preset_skills]
        out["preloadedMemories"] = [dict(m) for m in self.preloaded_memories]
        out["turns"] = [t.to_json() for t in self.turns]
        rr = self.relevance_ranking
        out["relevanceRanking"] = dict(rr) if isinstance(rr, Mapping) else rr
        if self.executor_request != DEFAULT_EXECUTOR_REQUEST:
            out["executorRequest"] = self.executor_request
        if self.runtime != "JavaScript":
            out["runtime"] = self.runtime
        return out


def _string(value: Mapping[str, Any], key: str, default: str, source: str) -> str:
    raw = value.get(key)
    if raw is None:
        return default
    if not isinstance(raw, str):
        raise InputError(f"{source}: '{key}' must be a string, got {type(raw).__name__}")
    return raw


def _objects(raw: Any, key: str, source: str) -> tuple[Mapping[str, Any], ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise InputError(f"{source}: '{key}' must be a list, got {type(raw).__name__}")
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            raise InputError(
                f"{source}: {key}[{i}] must be an object, got {type(item).__name__}"
            )
    return tuple(raw)


def _search_arg(raw: Any, where: str) -> SearchArg | None:
    if raw is None or isinstance(raw, str):
        return raw
    if isinstance(raw, list):
        for i, item in enumerate(raw):
            if not isinstance(item, str):
                raise InputError(
                    f"{where}[{i}] must be a string, got {type(item).__name__}"
                )
        return tuple(raw)
    raise InputError(f"{where} must be a string, a list of strings or null")


def _turns(raw: Any, source: str) -> tuple[ScenarioTurn, ...]:
    if not isinstance(raw, list):
        raise InputError(f"{source}: 'turns' must be a list, got {type(raw).__name__}")
    out = []
    for i, turn in enumerate(raw):
        where = f"{source}: turns[{i}]"
        if not isinstance(turn, dict):
            raise InputError(f"{where} must be an object, got {type(turn).__name__}")
        unknown = sorted(set(turn) - {"discover", "recall"})
        if unknown:
            raise InputError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}")
        out.append(
            ScenarioTurn(
                discover=_search_arg(turn.get("discover"), f"{where}.discover"),
                recall=_search_arg(turn.get("recall"), f"{where}.recall"),
            )
        )
    return tuple(out)


def _turns_from_calls(discover: Any, recall: Any, source: str) -> tuple[ScenarioTurn, ...]:
    lists: dict[str, list[SearchArg | None]] = {}
    for key, raw in (("discoverCalls", discover), ("recallCalls", recall)):
        if raw is None:
            lists[key] = []
        elif not isinstance(raw, list):
            raise InputError(f"{source}: '{key}' must be a list, got {type(raw).__name__}")
        else:
            lists[key] = [_search_arg(c, f"{source}: {key}[{i}]") for i, c in enumerate(raw)]
    count = max(len(lists["discoverCalls"]), len(lists["recallCalls"]))
    return tuple(
        ScenarioTurn(
            discover=lists["discoverCalls"][i] if i < len(lists["discoverCalls"]) else None,
            recall=lists["recallCalls"][i] if i < len(lists["recallCalls"]) else None,
        )
        for i in range(count)
    )


def _relevance(raw: Any, source: str) -> bool | Mapping[str, Any]:
    if raw is None:
        return True
    if isinstance(raw, bool):
        return raw
    if not isinstance(raw, dict):
        raise InputError(
            f"{source}: 'relevanceRanking' must be true, false or an object, "
            f"got {type(raw).__name__}"
        )
    # topK/minScore/marginRatio/minDocs may be any JSON value: Ax compares and slices
    # with them, converting like JavaScript (RankOptions.from_js), and never refuses one.
    return dict(raw)


def scenario_catalog_json(value: Mapping[str, Any]) -> dict[str, Sequence[Any]]:
    """The catalog part of a golden case (`skills`/`memories`)."""
    return {"skills": value.get("skills") or [], "memories": value.get("memories") or []}
