"""The session an app's recording makes, as the studio's typed records.

`ForwardRecording` is one forward while it runs (what its hooks saw) and the typed
`Forward` it becomes when it ends; `app_session` assembles the session and hands it to the
session parser (secrets scrubbed first), as the studio's own recorder does
(engine.recorder): what the recorder writes is what the studio reads.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from axmem_gui.core.formats import catalog_from_json_value
from axmem_gui.core.records import JsonObject, JsonValue
from axmem_gui.core.session.app_session import APP
from axmem_gui.core.session.contextmap_update import describe_update
from axmem_gui.core.session.derive import (
    map_snapshots,
    map_warnings,
    trace_without_logs,
    turns,
    without_run_token,
)
from axmem_gui.core.session.format import (
    APP_FORWARD_KEYS,
    APP_SESSION_KEYS,
    APP_STARTED_KEYS,
    parse_session,
)
from axmem_gui.core.session.model import (
    CANCELLED,
    COMPLETE,
    FAILED,
    INCOMPLETE,
    Callback,
    Exchange,
    Forward,
    FunctionCall,
    Origin,
    RecorderInfo,
    RunError,
    SearchCall,
    SearchInfo,
    Session,
    SessionAgent,
    SessionCatalog,
    SessionProvider,
    Versions,
)
from axmem_gui.core.session.payloads import runtime_map
from axmem_gui.core.session.redact import scrub_secrets
from axmem_gui.engine.clients import jsonable
from axmem_gui.engine.errors import describe_failure

RECORDER_NAME = "axmem_gui.recorder"
#: The provider block of an app's recording: what its client said, and no key.
_PROVIDER_KEYS = ("name", "model", "model_config", "api_key_source")


@dataclass
class ForwardRecording:
    """A forward being recorded: what is known when it starts, what its hooks saw, and
    (once it ended) the typed forward the session holds."""

    index: int
    inputs: JsonObject
    forward_options: JsonObject
    started_at: str
    status: str = COMPLETE
    output: JsonValue = None
    failure: BaseException | None = None
    searches: list[SearchCall] = field(default_factory=list)
    callbacks: list[Callback] = field(default_factory=list)
    function_calls: list[FunctionCall] = field(default_factory=list)
    finished: Forward | None = None

    def failed(self, exc: BaseException) -> None:
        self.failure = exc
        self.status = CANCELLED if describe_failure(exc).kind == "cancelled" else FAILED

    def error(self, failed: Exchange | None) -> RunError | None:
        """The forward's error (`failed`: the model call that ended it, if one did)."""
        if self.failure is None:
            return None
        info = describe_failure(self.failure)
        return RunError(
            kind=info.kind,
            type=info.type,
            message=info.message,
            status=info.status,
            retry_after=info.retry_after,
            detail=str(self.failure),
            forward=self.index,
            call_index=failed.index if failed else None,
            key_order=(*info.to_json(), "detail", "forward", "call_index"),
        )

    def finish(self, agent: Any, exchanges: Sequence[Exchange], first: int, before: Any) -> None:
        """The forward ended: read the agent's trace, map and logs into the typed forward
        (`exchanges`: its model calls, from `first`; `before`: the map it started from)."""
        trace = jsonable(agent.export_trace())
        after = jsonable(runtime_map(agent.export_runtime_state()))
        has_map = before is not None or after is not None
        failed = next((e for e in reversed(exchanges) if e.error is not None), None)
        self.finished = Forward(
            index=self.index,
            inputs=self.inputs,
            forward_options=self.forward_options,
            started_at=self.started_at,
            status=self.status,
            output=self.output,
            error=self.error(failed),
            context_map_before=before,
            context_map_after=after,
            context_map_update=describe_update(exchanges, before, after) if has_map else None,
            exchange_range=(first, first + len(exchanges)),
            turns=turns(trace, exchanges),
            searches=tuple(self.searches),
            callbacks=tuple(self.callbacks),
            function_calls=tuple(self.function_calls),
            action_log=without_run_token(jsonable(agent.get_action_log())),
            usage=jsonable(agent.get_usage()),
            trace=trace_without_logs(trace),
            key_order=APP_FORWARD_KEYS,
        )

    def record(self) -> Forward:
        """The forward as the session holds it; the start of it when the recorder failed
        to finish it (its own failure was a warning)."""
        if self.finished is not None:
            return self.finished
        return Forward(
            index=self.index,
            inputs=self.inputs,
            forward_options=self.forward_options,
            started_at=self.started_at,
            status=self.status,
            output=self.output,
            error=self.error(None),
            key_order=APP_STARTED_KEYS,
        )


@dataclass(frozen=True)
class AppAgent:
    """The app's agent as the recording names it (`describe`: its configuration as data)."""

    name: str
    signature: str
    describe: JsonObject
    catalog: JsonObject


def app_session(
    *,
    session_id: str,
    name: str,
    created_at: str,
    versions: Versions,
    agent: AppAgent,
    client: Any,
    host_search: bool,
    forwards: Sequence[Forward],
    exchanges: Sequence[Exchange],
    recorder: RecorderInfo,
    secrets: Sequence[str],
) -> Session:
    """The session of an app's recording (`client`: the recording client, or None before
    the app gave one), checked by the session parser, secrets scrubbed."""
    failed = next((f for f in forwards if f.status in (FAILED, CANCELLED)), None)
    has_map = any(f.context_map_after or f.context_map_before for f in forwards)
    model = getattr(client.inner, "model", None) if client else None
    session = Session(
        id=session_id,
        name=name or f"{agent.name} · {model or '?'}",
        created_at=created_at,
        status=INCOMPLETE if failed else COMPLETE,
        error=failed.error if failed else None,
        origin=Origin(kind=APP, language="python", recorder=RECORDER_NAME),
        versions=versions,
        agent=SessionAgent(
            name=agent.name, signature=agent.signature, config=None, raw=agent.describe
        ),
        catalog=SessionCatalog(
            catalog=catalog_from_json_value(copy.deepcopy(agent.catalog), "the app's catalog"),
            raw=agent.catalog,
        ),
        provider=SessionProvider(
            name=client.name if client else "unknown",
            model=None if model is None else str(model),
            api_key_source={"kind": "app"},
            extra={"model_config": jsonable(client.model_config) if client else None},
            key_order=_PROVIDER_KEYS,
        ),
        client_features=jsonable(client.get_features()) if client else {},
        search=SearchInfo(backend="axllm-builtin", profile=None, host=host_search),
        forwards=tuple(forwards),
        exchanges=tuple(exchanges),
        map_snapshots=tuple(map_snapshots(forwards)) if has_map else (),
        warnings=tuple(map_warnings(forwards)),
        recorder=recorder,
        key_order=APP_SESSION_KEYS,
    )
    # (jsonable: a copy of the whole document, at C speed, before the scrub rewrites it)
    value = scrub_secrets(jsonable(session.to_json()), secrets)
    return parse_session(value, f"session {session_id}")
