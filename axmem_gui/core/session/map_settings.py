"""Which context-map settings a run applies, by an explicit, recorded rule.

A map carried into a run (a stored map, a session's map) holds its own `maxChars`,
`infiniteEvolve` and `evolveSteps`; axllm lets those win over the agent's `contextMap`,
so an agent with `evolveSteps: 3` continuing a map that says 2 skipped its update, and one
with `maxChars: 2000` still evicted to fit the carried 600, without a word. Here the rule
is chosen and written down (`context_map_settings`, docs/axsession-format.md): `agent`
(the default: the agent's settings replace the carried ones) or `carried` (the map keeps
its own). When the carried settings differ from the ones that apply, the session says so
in its `warnings` (the CLI prints them, the viewer's banner shows them). `verify` and
`replay` check the record, and every map state of the session, against the rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from axmem_gui.core.errors import InputError
from axmem_gui.core.session.agent_config import ContextMapSettings
from axmem_gui.core.session.map_records import (
    AGENT_RULE,
    CARRIED_RULE,
    MAP_RULES,
    MapSettings,
    MapSettingsRule,
)
from axmem_gui.core.session.payloads import map_settings_of_state


def agent_settings(config: ContextMapSettings) -> MapSettings:
    """The agent's settings as axllm fills a state with them (no evolveSteps: 0)."""
    return MapSettings(
        max_chars=config.max_chars,
        infinite_evolve=config.infinite_evolve,
        evolve_steps=config.evolve_steps if config.evolve_steps is not None else 0,
    )


def carried_settings(state: Any) -> MapSettings | None:
    """The settings a map state carries (None: no state, or a map given as text)."""
    found = map_settings_of_state(state)
    if found is None:
        return None
    max_chars, infinite, steps = found
    return MapSettings(max_chars=max_chars, infinite_evolve=infinite, evolve_steps=steps)


def effective_settings(
    rule: str, config: ContextMapSettings, carried: MapSettings | None
) -> MapSettings:
    """What applies: the agent's, or (`carried`) the map's own where it has them."""
    mine = agent_settings(config)
    if rule == AGENT_RULE or carried is None:
        return mine
    return MapSettings(
        max_chars=carried.max_chars if carried.max_chars is not None else mine.max_chars,
        infinite_evolve=carried.infinite_evolve
        if carried.infinite_evolve is not None
        else mine.infinite_evolve,
        evolve_steps=carried.evolve_steps
        if carried.evolve_steps is not None
        else mine.evolve_steps,
    )


def settings_rule(rule: str, config: ContextMapSettings, start: Any) -> MapSettingsRule:
    """The record a run writes for the map it starts from (`start`: a state or text)."""
    if rule not in MAP_RULES:
        raise InputError(f"unknown map settings rule {rule!r} (known: {', '.join(MAP_RULES)})")
    carried = carried_settings(start)
    return MapSettingsRule(
        rule=rule, effective=effective_settings(rule, config, carried), carried=carried
    )


def applied_to_state(state: Mapping[str, Any], settings: MapSettings) -> dict[str, Any]:
    """A map state with `settings` written into it (what the run starts from)."""
    out = dict(state)
    out["maxChars"] = settings.max_chars
    out["infiniteEvolve"] = settings.infinite_evolve
    out["evolveSteps"] = settings.evolve_steps
    return out


#: (name in the file and the agent's contextMap, attribute)
_SETTINGS = (
    ("maxChars", "max_chars"),
    ("infiniteEvolve", "infinite_evolve"),
    ("evolveSteps", "evolve_steps"),
)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "—" if value is None else str(value)


def _differing(carried: MapSettings, other: MapSettings) -> tuple[tuple[str, str], ...]:
    """The settings the carried map has that `other` sets otherwise."""
    return tuple(
        (name, attr)
        for name, attr in _SETTINGS
        if getattr(carried, attr) is not None and getattr(carried, attr) != getattr(other, attr)
    )


def _describe(settings: MapSettings, keys: tuple[tuple[str, str], ...]) -> str:
    return ", ".join(f"{name} {_value(getattr(settings, attr))}" for name, attr in keys)


def overridden_settings(record: MapSettingsRule | None, config: ContextMapSettings | None) -> str:
    """Under the rule 'agent': the carried map's settings the agent's replaced, as
    "maxChars 600 -> 1500, evolveSteps 2 -> 0" ("" when none differed)."""
    if record is None or record.rule == CARRIED_RULE or record.carried is None or config is None:
        return ""
    mine = agent_settings(config)
    keys = _differing(record.carried, mine)
    return ", ".join(
        f"{name} {_value(getattr(record.carried, attr))} -> {_value(getattr(mine, attr))}"
        for name, attr in keys
    )


def settings_warnings(
    record: MapSettingsRule | None, config: ContextMapSettings | None
) -> list[str]:
    """The warning a session gives when the map it started from carried settings other
    than the agent's: which applied, by which rule (empty when they agree, or no map with
    settings was carried)."""
    if record is None or record.carried is None or config is None:
        return []
    mine = agent_settings(config)
    keys = _differing(record.carried, mine)
    if not keys:
        return []
    said, agents = _describe(record.carried, keys), _describe(mine, keys)
    if record.rule == CARRIED_RULE:
        return [
            f"the context map the run started from says {said}; by the rule 'carried' these "
            f"applied, not the agent's contextMap ({agents})"
        ]
    return [
        f"the context map the run started from says {said}; the agent's contextMap "
        f"({agents}) applied instead (rule 'agent': the agent's settings replace a carried "
        "map's)"
    ]


def replay_settings(
    config: ContextMapSettings | None, record: MapSettingsRule | None
) -> MapSettings | None:
    """The settings a replay applies: recomputed from the recorded rule and carried map
    with the agent as the file has it (None: the file records no rule, so a map state's
    own settings win, as they did when it was recorded)."""
    if config is None or record is None:
        return None
    return effective_settings(record.rule, config, record.carried)
