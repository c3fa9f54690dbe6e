"""The context map's records in a session (docs/axsession-format.md): what a forward's
map update did (`MapUpdate`), the map states of `contextMapSnapshots` (`MapSnapshot`), a
map's settings and the recorded rule that chose which ones applied (`MapSettings`,
`MapSettingsRule`; core/session/map_settings.py applies the rule). Part of the typed
session (core/session/model.py); the map states themselves stay axllm's JSON."""

from __future__ import annotations

from dataclasses import dataclass, field

from axmem_gui.core.records import JsonObject, JsonValue, Record, key, optional

#: The keys an update record has had since evictions were recorded (older files lack them).
EVICTION_KEYS = ("evicted", "added_evicted", "budget")


@dataclass(frozen=True, slots=True, kw_only=True)
class MapUpdate(Record):
    """What a forward's context-map update did (`context_map_update`, derived). The
    Distiller's and Cartographer's replies (`diagnosis`, `item_tags`, `cache_candidates`,
    `operations`) are the model's JSON."""

    status: str | None = None  # updated | unchanged | skipped | failed | none
    step: JsonValue = field(default=None, metadata=optional())
    diagnosis: JsonValue = field(default=None, metadata=optional())
    item_tags: JsonValue = field(default=None, metadata=optional())
    cache_candidates: JsonValue = field(default=None, metadata=optional())
    operations: JsonValue = field(default=None, metadata=optional())
    distiller_call: int | None = field(default=None, metadata=optional())
    cartographer_call: int | None = field(default=None, metadata=optional())
    added: tuple[str, ...] | None = field(default=None, metadata=optional())
    removed: tuple[str, ...] | None = field(default=None, metadata=optional())
    changed: tuple[str, ...] | None = field(default=None, metadata=optional())
    scores: JsonObject | None = field(default=None, metadata=optional())
    errors: tuple[str, ...] | None = field(default=None, metadata=optional())
    evicted: tuple[str, ...] | None = field(default=None, metadata=optional())
    added_evicted: tuple[str, ...] | None = field(default=None, metadata=optional())
    budget: JsonObject | None = field(default=None, metadata=optional())

    @property
    def records_evictions(self) -> bool:
        """False for a record written before evictions were recorded."""
        return any(self.has_key(k) for k in EVICTION_KEYS)


@dataclass(frozen=True, slots=True, kw_only=True)
class MapSnapshot(Record):
    """An entry of `contextMapSnapshots`: a map state and the update that made it (none
    for the map before the first forward)."""

    label: str
    state: JsonObject
    update: MapUpdate | None = field(default=None, metadata=optional())


@dataclass(frozen=True, slots=True, kw_only=True)
class MapSettings(Record):
    """A context map's settings (the agent's `contextMap`, a map state's own keys)."""

    max_chars: int | None = field(default=None, metadata=key("maxChars", optional=True))
    infinite_evolve: bool | None = field(
        default=None, metadata=key("infiniteEvolve", optional=True)
    )
    evolve_steps: int | None = field(default=None, metadata=key("evolveSteps", optional=True))


#: `context_map_settings.rule`: whose settings a map carried into the run follows.
AGENT_RULE, CARRIED_RULE = "agent", "carried"
MAP_RULES = (AGENT_RULE, CARRIED_RULE)


@dataclass(frozen=True, slots=True, kw_only=True)
class MapSettingsRule(Record):
    """Which map settings applied (`context_map_settings`, version 2): the agent's
    (`rule: agent`), or the ones the map the run started from carried (`rule: carried`).
    `carried` is what that map said (None: the run started without one, or from text);
    `effective` is derived from the rule, the agent's `contextMap` and `carried`."""

    rule: str
    effective: MapSettings
    carried: MapSettings | None = None
