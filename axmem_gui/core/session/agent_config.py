"""Agent configurations: what a live run builds in axllm, as plain JSON data.

The JSON shape (the workspace `agents` documents and `sample/agents.json`):

    {"name": "ops-assistant", "signature": "userRequest:string -> answer:string",
     "instruction": "...", "contextFields": [],
     "catalog": {"skills": "all", "memories": {"tags": ["release"]}},
     "contextMap": {"maxChars": 1600, "infiniteEvolve": true},
     "relevanceRanking": true, "maxActorSteps": 6, "runtime": "quickjs"}

`catalog.skills` / `catalog.memories` is "all", "none" or {"tags": [...]} (an entry is kept
when it has at least one of the tags). `contextMap` may be `null`/absent (no map) or carry
`"enabled": false`. `relevanceRanking` is a bool or Ax's options object. Keys this axmem
does not know are kept (`AgentConfig.extra`) and written back after the known ones.

`agent_config_from_json` is the edge parser of this shape (workspace agents, files, the
agent block of a session); everything else reads an `AgentConfig`'s attributes.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from axmem_gui.core import jsontext
from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import InputError
from axmem_gui.core.jsontext import Field
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


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class ContextMapSettings:
    max_chars: int = 4000
    infinite_evolve: bool = True
    evolve_steps: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"maxChars": self.max_chars, "infiniteEvolve": self.infinite_evolve}
        if self.evolve_steps is not None:
            out["evolveSteps"] = self.evolve_steps
        return out


@dataclass(frozen=True, slots=True)
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
    #: Keys this axmem does not know (a newer writer's), kept as they were.
    extra: Mapping[str, Any] = field(default_factory=dict, repr=False)

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
            **self.extra,
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


#: The agent config's fields (camelCase, or the snake_case of the Python port); the
#: catalog filters, context map and relevance ranking take several shapes, read below.
_AGENT = {
    "name": Field((str,)),
    "signature": Field((str,)),
    "instruction": Field((str,), default="", nullable=True),
    "contextFields": Field(
        (list,), default=[], nullable=True, items=Field((str,)), aliases=("context_fields",)
    ),
    "catalog": Field((dict,), default={}, nullable=True),
    "runtime": Field((str,), default="quickjs", nullable=True, choices=RUNTIMES),
    "directResponse": Field(
        (str,),
        default="auto",
        nullable=True,
        choices=DIRECT_RESPONSE_MODES,
        aliases=("direct_response",),
    ),
    "maxActorSteps": Field(
        (int,),
        default=DEFAULT_MAX_ACTOR_STEPS,
        nullable=True,
        minimum=1,
        aliases=("max_actor_steps",),
    ),
}
#: Every key the parser reads (the rest is `extra`).
_KNOWN = frozenset(
    k for key, spec in _AGENT.items() for k in (key, *spec.aliases)
) | {"contextMap", "context_map", "relevanceRanking"}
_CONTEXT_MAP = {
    "maxChars": Field((int,), default=4000, nullable=True, minimum=1, aliases=("max_chars",)),
    "infiniteEvolve": Field(
        (bool,), default=True, nullable=True, aliases=("infinite_evolve",)
    ),
    "evolveSteps": Field((int,), default=None, nullable=True, minimum=0, aliases=("evolve_steps",)),
}


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
    f = jsontext.read_object(value, where, "a context map", _CONTEXT_MAP, closed=False)
    settings = ContextMapSettings(
        max_chars=f["maxChars"], infinite_evolve=f["infiniteEvolve"], evolve_steps=f["evolveSteps"]
    )
    if not settings.infinite_evolve and settings.evolve_steps is None:
        raise InputError(
            f"{where}: 'evolveSteps' (a non-negative integer) is required when "
            "'infiniteEvolve' is false"
        )
    return settings


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
    is_object = isinstance(value, dict)
    name = jsontext.check_field(value, "name", source, _AGENT["name"]) if is_object else ""
    where = f"{source} '{name}'" if name else source
    f = jsontext.read_object(value, where, "an agent config", _AGENT, closed=False)
    signature = f["signature"]
    fields = parse_signature_fields(signature, f"{where}: signature")
    for input_name in fields.inputs:
        reason = RESERVED_INPUT_NAMES.get(input_name)
        if reason:
            raise InputError(f"{where}: input field '{input_name}' is not allowed: {reason}")
    for ctx_field in f["contextFields"]:
        if ctx_field not in fields.inputs:
            raise InputError(
                f"{where}: contextFields names '{ctx_field}', which is not an input field of "
                f"the signature (inputs: {', '.join(fields.inputs)})"
            )
    catalog = f["catalog"]
    return AgentConfig(
        name=name,
        signature=signature,
        instruction=f["instruction"],
        context_fields=tuple(f["contextFields"]),
        skills=_filter(catalog.get("skills"), f"{where}: catalog.skills"),
        memories=_filter(catalog.get("memories"), f"{where}: catalog.memories"),
        context_map=_context_map(_get(value, "contextMap", "context_map"), f"{where}: contextMap"),
        relevance_ranking=_relevance(value.get("relevanceRanking"), where),
        max_actor_steps=f["maxActorSteps"],
        runtime=f["runtime"],
        direct_response=f["directResponse"],
        extra={k: v for k, v in value.items() if k not in _KNOWN},
    )


def agent_config_from_text(text: str, source: str) -> AgentConfig:
    """An agent config from JSON text: the config itself, or a whole `axmem agents show`
    document (`{"name", "revision", "config"}`), so show | edit round-trips."""
    value = jsontext.loads(text, source)  # depth and number limits before parsing
    if isinstance(value, Mapping) and isinstance(value.get("config"), Mapping):
        value = value["config"]
    return agent_config_value(value, source)


def agent_config_value(value: Any, source: str) -> AgentConfig:
    """An agent config read from a parsed JSON value (InputError names what is wrong)."""
    if not isinstance(value, Mapping):
        raise InputError(f"{source}: an agent config must be a JSON object")
    return agent_config_from_json(copy.deepcopy(dict(value)), source)


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
