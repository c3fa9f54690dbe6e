"""Context-map state and its two stored shapes.

* TS `AxAgentContextMapSnapshot` (`map.snapshot()`):
  `{"version": 1, "text", "scores", "steps", "maxChars", "infiniteEvolve", "evolveSteps"?}`.
  Loading follows `new AxAgentContextMap(snapshot)`: the text is normalised, `maxChars`
  must be a positive integer, `evolveSteps` is required when `infiniteEvolve` is false,
  unknown keys are dropped (the next `snapshot()` would not have them).
* axllm `export_runtime_state()["context_map"]`:
  `{"text", "steps", "scores", "maxChars", "infiniteEvolve", "evolveSteps"}`. axllm keeps
  unknown keys and drops the legacy `next_id`; so do we, and we write keys back in the order
  they came in.

A state is written back in the shape it was read in. Bad input raises `InputError` naming
the source and the field; nothing is guessed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum

from axmem_gui.core import jsontext
from axmem_gui.core.contextmap.text import INITIAL_TEXT, normalize_text, utf16_length
from axmem_gui.core.errors import InputError
from axmem_gui.core.jsontext import Field, type_name

DEFAULT_MAX_CHARS = 4000
SNAPSHOT_VERSION = 1
_AXLLM_KEYS = ("text", "steps", "scores", "maxChars", "infiniteEvolve", "evolveSteps")
_LEGACY_KEYS = frozenset({"next_id"})


@dataclass(frozen=True)
class ContextMapState:
    """What Ax keeps for a context map: text, per-item scores, update count, options.

    `evolve_steps` is None when unset (TS omits it then; axllm treats it as 0).
    """

    text: str = INITIAL_TEXT
    scores: Mapping[str, float] = field(default_factory=dict)
    steps: int = 0
    max_chars: int = DEFAULT_MAX_CHARS
    infinite_evolve: bool = True
    evolve_steps: int | None = None

    @classmethod
    def from_text(cls, text: str) -> ContextMapState:
        """A fresh map over `text`, as `AxAgentContextMap.fromText(text)` builds it."""
        return cls(text=normalize_text(text))

    @property
    def frozen(self) -> bool:
        """True when Ax would skip the update (`infiniteEvolve` false, evolveSteps used up)."""
        return not self.infinite_evolve and self.steps >= (self.evolve_steps or 0)

    @property
    def chars(self) -> int:
        """Length in UTF-16 units, the unit `maxChars` counts."""
        return utf16_length(self.text)


class MapShape(StrEnum):
    TS_SNAPSHOT = "ts-snapshot"
    AXLLM = "axllm"


@dataclass(frozen=True)
class StoredContextMap:
    """A state plus how it was stored, so it can be written back the same way."""

    state: ContextMapState
    shape: MapShape
    #: axllm shape only: keys we do not interpret, kept verbatim (axllm keeps them too).
    extra: Mapping[str, object] = field(default_factory=dict)
    #: axllm shape only: the key order of the file, reused when writing.
    key_order: tuple[str, ...] = ()

    def with_state(self, state: ContextMapState) -> StoredContextMap:
        return replace(self, state=state)

    def to_json_value(self) -> dict[str, object]:
        if self.shape is MapShape.TS_SNAPSHOT:
            return ts_snapshot_value(self.state)
        return axllm_state_value(self.state, self.extra, self.key_order)


def ts_snapshot_value(state: ContextMapState) -> dict[str, object]:
    """`AxAgentContextMap.snapshot()` for this state (evolveSteps only when set)."""
    out: dict[str, object] = {
        "version": SNAPSHOT_VERSION,
        "text": state.text,
        "scores": dict(state.scores),
        "steps": state.steps,
        "maxChars": state.max_chars,
        "infiniteEvolve": state.infinite_evolve,
    }
    if state.evolve_steps is not None:
        out["evolveSteps"] = state.evolve_steps
    return out


def axllm_state_value(
    state: ContextMapState,
    extra: Mapping[str, object] | None = None,
    key_order: tuple[str, ...] = (),
) -> dict[str, object]:
    """axllm's `context_map` dict for this state; `extra` keys kept, in `key_order` first."""
    known: dict[str, object] = {
        "text": state.text,
        "steps": state.steps,
        "scores": dict(state.scores),
        "maxChars": state.max_chars,
        "infiniteEvolve": state.infinite_evolve,
        "evolveSteps": state.evolve_steps if state.evolve_steps is not None else 0,
    }
    extra = extra or {}
    out: dict[str, object] = {}
    for key in key_order:
        if key in known:
            out[key] = known[key]
        elif key in extra:
            out[key] = extra[key]
    for key in _AXLLM_KEYS:
        out.setdefault(key, known[key])
    for key, value in extra.items():
        out.setdefault(key, value)
    return out


# --- loading -------------------------------------------------------------------------------


def parse_json_text(text: str, source: str) -> object:
    """JSON from a file's text, with a message that names the file and the position."""
    return jsontext.loads(text, source)


def start_map_from_json_value(value: object, source: str) -> dict[str, object]:
    """The map a live run starts from, as given in a file: a map state object, or a
    snapshot entry holding one (`{"state": {...}}`); passed to axllm as it is."""
    if isinstance(value, dict) and isinstance(value.get("state"), dict):
        value = value["state"]
    if not isinstance(value, dict) or not isinstance(value.get("text"), str):
        raise InputError(f"{source}: expected a context map snapshot with a 'text' field")
    return value


def stored_map_from_text(text: str) -> StoredContextMap:
    """A fresh map over plain text (a `.md` file), stored as a TS snapshot."""
    return StoredContextMap(ContextMapState.from_text(text), MapShape.TS_SNAPSHOT)


def stored_map_from_json_value(value: object, source: str) -> StoredContextMap:
    """Read a state in either shape; a bare JSON string is map text (`new AxAgentContextMap(s)`)."""
    if isinstance(value, str):
        return stored_map_from_text(value)
    if not isinstance(value, dict):
        raise InputError(
            f"{source}: expected a context map object (TS snapshot or axllm context_map), "
            f"got {type_name(value)}"
        )
    if "text" not in value and isinstance(value.get("context_map"), dict):
        raise InputError(
            f"{source}: field 'text' is missing; this looks like a whole runtime state, "
            "pass its 'context_map' object instead"
        )
    if "version" in value:
        return _load_ts_snapshot(value, source)
    return _load_axllm_state(value, source)


def _load_ts_snapshot(value: dict[str, object], source: str) -> StoredContextMap:
    if value["version"] != SNAPSHOT_VERSION or isinstance(value["version"], bool):
        raise InputError(
            f"{source}: field 'version' must be {SNAPSHOT_VERSION} "
            f"(AxAgentContextMapSnapshot), got {value['version']!r}"
        )
    text = jsontext.check_field(value, "text", source, _TEXT)
    infinite = jsontext.check_field(value, "infiniteEvolve", source, _INFINITE)
    evolve_steps = jsontext.check_field(value, "evolveSteps", source, _STEPS)
    if not infinite and evolve_steps is None:
        raise InputError(
            f"{source}: field 'evolveSteps' is required when 'infiniteEvolve' is false "
            "(a non-negative integer)"
        )
    state = ContextMapState(
        text=normalize_text(text),
        scores=_scores(value, source),
        steps=jsontext.check_field(value, "steps", source, _STEPS) or 0,
        max_chars=jsontext.check_field(value, "maxChars", source, _MAX_CHARS),
        infinite_evolve=infinite,
        # TS drops evolveSteps when infiniteEvolve is true (normalizeContextMapOptions).
        evolve_steps=None if infinite else evolve_steps,
    )
    return StoredContextMap(state, MapShape.TS_SNAPSHOT)


def _load_axllm_state(value: dict[str, object], source: str) -> StoredContextMap:
    text = jsontext.check_field(value, "text", source, _TEXT)
    evolve_steps = jsontext.check_field(value, "evolveSteps", source, _STEPS)
    state = ContextMapState(
        text=normalize_text(text),
        scores=_scores(value, source),
        steps=jsontext.check_field(value, "steps", source, _STEPS) or 0,
        max_chars=jsontext.check_field(value, "maxChars", source, _MAX_CHARS),
        infinite_evolve=jsontext.check_field(value, "infiniteEvolve", source, _INFINITE),
        evolve_steps=0 if evolve_steps is None else evolve_steps,
    )
    extra = {k: v for k, v in value.items() if k not in _AXLLM_KEYS and k not in _LEGACY_KEYS}
    order = tuple(k for k in value if k not in _LEGACY_KEYS)
    return StoredContextMap(state, MapShape.AXLLM, extra, order)




_TEXT = Field((str,))
_STEPS = Field((int,), default=None, minimum=0, whole=True)
_MAX_CHARS = Field((int,), default=DEFAULT_MAX_CHARS, minimum=1, whole=True)
_INFINITE = Field((bool,), default=True)


def _scores(value: Mapping[str, object], source: str) -> dict[str, float]:
    raw = value.get("scores", {})
    if not isinstance(raw, dict):
        raise InputError(
            f"{source}: field 'scores' must be an object of item id -> number, "
            f"got {type_name(raw)}"
        )
    scores: dict[str, float] = {}
    for item_id, score in raw.items():
        if isinstance(score, bool) or not isinstance(score, int | float):
            raise InputError(
                f"{source}: field 'scores.{item_id}' must be a number, got {type_name(score)}"
            )
        if not math.isfinite(score):
            raise InputError(f"{source}: field 'scores.{item_id}' must be a finite number")
        scores[item_id] = score
    return scores
