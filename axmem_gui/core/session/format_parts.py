"""The session parser's smaller objects: errors, usage, turns, searches, callbacks, the
context-map update record, the head's provider, versions, origin, search backend and code
limits (and the limits a forward's code hit), and what the app recorders add (function
calls, request parameters, the recorder's account); core.session.format reads the document
and its forwards and exchanges. Each is checked and built in one pass; every message names
the JSON path."""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from axmem_gui.core import jsontext
from axmem_gui.core.errors import InputError
from axmem_gui.core.jsontext import REQUIRED, Field, type_name
from axmem_gui.core.records import shape_of
from axmem_gui.core.session.code_limits import CodeLimits, LimitHit
from axmem_gui.core.session.map_records import (
    MAP_RULES,
    MapSettings,
    MapSettingsRule,
    MapSnapshot,
    MapUpdate,
)
from axmem_gui.core.session.model import (
    TURN_OUTCOMES,
    Attempt,
    Callback,
    FunctionCall,
    Origin,
    RecorderInfo,
    RecordingStop,
    RequestParams,
    RunError,
    SearchCall,
    SearchInfo,
    SearchResult,
    SessionProvider,
    TokenUsage,
    Turn,
    Versions,
    WireRecord,
)

_STRINGS = Field((str,))
#: Who answered a search of an app's recording (`searches[j].source`).
SOURCES = ("catalog", "host")
_ABSENT = object()
_SAFE = jsontext.MAX_SAFE_INTEGER


@lru_cache(maxsize=64)
def _spec(kinds: tuple[type, ...], required: bool, nullable: bool) -> Field:
    return Field(kinds, default=REQUIRED if required else None, nullable=nullable)


class Checker:
    """Fields of the session document through the one schema (jsontext.Field); `path` is
    the JSON path of the object inside the file."""

    def __init__(self, source: str) -> None:
        self.source = source

    def where(self, path: str) -> str:
        return f"{self.source}: {path}" if path else self.source

    def fail(self, path: str, message: str) -> InputError:
        return InputError(f"{self.where(path)}: {message}")

    def field(
        self,
        obj: Mapping[str, Any],
        key: str,
        kinds: tuple[type, ...],
        path: str,
        *,
        required: bool = True,
        nullable: bool = False,
        **rules: Any,
    ) -> Any:
        if not rules:
            # The common case, a value of the right type, without building the message
            # machinery (a 25 MB session has some 50,000 fields).
            value = obj.get(key, _ABSENT)
            kind = type(value)
            in_range = kind is not int or -_SAFE <= value <= _SAFE
            if kind in kinds and in_range and (kind is not float or math.isfinite(value)):
                return value
            if value is None and nullable:
                return None
            if value is _ABSENT and not required:
                return None
            spec = _spec(kinds, required, nullable)
        else:
            spec = Field(kinds, default=REQUIRED if required else None, nullable=nullable, **rules)
        return jsontext.check_field(obj, key, self.where(path), spec)

    def optional(
        self, obj: Mapping[str, Any], key: str, kinds: tuple[type, ...], path: str, **rules: Any
    ) -> Any:
        """An optional field that may be null: its value, or None."""
        return self.field(obj, key, kinds, path, required=False, nullable=True, **rules)

    def strings(self, obj: Mapping[str, Any], key: str, path: str) -> tuple[str, ...] | None:
        """An optional list of strings (null or absent: None)."""
        value = self.optional(obj, key, (list,), path, items=_STRINGS)
        return None if value is None else strings(value)


def at(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def strings(values: list[str]) -> tuple[str, ...]:
    return tuple(values)


def run_error(c: Checker, obj: dict[str, Any], path: str) -> RunError:
    """An error object (*Errors*): `message` is required (callers check `type` where the
    format requires it)."""
    message = c.field(obj, "message", (str,), path)
    return RunError(
        kind=c.optional(obj, "kind", (str,), path),
        type=c.optional(obj, "type", (str,), path),
        message=message,
        status=c.optional(obj, "status", (int,), path),
        retry_after=c.optional(obj, "retry_after", (str, int, float), path),
        retryable=c.optional(obj, "retryable", (bool,), path),
        detail=c.optional(obj, "detail", (str,), path),
        forward=c.optional(obj, "forward", (int,), path),
        call_index=c.optional(obj, "call_index", (int,), path),
        **shape_of(obj, RunError),
    )


def token_usage(c: Checker, obj: dict[str, Any], path: str) -> TokenUsage:
    return TokenUsage(
        prompt_tokens=c.optional(obj, "prompt_tokens", (int,), path),
        completion_tokens=c.optional(obj, "completion_tokens", (int,), path),
        total_tokens=c.optional(obj, "total_tokens", (int,), path),
        **shape_of(obj, TokenUsage),
    )


def _items(fw: dict[str, Any], key: str) -> list[dict[str, Any]] | None:
    value = fw.get(key)
    return value if isinstance(value, list) else None


def turns(c: Checker, fw: dict[str, Any], path: str) -> tuple[Turn, ...] | None:
    items = _items(fw, "turns")
    if items is None:
        return None
    out = []
    for j, t in enumerate(items):
        where = f"{path}.turns[{j}]"
        out.append(
            Turn(
                stage=c.optional(t, "stage", (str,), where),
                turn=c.optional(t, "turn", (int,), where),
                call_index=c.optional(t, "call_index", (int,), where),
                runtime_turn=t.get("runtime_turn"),
                kind=t.get("kind"),
                code=c.field(t, "code", (str,), where, required=False) or "",
                output=t.get("output"),
                result=t.get("result"),
                is_error=c.field(t, "is_error", (bool,), where, required=False) is True,
                error=t.get("error"),
                outcome=c.optional(t, "outcome", (str,), where, choices=TURN_OUTCOMES),
                retry=c.optional(t, "retry", (int,), where),
                message=c.optional(t, "message", (str,), where),
                next_view=c.optional(t, "next_view", (str,), where),
                **shape_of(t, Turn),
            )
        )
    return tuple(out)


def search_calls(c: Checker, fw: dict[str, Any], path: str) -> tuple[SearchCall, ...] | None:
    items = _items(fw, "searches")
    if items is None:
        return None
    out = []
    for j, search in enumerate(items):
        spath = f"{path}.searches[{j}]"
        kind = c.field(search, "kind", (str,), spath, choices=("discover", "recall"))
        source = c.field(search, "source", (str,), spath, required=False, choices=SOURCES)
        queries = c.field(search, "searches", (list,), spath, items=_STRINGS)
        results = c.field(search, "results", (list,), spath)
        if not all(isinstance(r, dict) and isinstance(r.get("id"), str) for r in results):
            raise c.fail(spath, "field 'results' must be a list of objects with a string 'id'")
        out.append(
            SearchCall(
                kind=kind,
                forward=c.optional(search, "forward", (int,), spath),
                stage=c.optional(search, "stage", (str,), spath),
                turn=c.optional(search, "turn", (int,), spath),
                call_index=c.optional(search, "call_index", (int,), spath),
                searches=strings(queries),
                already_loaded=c.strings(search, "already_loaded", spath),
                results=tuple(
                    _result(c, r, f"{spath}.results[{k}]") for k, r in enumerate(results)
                ),
                source=source,
                **shape_of(search, SearchCall),
            )
        )
    return tuple(out)


def _result(c: Checker, r: dict[str, Any], path: str) -> SearchResult:
    return SearchResult(
        id=r["id"],
        name=c.optional(r, "name", (str,), path),
        content=c.optional(r, "content", (str,), path),
        **shape_of(r, SearchResult),
    )


def callbacks(c: Checker, fw: dict[str, Any], path: str) -> tuple[Callback, ...] | None:
    items = _items(fw, "callbacks")
    if items is None:
        return None
    out = []
    for j, event in enumerate(items):
        where = f"{path}.callbacks[{j}]"
        out.append(
            Callback(
                kind=c.optional(event, "kind", (str,), where),
                payload=event.get("payload"),
                forward=c.optional(event, "forward", (int,), where),
                stage=c.optional(event, "stage", (str,), where),
                turn=c.optional(event, "turn", (int,), where),
                call_index=c.optional(event, "call_index", (int,), where),
                **shape_of(event, Callback),
            )
        )
    return tuple(out)


def map_update(c: Checker, obj: dict[str, Any], path: str) -> MapUpdate:
    return MapUpdate(
        status=c.optional(obj, "status", (str,), path),
        step=obj.get("step"),
        diagnosis=obj.get("diagnosis"),
        item_tags=obj.get("item_tags"),
        cache_candidates=obj.get("cache_candidates"),
        operations=obj.get("operations"),
        distiller_call=c.optional(obj, "distiller_call", (int,), path),
        cartographer_call=c.optional(obj, "cartographer_call", (int,), path),
        added=c.strings(obj, "added", path),
        removed=c.strings(obj, "removed", path),
        changed=c.strings(obj, "changed", path),
        scores=c.optional(obj, "scores", (dict,), path),
        errors=c.strings(obj, "errors", path),
        evicted=c.strings(obj, "evicted", path),
        added_evicted=c.strings(obj, "added_evicted", path),
        budget=c.optional(obj, "budget", (dict,), path),
        **shape_of(obj, MapUpdate),
    )


def map_snapshots(c: Checker, value: dict[str, Any]) -> tuple[MapSnapshot, ...] | None:
    """The stored `contextMapSnapshots` copy (verify compares it with the forwards)."""
    items = c.optional(value, "contextMapSnapshots", (list,), "")
    if items is None:
        return None
    out = []
    for i, item in enumerate(items):
        where = f"contextMapSnapshots[{i}]"
        if not isinstance(item, dict):
            raise c.fail(where, "must be an object")
        update = c.optional(item, "update", (dict,), where)
        out.append(
            MapSnapshot(
                label=c.field(item, "label", (str,), where),
                state=c.field(item, "state", (dict,), where),
                update=None if update is None else map_update(c, update, at(where, "update")),
                **shape_of(item, MapSnapshot),
            )
        )
    return tuple(out)


def _map_settings(c: Checker, obj: dict[str, Any], path: str) -> MapSettings:
    return MapSettings(
        max_chars=c.optional(obj, "maxChars", (int,), path),
        infinite_evolve=c.optional(obj, "infiniteEvolve", (bool,), path),
        evolve_steps=c.optional(obj, "evolveSteps", (int,), path),
        **shape_of(obj, MapSettings),
    )


def map_settings_rule(c: Checker, value: dict[str, Any]) -> MapSettingsRule | None:
    """`context_map_settings`: whose map settings applied (null: no map)."""
    obj = c.optional(value, "context_map_settings", (dict,), "")
    if obj is None:
        return None
    path = "context_map_settings"
    rule = c.field(obj, "rule", (str,), path, choices=MAP_RULES)
    effective = c.field(obj, "effective", (dict,), path)
    carried = c.optional(obj, "carried", (dict,), path)
    return MapSettingsRule(
        rule=rule,
        effective=_map_settings(c, effective, at(path, "effective")),
        carried=None if carried is None else _map_settings(c, carried, at(path, "carried")),
        **shape_of(obj, MapSettingsRule),
    )


def function_calls(c: Checker, fw: dict[str, Any], path: str) -> tuple[FunctionCall, ...] | None:
    """An app's function-tool calls: only ever shown, never run."""
    items = _items(fw, "function_calls")
    if items is None:
        return None
    out = []
    for j, call in enumerate(items):
        where = f"{path}.function_calls[{j}]"
        name = c.field(call, "name", (str,), where)
        error = c.field(call, "error", (dict,), where, required=False, nullable=True)
        out.append(
            FunctionCall(
                name=name,
                qualified_name=c.optional(call, "qualified_name", (str,), where),
                args=call.get("args"),
                forward=c.optional(call, "forward", (int,), where),
                stage=c.optional(call, "stage", (str,), where),
                turn=c.optional(call, "turn", (int,), where),
                call_index=c.optional(call, "call_index", (int,), where),
                result=call.get("result"),
                error=None if error is None else run_error(c, error, at(where, "error")),
                duration_ms=c.optional(call, "duration_ms", (int, float), where),
                **shape_of(call, FunctionCall),
            )
        )
    return tuple(out)


def request_params(c: Checker, obj: dict[str, Any], path: str) -> RequestParams:
    return RequestParams(
        model=c.optional(obj, "model", (str,), path),
        temperature=c.optional(obj, "temperature", (int, float), path),
        max_tokens=c.optional(obj, "max_tokens", (int,), path),
        stream=c.optional(obj, "stream", (bool,), path),
        tool_choice=obj.get("tool_choice"),
        model_config=c.optional(obj, "model_config", (dict,), path),
        function_call_mode=c.optional(obj, "function_call_mode", (str,), path),
        **shape_of(obj, RequestParams),
    )


def recorder_info(c: Checker, value: dict[str, Any]) -> RecorderInfo | None:
    """`recorder`, an app recorder's account of the recording."""
    obj = c.optional(value, "recorder", (dict,), "")
    if obj is None:
        return None
    stop = c.optional(obj, "truncated", (dict,), "recorder")
    return RecorderInfo(
        name=c.optional(obj, "name", (str,), "recorder"),
        version=c.optional(obj, "version", (str,), "recorder"),
        warnings=c.strings(obj, "warnings", "recorder"),
        truncated=None
        if stop is None
        else RecordingStop(
            reason=c.field(stop, "reason", (str,), "recorder.truncated"),
            after_exchange=c.optional(stop, "after_exchange", (int,), "recorder.truncated"),
            **shape_of(stop, RecordingStop),
        ),
        limits=c.optional(obj, "limits", (dict,), "recorder"),
        overhead_ms=c.optional(obj, "overhead_ms", (int, float), "recorder"),
        save_ms=c.optional(obj, "save_ms", (int, float), "recorder"),
        **shape_of(obj, RecorderInfo),
    )


def wire_record(c: Checker, obj: dict[str, Any], path: str) -> WireRecord:
    """`exchanges[i].wire`: the settings sent, the status, the raw reply (verbatim)."""
    return WireRecord(
        request=c.field(obj, "request", (dict,), path),
        status=c.optional(obj, "status", (int,), path),
        response=obj.get("response"),
        **shape_of(obj, WireRecord),
    )


def attempts_of(c: Checker, ex: dict[str, Any], path: str) -> tuple[Attempt, ...] | None:
    """`exchanges[i].attempts`: the retry policy's attempts of one call."""
    items = c.optional(ex, "attempts", (list,), path)
    if items is None:
        return None
    out = []
    for j, item in enumerate(items):
        where = f"{path}.attempts[{j}]"
        if not isinstance(item, dict):
            raise c.fail(where, "must be an object")
        error = c.optional(item, "error", (dict,), where)
        out.append(
            Attempt(
                outcome=c.optional(item, "outcome", (str,), where),
                error=None if error is None else run_error(c, error, at(where, "error")),
                retry_in_s=c.optional(item, "retry_in_s", (int, float), where),
                duration_ms=c.optional(item, "duration_ms", (int, float), where),
                **shape_of(item, Attempt),
            )
        )
    return tuple(out)


# ------------------------------------ the session's head; the code limits a forward hit


def session_provider(c: Checker, value: dict[str, Any]) -> SessionProvider:
    p = c.field(value, "provider", (dict,), "")
    name = c.field(p, "name", (str,), "provider")
    model = c.field(p, "model", (str,), "provider", nullable=True)
    return SessionProvider(
        name=name,
        model=model,
        base_url=c.optional(p, "base_url", (str,), "provider"),
        structured_output=c.optional(p, "structured_output", (str,), "provider"),
        api_key_env=c.optional(p, "api_key_env", (str,), "provider"),
        timeout_s=c.optional(p, "timeout_s", (int, float), "provider"),
        max_retries=c.optional(p, "max_retries", (int,), "provider"),
        retry_policy=c.optional(p, "retry_policy", (dict,), "provider"),
        stream=c.optional(p, "stream", (bool,), "provider"),
        max_reply_mib=c.optional(p, "max_reply_mib", (int, float), "provider"),
        api_key_source=c.optional(p, "api_key_source", (dict,), "provider"),
        request_headers=c.optional(p, "request_headers", (dict,), "provider"),
        **shape_of(p, SessionProvider),
    )

def session_versions(c: Checker, value: dict[str, Any]) -> Versions:
    v = c.field(value, "versions", (dict,), "")
    # A session recorded by a TypeScript app names the Ax package instead of axllm.
    typescript = "ax" in v and "axllm" not in v
    runtime = c.field(v, "ax" if typescript else "axllm", (str,), "versions")
    return Versions(
        app=c.optional(v, "app", (str,), "versions"),
        axllm=None if typescript else runtime,
        quickjs=c.optional(v, "quickjs", (str,), "versions"),
        python=c.optional(v, "python", (str,), "versions"),
        ax_profile=c.optional(v, "ax_profile", (str,), "versions"),
        ax=runtime if typescript else c.optional(v, "ax", (str,), "versions"),
        prompt_profile=c.optional(v, "prompt_profile", (str,), "versions"),
        **shape_of(v, Versions),
    )

def session_origin(c: Checker, value: dict[str, Any]) -> Origin | None:
    o = c.optional(value, "origin", (dict,), "")
    if o is None:
        return None
    return Origin(
        kind=c.optional(o, "kind", (str,), "origin"),
        source_session=c.optional(o, "source_session", (str,), "origin"),
        catalog=c.optional(o, "catalog", (str,), "origin"),
        language=c.optional(o, "language", (str,), "origin"),
        recorder=c.optional(o, "recorder", (str,), "origin"),
        **shape_of(o, Origin),
    )

def search_info(c: Checker, value: dict[str, Any]) -> SearchInfo | None:
    s = c.field(value, "search", (dict,), "", required=False)
    if s is None:
        return None
    backend = c.field(s, "backend", (str,), "search")
    return SearchInfo(
        backend=backend,
        profile=c.optional(s, "profile", (str,), "search"),
        host=c.optional(s, "host", (bool,), "search"),
        **shape_of(s, SearchInfo),
    )

def code_limits(c: Checker, value: dict[str, Any]) -> CodeLimits | None:
    """As written: `replay` refuses limits out of bounds (`CodeLimits.problem`), the file
    still opens."""
    v = c.optional(value, "code_limits", (dict,), "")
    if v is None:
        return None
    known = CodeLimits()
    read = {
        name: c.optional(v, name, (int, float), "code_limits") for name in CodeLimits.BOUNDS
    }
    return CodeLimits(
        time_s=float(read["time_s"]) if read["time_s"] is not None else known.time_s,
        memory_mib=int(read["memory_mib"]) if read["memory_mib"] is not None else known.memory_mib,
        stack_kib=int(read["stack_kib"]) if read["stack_kib"] is not None else known.stack_kib,
        code_kib=int(read["code_kib"]) if read["code_kib"] is not None else known.code_kib,
        **shape_of(v, CodeLimits),
    )

def limit_hits(c: Checker, fw: dict[str, Any], path: str) -> tuple[LimitHit, ...] | None:
    items = c.optional(fw, "code_limits_hit", (list,), path)
    if items is None:
        return None
    out = []
    for j, item in enumerate(items):
        where = f"{path}.code_limits_hit[{j}]"
        if not isinstance(item, dict):
            raise c.fail(where, f"must be an object, got {type_name(item)}")
        out.append(
            LimitHit(
                kind=c.field(item, "kind", (str,), where),
                message=c.field(item, "message", (str,), where),
                forward=c.optional(item, "forward", (int,), where),
                stage=c.optional(item, "stage", (str,), where),
                turn=c.optional(item, "turn", (int,), where),
                call_index=c.optional(item, "call_index", (int,), where),
                **shape_of(item, LimitHit),
            )
        )
    return tuple(out)
