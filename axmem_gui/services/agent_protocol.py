"""What an agent run's parent and child process say to each other (services.agent_runner,
services.agent_worker).

Each message is one JSON object in a frame: four bytes of length (big-endian), then the
UTF-8 JSON. JSON both ways, never pickle: the child runs model-written code, and what it
sends is read as data, whatever became of it. The parent sends one job (`LiveJob` or
`ReplayJob`) and perhaps a cancel; the child answers with a stream of events and ends
with a result or an error (message types below).
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, fields
from typing import IO, Any

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.formats import catalog_from_json_value
from axmem_gui.core.providers import ProviderSettings
from axmem_gui.core.session.agent_config import AgentConfig, agent_config_from_json
from axmem_gui.core.session.code_limits import CodeLimits
from axmem_gui.core.session.map_records import AGENT_RULE
from axmem_gui.core.session.model import Origin, SessionCatalog

#: The largest frame either side accepts (a result holds a whole session).
MAX_FRAME = 1 << 30
_LENGTH = struct.Struct(">I")

# child -> parent
READY = "ready"  # warmed up, waiting for its job
BEGUN = "begun"  # a live run's session before its first forward (`head`)
PROGRESS = "progress"  # a RunProgress (`event`)
EXCHANGE = "exchange"  # a finished model call, as recorded (`record`)
FORWARD = "forward"  # a finished forward (`forward`)
CODE = "code"  # the model's code started / stopped running (`running`)
RESULT = "result"  # the session (`session`) or the replay report (`report`)
ERROR = "error"  # the job failed (`error`: the exception's class name, `message`)
# parent -> child
JOB = "job"
CANCEL = "cancel"


class FrameError(Exception):
    """A frame that is not one (too long, not JSON, not an object)."""


def write_frame(out: IO[bytes], message: dict[str, Any]) -> None:
    data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if len(data) > MAX_FRAME:
        raise FrameError(f"a message of {len(data):,} bytes is over the {MAX_FRAME:,} limit")
    out.write(_LENGTH.pack(len(data)) + data)
    out.flush()


def read_frame(source: IO[bytes]) -> dict[str, Any] | None:
    """The next message, None at the end of the stream; FrameError for a broken one."""
    head = _read_exactly(source, _LENGTH.size)
    if not head:
        return None
    (size,) = _LENGTH.unpack(head)
    if size > MAX_FRAME:
        raise FrameError(f"a frame of {size:,} bytes is over the {MAX_FRAME:,} limit")
    data = _read_exactly(source, size)
    if len(data) != size:
        raise FrameError("the stream ended inside a frame")
    try:
        value = json.loads(data)
    except ValueError as exc:
        raise FrameError(f"a frame that is not JSON: {exc}") from None
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        raise FrameError("a frame that is not a message")
    return value


def _read_exactly(source: IO[bytes], size: int) -> bytes:
    parts: list[bytes] = []
    left = size
    while left:
        chunk = source.read(left)
        if not chunk:
            break
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


# ------------------------------------------------------------------ jobs ---


def settings_to_json(settings: ProviderSettings) -> dict[str, Any]:
    """Every setting as it is, the base URL's credentials included (for the child only:
    `ProviderSettings.to_json` is what may be written)."""
    out = {f.name: getattr(settings, f.name) for f in fields(settings)}
    out["retry_on"] = list(settings.retry_on)
    return out


def settings_from_json(value: Any) -> ProviderSettings:
    if not isinstance(value, dict):
        raise ValueError("the provider settings are not an object")
    known = {f.name for f in fields(ProviderSettings)}
    raw = {k: v for k, v in value.items() if k in known}
    raw["retry_on"] = tuple(raw.get("retry_on") or ())
    return ProviderSettings(**raw)


@dataclass(frozen=True)
class LiveJob:
    """A live run (or a rerun) for the child to record."""

    session_id: str
    config: AgentConfig
    catalog: Catalog
    inputs: tuple[dict[str, Any], ...]
    settings: ProviderSettings
    api_key: str | None = None
    key_source: dict[str, str] | None = None
    context_map: dict[str, Any] | str | None = None
    name: str = ""
    origin: Origin | None = None
    search: str | None = None
    limits: CodeLimits | None = None
    clock_ms: float | None = None
    #: The scripted model's hostile code (engine.scripted_model.ScriptedTransport).
    scripted_code: tuple[str, ...] | None = None
    #: Whose settings a carried context map follows (services.sessions.run_agent).
    map_rule: str = AGENT_RULE

    def to_json(self) -> dict[str, Any]:
        return {
            "type": JOB,
            "kind": "live",
            "session_id": self.session_id,
            "config": self.config.to_json(),
            "catalog": SessionCatalog.of(self.catalog).to_json(),
            "inputs": list(self.inputs),
            "settings": settings_to_json(self.settings),
            "api_key": self.api_key,
            "key_source": self.key_source,
            "context_map": self.context_map,
            "name": self.name,
            "origin": None if self.origin is None else self.origin.to_json(),
            "search": self.search,
            "limits": None if self.limits is None else self.limits.to_json(),
            "clock_ms": self.clock_ms,
            "scripted_code": None if self.scripted_code is None else list(self.scripted_code),
            "map_rule": self.map_rule,
        }

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> LiveJob:
        origin = value.get("origin")
        limits = value.get("limits")
        code = value.get("scripted_code")
        return cls(
            session_id=str(value["session_id"]),
            config=agent_config_from_json(value["config"], "the job's agent"),
            catalog=catalog_from_json_value(value["catalog"], "the job's catalog"),
            inputs=tuple(dict(i) for i in value["inputs"]),
            settings=settings_from_json(value["settings"]),
            api_key=value.get("api_key"),
            key_source=value.get("key_source"),
            context_map=value.get("context_map"),
            name=str(value.get("name") or ""),
            origin=_origin(origin),
            search=value.get("search"),
            limits=None if not isinstance(limits, dict) else CodeLimits(**limits),
            clock_ms=value.get("clock_ms"),
            scripted_code=None if code is None else tuple(str(c) for c in code),
            map_rule=str(value.get("map_rule") or AGENT_RULE),
        )


def _origin(value: Any) -> Origin | None:
    if not isinstance(value, dict):
        return None
    known = ("kind", "source_session", "catalog")
    return Origin(
        kind=value.get("kind"),
        source_session=value.get("source_session"),
        catalog=value.get("catalog"),
        extra={k: v for k, v in value.items() if k not in known},
    )


@dataclass(frozen=True)
class ReplayJob:
    """An offline replay for the child to run (`session`: the session's JSON)."""

    session: dict[str, Any]
    clock_ms: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"type": JOB, "kind": "replay", "session": self.session, "clock_ms": self.clock_ms}

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> ReplayJob:
        return cls(session=dict(value["session"]), clock_ms=value.get("clock_ms"))
