"""Build a real axllm AxAgent from an agent config, a catalog and a context map.

The JSON part of the options (what decides the prompts) is kept separate from the
callables (runtime, observers, host search) so a session can record exactly the former and
a replay can rebuild the same agent around its own callables.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Mapping
from typing import Any

import axllm
from axllm import schema as axllm_schema

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import InputError
from axmem_gui.core.session.agent_config import AgentConfig
from axmem_gui.core.session.map_records import MapSettings
from axmem_gui.core.session.map_settings import applied_to_state
from axmem_gui.core.session.signature import SignatureRefusal
from axmem_gui.engine.axllm_fixes import install_memories_fix
from axmem_gui.engine.cage import CodeCage
from axmem_gui.engine.versions import package_version

OBSERVER_KINDS = ("loaded_skills", "loaded_memories", "used_skills", "used_memories")


def agent_options(
    config: AgentConfig,
    catalog: Catalog,
    context_map: Mapping[str, Any] | str | None,
    settings: MapSettings | None = None,
) -> dict[str, Any]:
    """The JSON-only axllm options for this agent (recorded in the session as is).
    `settings`: the map settings that apply (core.session.map_settings), written into the
    map state carried in; None leaves a state's own settings winning, as axllm does."""
    options: dict[str, Any] = {
        "contextFields": list(config.context_fields),
        "skillsCatalog": [s.to_ax() for s in catalog.skills],
        "memoriesCatalog": [m.to_ax() for m in catalog.memories],
        "directResponse": config.direct_response,
        "relevanceRanking": config.relevance_ranking
        if isinstance(config.relevance_ranking, bool)
        else dict(config.relevance_ranking),
    }
    if config.instruction:
        options["instruction"] = config.instruction
    if config.context_map is not None:
        cm: dict[str, Any] = config.context_map.to_json()
        if isinstance(context_map, Mapping):
            state = copy.deepcopy(dict(context_map))
            cm["map"] = applied_to_state(state, settings) if settings is not None else state
        elif context_map is not None:
            cm["map"] = context_map
        options["contextMap"] = cm
    return options


def forward_options(config: AgentConfig) -> dict[str, Any]:
    return {"max_actor_steps": config.max_actor_steps}


Observer = Callable[[str, Any], None]


def build_agent(
    config: AgentConfig,
    options: Mapping[str, Any],
    *,
    observe: Observer,
    search: Any | None = None,
    cage: CodeCage | None = None,
) -> Any:
    """An AxAgent with a fresh QuickJS runtime in `cage` (default limits when None).
    `observe(kind, payload)` receives every loaded/used callback; `search` (with
    on_skills_search/on_memories_search) answers discover and recall when given."""
    opts = copy.deepcopy(dict(options))
    # axllm fails a turn after a recall that loaded nothing, where Ax goes on.
    install_memories_fix()
    if config.runtime != "quickjs":
        raise InputError(f"runtime '{config.runtime}' is not supported")
    opts["runtime"] = (cage or CodeCage()).runtime()
    for kind in OBSERVER_KINDS:
        # Always installed: a used() callback also switches usage tracking on, so the
        # prompts are the same whether or not anyone listens.
        opts[f"on_{kind}"] = _observer(observe, kind)
    if search is not None:
        if opts.get("skillsCatalog"):
            opts["on_skills_search"] = search.on_skills_search
        if opts.get("memoriesCatalog"):
            opts["on_memories_search"] = search.on_memories_search
    try:
        return axllm.agent(config.signature, opts)
    except (ValueError, TypeError, RuntimeError) as exc:
        raise InputError(f"agent '{config.name}': axllm cannot build it: {exc}") from None


class _SignatureOnlyRuntime:
    """A code runtime that never runs: enough for axllm to build an agent and judge its
    signature, without starting QuickJS."""

    language = "JavaScript"

    def get_usage_instructions(self) -> str:
        return ""

    def create_session(self, globals: Any, options: Any = None) -> None:
        raise RuntimeError("a signature check runs no code")


def axllm_signature_refusal(signature: str) -> SignatureRefusal | None:
    """axllm's verdict on an agent signature (it builds the agent as a live run does):
    None when it accepts it, else its own error."""
    runtime = f"axllm {package_version('axllm')}"
    try:
        axllm.agent(signature, {"runtime": _SignatureOnlyRuntime()})
    except Exception as exc:  # axllm raises its own error types, ValueError and TypeError
        return SignatureRefusal(runtime, f"{type(exc).__name__}: {exc}")
    return None


#: Input types whose values are JSON strings (a case edits them as text).
TEXT_TYPES = frozenset({"string", "date", "datetime", "url"})


@functools.lru_cache(maxsize=16)
def _input_fields(signature: str) -> tuple[Any, ...] | None:
    """axllm's parse of the inputs, once per signature (a set's check asks for every
    case, and the case editor at every save)."""
    try:
        return tuple(axllm.AxSignature(signature).get_input_fields())  # type: ignore[no-untyped-call]
    except Exception:  # a signature axllm refuses: `axllm_signature_refusal` says why
        return None


def axllm_input_kinds(signature: str) -> dict[str, tuple[bool, bool]]:
    """Each input: (its value is not text — a number, boolean, list or JSON — so an eval
    case's editor offers it as JSON; it is optional)."""
    return {
        f.name: (
            f.type is not None and (f.type.is_array or f.type.name not in TEXT_TYPES),
            bool(getattr(f, "is_optional", False)),
        )
        for f in _input_fields(signature) or ()
    }


def axllm_input_problem(signature: str, inputs: Mapping[str, Any]) -> str | None:
    """What axllm says of `inputs` for an agent with `signature`, the check a forward makes
    before anything runs (a missing value, a string where a number is wanted), or None."""
    fields = _input_fields(signature)
    if fields is None:
        return None
    try:
        axllm_schema.validate_fields(list(fields), dict(inputs), "input")
    except Exception as exc:  # axllm's AxValidationError
        return str(exc).removeprefix("Validation failed: ")
    return None


def _observer(observe: Observer, kind: str) -> Callable[[Any], None]:
    def callback(payload: Any) -> None:
        observe(kind, copy.deepcopy(payload))

    return callback
