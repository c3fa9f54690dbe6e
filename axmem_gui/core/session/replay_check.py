"""How a replayed run compares with its recording: per forward, field by field, and the
report the replay gives (`ReplayReport`). Pure: the engine runs the agent
(engine.replay) and hands each forward's outcome here as plain JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from axmem_gui.core.records import JsonValue, to_json_value
from axmem_gui.core.session.code_limits import LimitHit
from axmem_gui.core.session.contextmap_update import comparable_update, describe_update
from axmem_gui.core.session.coverage import Coverage, coverage_json, render_coverage
from axmem_gui.core.session.derive import forward_turns, trace_without_logs, without_run_token
from axmem_gui.core.session.model import CANCELLED, Exchange, Forward
from axmem_gui.core.session.replay_cursor import Divergence
from axmem_gui.core.session.verify import Difference, json_diff, render_differences


@dataclass(frozen=True)
class ForwardCheck:
    """How one replayed forward compares with its recording, field by field."""

    index: int
    recorded_status: str
    replay_status: str
    differences: tuple[Difference, ...] = ()

    @property
    def ok(self) -> bool:
        return self.recorded_status == self.replay_status and not self.differences

    def problems(self) -> list[str]:
        out = []
        if self.recorded_status != self.replay_status:
            out.append(f"ended {self.replay_status}, recorded {self.recorded_status}")
        out += [f"{d.where} differs" for d in self.differences]
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "recorded_status": self.recorded_status,
            "replay_status": self.replay_status,
            "differences": [d.to_json() for d in self.differences],
            "ok": self.ok,
        }


@dataclass(frozen=True)
class ReplayReport:
    session_id: str
    calls_recorded: int
    calls_replayed: int
    divergence: Divergence | None
    forwards: tuple[ForwardCheck, ...]
    duration_ms: float
    #: Every difference, the run's first: the first model/search call that differs, then
    #: each forward's fields, then what the file checks (digests, searches, derived) found.
    differences: tuple[Difference, ...] = ()
    #: Where a limit stopped the replayed code (engine.cage), in order.
    limits_hit: tuple[LimitHit, ...] = ()
    #: What "identical" guarantees for this file, and what it does not check.
    coverage: Coverage | None = None

    @property
    def identical(self) -> bool:
        return not self.differences

    def to_json(self) -> dict[str, Any]:
        return {
            "session": self.session_id,
            "identical": self.identical,
            "calls_recorded": self.calls_recorded,
            "calls_replayed": self.calls_replayed,
            "divergence": self.divergence.to_json() if self.divergence else None,
            "forwards": [f.to_json() for f in self.forwards],
            "differences": [d.to_json() for d in self.differences],
            "duration_ms": self.duration_ms,
            "code_limits_hit": [h.to_json() for h in self.limits_hit],
            **coverage_json(self.coverage),
        }

    def render(self) -> str:
        covered = render_coverage(self.coverage) if self.coverage is not None else ""
        return self._verdict() + covered

    def _verdict(self) -> str:
        if self.identical:
            text = (
                f"identical: {self.calls_replayed} of {self.calls_recorded} model calls replayed "
                f"with the same prompts; searches, outputs, context maps, callbacks, turns, "
                f"traces, action logs, usage and every derived field match "
                f"({self.duration_ms / 1000:.2f} s, no network)\n"
            )
        else:
            text = render_differences(f"DIFFERENT: replay of {self.session_id}", self.differences)
        return text + "".join(f"{h.render()}\n" for h in self.limits_hit)


@dataclass(frozen=True)
class Replayed:
    """What a replayed forward came to, as JSON read from the agent afterwards."""

    status: str  # complete | failed | cancelled
    error_text: str | None
    output: JsonValue
    map_after: JsonValue
    #: `{"kind", "payload"}` of every observer callback, in order.
    callbacks: list[JsonValue] = field(default_factory=list)
    trace: JsonValue = None
    action_log: JsonValue = None
    usage: JsonValue = None
    #: Where a limit stopped the replayed code.
    limits_hit: tuple[LimitHit, ...] = ()


def _callbacks(fw: Forward) -> list[JsonValue]:
    return [{"kind": c.kind, "payload": c.payload} for c in fw.callback_list]


def _pairs(
    fw: Forward, new: Replayed, mine: Sequence[Exchange], has_map: bool, version: int
) -> list[tuple[str, str, JsonValue, JsonValue]]:
    """(key, what, recorded, replayed) for each compared field, in report order."""
    trace = new.trace
    pairs: list[tuple[str, str, JsonValue, JsonValue]] = [
        ("output", "the output", fw.output, new.output),
        ("context_map_after", "the context map after the run", fw.context_map_after, new.map_after),
        ("callbacks", "the loaded/used callbacks", _callbacks(fw), new.callbacks),
        (
            "turns",
            "the actor turns",
            to_json_value(fw.turns),
            [t.to_json() for t in forward_turns(version, trace, mine, fw.error)],
        ),
        (
            "action_log",
            "the action log",
            without_run_token(fw.action_log),
            without_run_token(new.action_log),
        ),
        ("usage", "the usage", fw.usage, new.usage),
        ("trace", "the trace", trace_without_logs(fw.trace), trace_without_logs(trace)),
        (
            "code_limits_hit",
            "where a limit stopped the model's code",
            [_hit(h) for h in fw.code_limits_hit or ()],
            [_hit(h) for h in new.limits_hit],
        ),
    ]
    if has_map:
        update = describe_update(mine, fw.context_map_before, _object_or_none(new.map_after))
        pairs.append(
            (
                "context_map_update",
                "the context-map update record",
                to_json_value(fw.context_map_update),
                comparable_update(fw.context_map_update, update),
            )
        )
    return pairs


def _hit(hit: LimitHit) -> JsonValue:
    return {
        "kind": hit.kind,
        "message": hit.message,
        "forward": hit.forward,
        "stage": hit.stage,
        "turn": hit.turn,
        "call_index": hit.call_index,
    }


def _object_or_none(value: JsonValue) -> dict[str, JsonValue] | None:
    return value if isinstance(value, dict) else None


def compare_forward(
    fw: Forward, new: Replayed, mine: Sequence[Exchange], *, has_map: bool, version: int
) -> ForwardCheck:
    """Forward `fw` as recorded against its replay `new` (`mine`: its recorded calls;
    `version`: the file's, which says how its turns are derived)."""
    out = []
    for key, what, recorded, replayed in _pairs(fw, new, mine, has_map, version):
        if recorded != replayed:
            where = f"forwards[{fw.index}].{key}"
            out.append(
                Difference(
                    where,
                    "outcome",
                    f"{what} of the replay differs from the recorded one",
                    json_diff(recorded, replayed, where, ("recorded", "replayed")),
                )
            )
    recorded_detail = fw.error.detail if fw.error is not None else None
    if new.status != CANCELLED and recorded_detail != new.error_text:
        where = f"forwards[{fw.index}].error.detail"
        out.append(
            Difference(
                where,
                "outcome",
                "the replay ended with another error",
                json_diff(recorded_detail, new.error_text, where, ("recorded", "replayed")),
            )
        )
    return ForwardCheck(fw.index, fw.status, new.status, tuple(out))


def divergence_difference(d: Divergence) -> Difference:
    if d.kind == "search":
        where = f"search call #{d.index}"
    elif d.kind in ("prompt", "digest", "stored_request"):
        where = f"exchanges[{d.index}]" + (".digest" if d.kind == "digest" else ".request")
    else:
        where = f"exchanges[{d.index}]"
    return Difference(where, d.kind, d.message, d.diff)


def run_differences(
    divergence: Divergence | None, checks: Sequence[ForwardCheck]
) -> list[Difference]:
    """The run's differences, first first: the call that diverged, then each forward's
    status and fields."""
    found: list[Difference] = []
    if divergence is not None:
        found.append(divergence_difference(divergence))
    for check in checks:
        if check.recorded_status != check.replay_status:
            found.append(
                Difference(
                    f"forwards[{check.index}].status",
                    "outcome",
                    f"the replay ended {check.replay_status}, the recording "
                    f"{check.recorded_status}",
                    json_diff(check.recorded_status, check.replay_status, "status"),
                )
            )
        found.extend(check.differences)
    return found


# --- a report read back (a replay run in a child process sends it as JSON) --------------


def report_from_json(value: object) -> ReplayReport:
    """A ReplayReport as `ReplayReport.to_json` wrote it; ValueError for anything else (it
    comes from another process, which may have been taken over by the code it ran)."""
    obj = _obj(value, "report")
    forwards = tuple(_check(f) for f in _list(obj, "forwards"))
    divergence = _any(obj, "divergence")
    return ReplayReport(
        session_id=_str(obj, "session"),
        calls_recorded=_int(obj, "calls_recorded"),
        calls_replayed=_int(obj, "calls_replayed"),
        divergence=None if divergence is None else _divergence(divergence),
        forwards=forwards,
        duration_ms=float(_num(obj, "duration_ms")),
        differences=tuple(_difference(d) for d in _list(obj, "differences")),
        limits_hit=tuple(_limit_hit(h) for h in _list(obj, "code_limits_hit")),
        coverage=_coverage(obj),
    )


def _coverage(obj: dict[str, Any]) -> Coverage | None:
    if _any(obj, "checked") is None and _any(obj, "not_checked") is None:
        return None  # a report of an axmem that did not say what it checked
    checked, not_checked = _list(obj, "checked"), _list(obj, "not_checked")
    if not all(isinstance(c, str) for c in checked + not_checked):
        raise ValueError("checked and not_checked are lists of strings")
    return Coverage(tuple(checked), tuple(not_checked))


def _obj(value: object, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{what} is not an object")
    return value


def _any(obj: dict[str, Any], key: str) -> object:
    return obj.get(key)


def _list(obj: dict[str, Any], key: str) -> list[Any]:
    value = obj.get(key, [])
    if not isinstance(value, list):
        raise ValueError(f"{key} is not a list")
    return value


def _str(obj: dict[str, Any], key: str, default: str | None = None) -> str:
    value = obj.get(key, default)
    if not isinstance(value, str):
        raise ValueError(f"{key} is not a string")
    return value


def _opt_str(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{key} is not a string")
    return value


def _num(obj: dict[str, Any], key: str) -> int | float:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{key} is not a number")
    return value


def _int(obj: dict[str, Any], key: str) -> int:
    value = _num(obj, key)
    if not isinstance(value, int):
        raise ValueError(f"{key} is not an integer")
    return value


def _opt_int(obj: dict[str, Any], key: str) -> int | None:
    return None if obj.get(key) is None else _int(obj, key)


def _difference(value: object) -> Difference:
    d = _obj(value, "a difference")
    return Difference(_str(d, "where"), _str(d, "kind"), _str(d, "message"), _str(d, "diff", ""))


def _divergence(value: object) -> Divergence:
    d = _obj(value, "the divergence")
    return Divergence(
        index=_int(d, "index"),
        kind=_str(d, "kind"),
        message=_str(d, "message"),
        recorded_stage=_opt_str(d, "recorded_stage"),
        replay_stage=_opt_str(d, "replay_stage"),
        forward=_opt_int(d, "forward"),
        diff=_str(d, "diff", ""),
    )


def _check(value: object) -> ForwardCheck:
    c = _obj(value, "a forward check")
    return ForwardCheck(
        index=_int(c, "index"),
        recorded_status=_str(c, "recorded_status"),
        replay_status=_str(c, "replay_status"),
        differences=tuple(_difference(d) for d in _list(c, "differences")),
    )


def _limit_hit(value: object) -> LimitHit:
    h = _obj(value, "a limit hit")
    return LimitHit(
        kind=_str(h, "kind"),
        message=_str(h, "message"),
        forward=_opt_int(h, "forward"),
        stage=_opt_str(h, "stage"),
        turn=_opt_int(h, "turn"),
        call_index=_opt_int(h, "call_index"),
    )
