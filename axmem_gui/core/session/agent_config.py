"""Agent configurations: what a live run builds in axllm, as plain JSON data.

The JSON shape (the workspace `agents` documents and `sample/agents.json`):

    {"name": "ops-assistant", "signature": "request:string -> answer:string",
     "instruction": "...", "contextFields": [],
     "catalog": {"skills": "all", "memories": {"tags": ["release"]}},
     "contextMap": {"maxChars": 1600, "infiniteEvolve": true},
     "relevanceRanking": true, "maxActorSteps": 6, "runtime": "quickjs"}

`catalog.skills` / `catalog.memories` is "all", "none" or {"tags": [...]} (an entry is kept
when it has at least one of the tags). `contextMap` may be `null`/absent (no map) or carry
`"enabled": false`. `relevanceRanking` is a bool or Ax's options object.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import InputError
from axmem_gui.core.jsontext import type_name
from axmem_gui.core.session.signature import parse_signature_fields

RUNTIMES = ("quickjs",)
DIRECT_RESPONSE_MODES = ("auto", "off", "on")
#: axllm 25.4.6: an input field named `context` shadows the runtime alias global of the same
#: name and recall() then crashes with "'str' object does not support item assignment".
RESERVED_INPUT_NAMES = {
    "context": "axllm crashes when recall() runs with an input field named 'context' "
    "(it overwrites the runtime's own 'context' global); rename it, e.g. to 'document'",
    "contextMap": "'contextMap' is reserved by Ax for the context map; rename the field",
}
DEFAULT_MAX_ACTOR_STEPS = 6


@dataclass(frozen=True)
class CatalogFilter:
    """Which entries of the workspace catalog an agent gets."""

    mode: str = "all"  # "all" | "none" | "tags"
    tags: tuple[str, ...] = ()

    def keeps(self, entry_tags: tuple[str, ...]) -> bool:
        if self.mode == "all":
            return True
        if self.mode == "none":
            return False
        return any(t in self.tags for t in entry_tags)

    def to_json(self) -> Any:
        if self.mode == "tags":
            return {"tags": list(self.tags)}
        return self.mode


@dataclass(frozen=True)
class ContextMapSettings:
    max_chars: int = 4000
    infinite_evolve: bool = True
    evolve_steps: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"maxChars": self.max_chars, "infiniteEvolve": self.infinite_evolve}
        if self.evolve_steps is not None:
            out["evolveSteps"] = self.evolve_steps
        return out


@dataclass(frozen=True)
class AgentConfig:
    name: str
    signature: str
    instruction: str = ""
    context_fields: tuple[str, ...] = ()
    skills: CatalogFilter = field(default_factory=CatalogFilter)
    memories: CatalogFilter = field(default_factory=CatalogFilter)
    context_map: ContextMapSettings | None = None
    relevance_ranking: bool | Mapping[str, Any] = True
    max_actor_steps: int = DEFAULT_MAX_ACTOR_STEPS
    runtime: str = "quickjs"
    direct_response: str = "auto"

    @property
    def input_fields(self) -> tuple[str, ...]:
        return parse_signature_fields(self.signature).inputs

    @property
    def output_fields(self) -> tuple[str, ...]:
        return parse_signature_fields(self.signature).outputs

    def to_json(self) -> dict[str, Any]:
        relevance: Any = (
            self.relevance_ranking
            if isinstance(self.relevance_ranking, bool)
            else dict(self.relevance_ranking)
        )
        return {
            "name": self.name,
            "signature": self.signature,
            "instruction": self.instruction,
            "contextFields": list(self.context_fields),
            "catalog": {"skills": self.skills.to_json(), "memories": self.memories.to_json()},
            "contextMap": self.context_map.to_json() if self.context_map else None,
            "relevanceRanking": relevance,
            "maxActorSteps": self.max_actor_steps,
            "runtime": self.runtime,
            "directResponse": self.direct_response,
        }


def select_catalog(catalog: Catalog, config: AgentConfig) -> Catalog:
    """The part of the workspace catalog this agent gets, in catalog order."""
    return Catalog(
        skills=tuple(s for s in catalog.skills if config.skills.keeps(s.tags)),
        memories=tuple(m for m in catalog.memories if config.memories.keeps(m.tags)),
    )


# ---------------------------------------------------------------- parsing ---


def _get(obj: Mapping[str, Any], *keys: str) -> Any:
    for key in keys:
        if key in obj:
            return obj[key]
    return None


def _string(value: Any, where: str, key: str, default: str | None = None) -> str:
    if value is None:
        if default is None:
            raise InputError(f"{where}: missing required field '{key}'")
        return default
    if not isinstance(value, str):
        raise InputError(f"{where}: field '{key}' must be a string, got {type_name(value)}")
    return value


def _int(value: Any, where: str, key: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{where}: field '{key}' must be an integer, got {type_name(value)}")
    if value < minimum:
        raise InputError(f"{where}: field '{key}' must be at least {minimum}, got {value}")
    return value


def _filter(value: Any, where: str) -> CatalogFilter:
    if value is None or value == "all":
        return CatalogFilter("all")
    if value == "none":
        return CatalogFilter("none")
    if isinstance(value, dict) and set(value) == {"tags"}:
        tags = value["tags"]
        if isinstance(tags, list) and all(isinstance(t, str) for t in tags):
            return CatalogFilter("tags", tuple(tags))
    raise InputError(f'{where}: must be "all", "none" or {{"tags": ["tag", ...]}}')


def _context_map(value: Any, where: str) -> ContextMapSettings | None:
    if value is None or value is False:
        return None
    if value is True:
        return ContextMapSettings()
    if not isinstance(value, dict):
        raise InputError(f"{where}: must be an object, null or a boolean")
    if value.get("enabled") is False:
        return None
    max_chars = _get(value, "maxChars", "max_chars")
    infinite = _get(value, "infiniteEvolve", "infinite_evolve")
    steps = _get(value, "evolveSteps", "evolve_steps")
    settings = ContextMapSettings(
        max_chars=4000 if max_chars is None else _int(max_chars, where, "maxChars", 1),
        infinite_evolve=True if infinite is None else _bool(infinite, where, "infiniteEvolve"),
        evolve_steps=None if steps is None else _int(steps, where, "evolveSteps", 0),
    )
    if not settings.infinite_evolve and settings.evolve_steps is None:
        raise InputError(
            f"{where}: 'evolveSteps' (a non-negative integer) is required when "
            "'infiniteEvolve' is false"
        )
    return settings


def _bool(value: Any, where: str, key: str) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"{where}: field '{key}' must be true or false")
    return value


def _relevance(value: Any, where: str) -> bool | Mapping[str, Any]:
    if value is None:
        return True
    if isinstance(value, bool):
        return value
    if isinstance(value, dict):
        for key, v in value.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise InputError(f"{where}: relevanceRanking.{key} must be a number")
        return dict(value)
    raise InputError(f"{where}: field 'relevanceRanking' must be a boolean or an object")


def agent_config_from_json(value: Any, source: str = "agent") -> AgentConfig:
    """Validate an agent config object; InputError names the field that is wrong."""
    if not isinstance(value, dict):
        raise InputError(f"{source}: an agent config must be an object, got {type_name(value)}")
    name = _string(value.get("name"), source, "name")
    where = f"{source} '{name}'" if name else source
    signature = _string(value.get("signature"), where, "signature")
    fields = parse_signature_fields(signature, f"{where}: signature")
    for input_name in fields.inputs:
        reason = RESERVED_INPUT_NAMES.get(input_name)
        if reason:
            raise InputError(f"{where}: input field '{input_name}' is not allowed: {reason}")
    raw_ctx = _get(value, "contextFields", "context_fields")
    if raw_ctx is None:
        raw_ctx = []
    if not isinstance(raw_ctx, list) or not all(isinstance(f, str) for f in raw_ctx):
        raise InputError(f"{where}: field 'contextFields' must be a list of strings")
    for f in raw_ctx:
        if f not in fields.inputs:
            raise InputError(
                f"{where}: contextFields names '{f}', which is not an input field of the "
                f"signature (inputs: {', '.join(fields.inputs)})"
            )
    catalog = value.get("catalog")
    if catalog is None:
        catalog = {}
    if not isinstance(catalog, dict):
        raise InputError(f"{where}: field 'catalog' must be an object")
    runtime = _string(value.get("runtime"), where, "runtime", "quickjs")
    if runtime not in RUNTIMES:
        raise InputError(
            f"{where}: runtime '{runtime}' is not supported (supported: {', '.join(RUNTIMES)})"
        )
    direct = _string(
        _get(value, "directResponse", "direct_response"), where, "directResponse", "auto"
    )
    if direct not in DIRECT_RESPONSE_MODES:
        raise InputError(
            f"{where}: directResponse must be one of {', '.join(DIRECT_RESPONSE_MODES)}"
        )
    steps = _get(value, "maxActorSteps", "max_actor_steps")
    return AgentConfig(
        name=name,
        signature=signature,
        instruction=_string(value.get("instruction"), where, "instruction", ""),
        context_fields=tuple(raw_ctx),
        skills=_filter(catalog.get("skills"), f"{where}: catalog.skills"),
        memories=_filter(catalog.get("memories"), f"{where}: catalog.memories"),
        context_map=_context_map(_get(value, "contextMap", "context_map"), f"{where}: contextMap"),
        relevance_ranking=_relevance(value.get("relevanceRanking"), where),
        max_actor_steps=DEFAULT_MAX_ACTOR_STEPS
        if steps is None
        else _int(steps, where, "maxActorSteps", 1),
        runtime=runtime,
        direct_response=direct,
    )


def check_inputs(config: AgentConfig, inputs: Mapping[str, Any], where: str = "inputs") -> None:
    """Every input field of the signature must be given (optional `name?` fields aside)."""
    optional = _optional_inputs(config.signature)
    missing = [f for f in config.input_fields if f not in inputs and f not in optional]
    if missing:
        raise InputError(
            f"{where}: missing value for input field(s) {', '.join(missing)} of agent "
            f"'{config.name}' (signature: {config.signature})"
        )
    unknown = [k for k in inputs if k not in config.input_fields]
    if unknown:
        raise InputError(
            f"{where}: agent '{config.name}' has no input field(s) {', '.join(unknown)} "
            f"(inputs: {', '.join(config.input_fields)})"
        )


def _optional_inputs(signature: str) -> set[str]:
    fields = parse_signature_fields(signature)
    left = signature.split("->", 1)[0]
    return {f for f in fields.inputs if f"{f}?" in left}
