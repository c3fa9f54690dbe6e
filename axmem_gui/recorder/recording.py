"""Record an axllm agent run by the app's own code into a `.axsession.json` file.

The studio's recording client (engine.clients.RecordingClient) records every model call at
axllm's provider-neutral `client.chat()` boundary; this module wires it around the app's
client and agent: forward boundaries, function tools, host and catalog searches, observer
callbacks and the context map. The document is the one the studio writes for its own runs
(same digests, same derived fields), with `origin.kind: "app"`.

Recording never breaks the agent: a failure of the recorder, a file that cannot be written
or a recording past its limits is a warning; the agent gets exactly what its client
returned, or exactly its error.
"""

from __future__ import annotations

import contextvars
import importlib
import os
import re
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, cast

import axllm

from axmem_gui.core.jsout import json_dumps
from axmem_gui.core.records import JsonObject, JsonValue
from axmem_gui.core.session.format import (
    parse_exchange,
    parse_search_call,
    session_to_json_text,
)
from axmem_gui.core.session.model import (
    Callback,
    Exchange,
    FunctionCall,
    RecorderInfo,
    RecordingStop,
    RunError,
    Session,
)
from axmem_gui.core.session.payloads import runtime_map
from axmem_gui.engine.clients import jsonable, utc_now
from axmem_gui.engine.errors import describe_failure
from axmem_gui.engine.recorder import new_session_id
from axmem_gui.engine.search import CallPlace
from axmem_gui.engine.versions import runtime_versions
from axmem_gui.recorder.client import AppRecordingClient
from axmem_gui.recorder.document import RECORDER_NAME, AppAgent, ForwardRecording, app_session
from axmem_gui.recorder.wiring import (
    CALLBACKS,
    HOST_SEARCHES,
    catalog_of,
    describe_agent,
    function_tools,
    ids_of,
    option_key,
    wrap_functions,
)
from axmem_gui.services.files import write_file_atomic

#: Environment variables whose values are never written (8 characters or more).
_SECRET_ENV = re.compile(r"(api[-_]?key|apikey|token|secret|password|credential)", re.IGNORECASE)


@dataclass(frozen=True)
class RecorderLimits:
    """Bounds of one recording; past them the agent runs on, unrecorded (a warning says so)."""

    max_exchanges: int = 5000
    max_bytes: int = 64 * 1024 * 1024
    #: A function result or callback payload larger than this (as JSON) is kept as a preview.
    max_value_chars: int = 256 * 1024


@dataclass(frozen=True)
class SaveResult:
    ok: bool
    file: Path | None
    error: str = ""


def environment_secrets(env: Mapping[str, str] | None = None) -> list[str]:
    """Values of environment variables named like credentials."""
    source = os.environ if env is None else env
    return [v for k, v in source.items() if _SECRET_ENV.search(k) and len(v) >= 8]


_ACTIVE: contextvars.ContextVar[tuple[SessionRecorder, ForwardRecording] | None] = (
    contextvars.ContextVar("axmem_recorder_active", default=None)
)


def _install_catalog_search_taps() -> bool:
    """axllm answers discover/recall over a static catalog with module-level functions of
    `axllm.agent`; tap them (once per process) so the forward being recorded in this
    context gets each search and its results. Outside a recording they pass straight on."""
    module = importlib.import_module("axllm.agent")
    if getattr(module, "_axmem_recorder_taps", False):
        return True
    skills = getattr(module, "_agent_catalog_skill_search", None)
    memories = getattr(module, "_agent_catalog_memory_search", None)
    if not callable(skills) or not callable(memories):
        return False

    def skill_search(catalog: Any, searches: Any) -> Any:
        results = skills(catalog, searches)
        active = _ACTIVE.get()
        if active is not None:
            active[0].note_search(active[1], "discover", searches, results, None, "catalog")
        return results

    def memory_search(catalog: Any, searches: Any, already_loaded: Any) -> Any:
        results = memories(catalog, searches, already_loaded)
        active = _ACTIVE.get()
        if active is not None:
            active[0].note_search(active[1], "recall", searches, results, already_loaded, "catalog")
        return results

    module._agent_catalog_skill_search = skill_search  # type: ignore[attr-defined]
    module._agent_catalog_memory_search = memory_search  # type: ignore[attr-defined]
    module._axmem_recorder_taps = True  # type: ignore[attr-defined]
    return True


class SessionRecorder:
    """Records one axllm agent of the app (see the module docstring and docs/recorders.md).

    ```python
    rec = SessionRecorder("sessions/support.axsession.json")
    client = rec.wrap_client(axllm.ai("openai", model="gpt-5-mini", api_key=key))
    support = rec.agent("question:string -> answer:string", options)
    support.forward(client, {"question": "..."}, {"max_actor_steps": 6})
    ```
    """

    def __init__(
        self,
        file: str | Path | None = None,
        *,
        name: str = "",
        session_id: str | None = None,
        secrets: Sequence[str] = (),
        scrub_environment: bool = True,
        autosave: bool | None = None,
        limits: RecorderLimits | None = None,
        on_warning: Callable[[str], None] | None = None,
    ) -> None:
        self.file = Path(file) if file is not None else None
        self.name = name
        self.id = session_id or new_session_id()
        self.secrets = list(secrets)
        self.scrub_environment = scrub_environment
        self.autosave = autosave if autosave is not None else self.file is not None
        self.limits = limits or RecorderLimits()
        self.on_warning = on_warning
        self.created_at = utc_now()
        self.warnings: list[str] = []
        self.truncated: RecordingStop | None = None
        #: The recorder's own time in model calls, and in writing the file (ms).
        self.overhead_ms = 0.0
        self.save_ms = 0.0
        self._versions = runtime_versions(None)  # package metadata lookups are slow
        self.client: AppRecordingClient | None = None
        self.forwards: list[ForwardRecording] = []
        #: The recorded calls, parsed as the session parser reads them.
        self.exchanges: list[Exchange] = []
        self.agent_info: JsonObject | None = None
        self.agent_name = name or "agent"
        self.signature = ""
        self.catalog: JsonObject = {"skills": [], "memories": []}
        self._bytes = 0
        #: The searches the app answers itself (discover, recall).
        self._host: set[str] = set()
        if not self.guard(_install_catalog_search_taps, False):
            self.warn(
                "axllm's catalog search was not found (another axllm version?): "
                "catalog searches are not recorded"
            )

    # ------------------------------------------------------------ plumbing ---

    def warn(self, message: str) -> None:
        if message in self.warnings:
            return
        self.warnings.append(message)
        text = f"axsession recorder: {message}"
        try:
            if self.on_warning is not None:
                self.on_warning(text)
            else:
                warnings.warn(text, RuntimeWarning, stacklevel=3)
        except Exception:  # a warning handler that fails must not break the agent either
            pass

    def guard(self, fn: Callable[[], Any], fallback: Any = None) -> Any:
        """Run recorder work; any failure becomes a warning and `fallback` is returned."""
        try:
            return fn()
        except Exception as exc:
            self.warn(f"recording failed ({exc}); the agent was not affected")
            return fallback

    def bounded(self, value: Any) -> JsonValue:
        plain = jsonable(value)
        text = json_dumps(plain, indent=1)
        if len(text) <= self.limits.max_value_chars:
            return cast(JsonValue, plain)
        self.warn(
            f"a value of {len(text)} characters was kept as a preview "
            f"(max_value_chars is {self.limits.max_value_chars})"
        )
        return {"truncated": True, "chars": len(text), "preview": text[:2000]}

    def exchange_done(self, client: AppRecordingClient) -> None:
        def account() -> None:
            if self.truncated or not client.exchanges:
                return
            self._bytes += len(json_dumps(client.exchanges[-1], indent=1))
            if len(client.exchanges) >= self.limits.max_exchanges:
                self.truncate(f"more than {self.limits.max_exchanges} model calls (max_exchanges)")
            elif self._bytes > self.limits.max_bytes:
                self.truncate(f"more than {self.limits.max_bytes} bytes of recording (max_bytes)")

        self.guard(account)

    def truncate(self, reason: str) -> None:
        exchanges = len(self.client.exchanges) if self.client else 0
        self.truncated = RecordingStop(reason=reason, after_exchange=exchanges)
        self.warn(
            f"recording stopped: {reason}; the agent runs on, later calls are not "
            "recorded and the session cannot be replayed"
        )

    def location(self, forward: int) -> CallPlace:
        """The model call that led here: the last one made (its code made this call)."""
        last = self.client.last_call if self.client else None
        return last if last is not None and last.forward == forward else CallPlace(forward)

    def note_search(
        self,
        fw: ForwardRecording,
        kind: str,
        searches: Any,
        results: Any,
        already_loaded: Any,
        source: str,
    ) -> None:
        def note() -> None:
            place = self.location(fw.index)
            entry: JsonObject = {
                "kind": kind,
                "forward": place.forward,
                "stage": place.stage,
                "turn": place.turn,
                "call_index": place.call_index,
                "searches": [str(s) for s in searches or []],
            }
            if kind == "recall":
                entry["already_loaded"] = cast(JsonValue, ids_of(already_loaded))
            entry["results"] = self.bounded(list(results or []))
            entry["source"] = source
            # (what the app returned is checked as the session parser checks it)
            fw.searches.append(parse_search_call(entry, fw.index, f"session {self.id}"))

        self.guard(note)

    # ------------------------------------------------------------ wiring ---

    def wrap_client(self, client: Any) -> Any:
        """The app's axllm client, recorded: pass the result to `forward()`."""
        if isinstance(client, AppRecordingClient):
            return client
        if self.client is not None:
            self.warn("a second client was given: a session records one client")
        self.client = AppRecordingClient(client, self)
        return self.client

    def agent_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The agent's options with the recorder's observers, searches and tools."""
        out = dict(options)
        for kind, keys in CALLBACKS.items():
            key = option_key(options, keys)
            if key is None and kind.startswith("used_"):
                continue  # an on_used_* callback switches usage tracking on
            out[key or keys[0]] = self._observer(kind, options[key] if key else None)
        for kind, keys in HOST_SEARCHES.items():
            key = option_key(options, keys)
            if key is not None:
                self._host.add(kind)
                out[key] = self._host_search(kind, options[key])
        functions = wrap_functions(function_tools(options), self._tool)
        if functions is None:
            out.pop("functions", None)
        else:
            out["functions"] = functions
        return out

    def _observer(self, kind: str, app: Callable[..., Any] | None) -> Callable[[Any], Any]:
        def observer(payload: Any) -> Any:
            active = _ACTIVE.get()
            if active is not None and active[0] is self:
                fw = active[1]

                def note() -> None:
                    place = self.location(fw.index)
                    fw.callbacks.append(
                        Callback(
                            kind=kind,
                            payload=self.bounded(payload),
                            forward=place.forward,
                            stage=place.stage,
                            turn=place.turn,
                            call_index=place.call_index,
                            key_order=_CALLBACK_KEYS,
                        )
                    )

                self.guard(note)
            return app(payload) if app is not None else None

        return observer

    def _host_search(self, kind: str, app: Callable[..., Any]) -> Callable[..., Any]:
        def search(searches: Any, *rest: Any) -> Any:
            results = app(searches, *rest)
            active = _ACTIVE.get()
            if active is not None and active[0] is self:
                self.note_search(
                    active[1], kind, searches, results, rest[0] if rest else None, "host"
                )
            return results

        return search

    def _tool(self, name: str, namespace: str, handler: Callable[..., Any]) -> Callable[..., Any]:
        def recorded(args: Any, *rest: Any) -> Any:
            active = _ACTIVE.get()
            fw = active[1] if active is not None and active[0] is self else None
            call = None
            if fw is not None:
                call = self.guard(lambda: self._function_call(name, namespace, args, fw))
            started = time.perf_counter()
            try:
                result = handler(args, *rest)
            except Exception as exc:
                if call is not None and fw is not None:
                    failed, raised, elapsed = call, exc, _ms_since(started)
                    self.guard(
                        lambda: fw.function_calls.append(
                            replace(failed, error=_tool_error(raised), duration_ms=elapsed)
                        )
                    )
                raise
            if call is not None and fw is not None:
                elapsed = _ms_since(started)
                self.guard(
                    lambda: fw.function_calls.append(
                        replace(call, result=self.bounded(result), duration_ms=elapsed)
                    )
                )
            return result

        return recorded

    def _function_call(
        self, name: str, namespace: str, args: Any, fw: ForwardRecording
    ) -> FunctionCall:
        place = self.location(fw.index)
        return FunctionCall(
            name=name,
            qualified_name=f"{namespace}.{name}",
            args=self.bounded(args),
            forward=place.forward,
            stage=place.stage,
            turn=place.turn,
            call_index=place.call_index,
        )

    def agent(self, signature: str, options: Mapping[str, Any], *, name: str | None = None) -> Any:
        """`axllm.agent(signature, agent_options(options))`, recorded."""
        built = axllm.agent(signature, self.agent_options(options))
        return self.wrap_agent(built, signature=signature, options=options, name=name)

    def wrap_agent(
        self, agent: Any, *, signature: str, options: Mapping[str, Any], name: str | None = None
    ) -> Any:
        """Record the forwards of `agent` (built with `agent_options(options)`)."""
        if self.agent_info is not None:
            self.warn("a second agent was given: a session records one agent")
        self.agent_name, self.signature = name or self.name or "agent", signature
        self.agent_info = describe_agent(self.agent_name, signature, options)
        self.catalog = catalog_of(options)
        inner = agent.forward

        def forward(client: Any, values: Any, forward_options: Any = None) -> Any:
            return self._forward(agent, inner, client, values, forward_options)

        agent.forward = forward
        return agent

    @contextmanager
    def _active(self, fw: ForwardRecording) -> Iterator[None]:
        token = _ACTIVE.set((self, fw))
        try:
            yield
        finally:
            _ACTIVE.reset(token)

    def _forward(
        self, agent: Any, inner: Callable[..., Any], client: Any, values: Any, options: Any
    ) -> Any:
        index = len(self.forwards)
        if isinstance(client, AppRecordingClient):
            client.forward = index
        first = len(self.client.exchanges) if self.client else 0
        before = self.guard(lambda: jsonable(runtime_map(agent.export_runtime_state())))
        fw = ForwardRecording(
            index=index,
            inputs=self.guard(lambda: _object(self.bounded(values)), {}),
            forward_options=self.guard(lambda: jsonable(dict(options or {})), {}),
            started_at=utc_now(),
        )
        self.forwards.append(fw)
        try:
            with self._active(fw):
                output = (
                    inner(client, values, options) if options is not None else inner(client, values)
                )
            fw.output = self.guard(lambda: self.bounded(output))
            return output
        except BaseException as exc:
            fw.failed(exc)
            raise
        finally:
            self.guard(lambda: fw.finish(agent, self._new_exchanges(first), first, before))
            if self.autosave:
                self.save()

    def _new_exchanges(self, first: int) -> list[Exchange]:
        """The calls recorded since `first`, parsed as the session parser reads them."""
        records = self.client.exchanges if self.client else []
        for i in range(len(self.exchanges), len(records)):
            self.exchanges.append(
                parse_exchange(records[i], i, len(self.forwards), f"recorded call #{i}")
            )
        return self.exchanges[first:]

    # ------------------------------------------------------------ output ---

    def document(self) -> Session:
        """The session (checked by the session parser, secrets scrubbed)."""
        self._new_exchanges(len(self.exchanges))
        return app_session(
            session_id=self.id,
            name=self.name,
            created_at=self.created_at,
            versions=self._versions,
            agent=AppAgent(
                name=self.agent_name,
                signature=self.signature,
                describe=self.agent_info or describe_agent(self.agent_name, "", {}),
                catalog=self.catalog,
            ),
            client=self.client,
            host_search=bool(self._host),
            forwards=[fw.record() for fw in self.forwards],
            exchanges=self.exchanges,
            recorder=RecorderInfo(
                name=RECORDER_NAME,
                warnings=tuple(self.warnings),
                truncated=self.truncated,
                limits=cast(JsonObject, asdict(self.limits)),
                overhead_ms=round(self.overhead_ms, 3),
                save_ms=round(self.save_ms, 3),
            ),
            secrets=self.secrets + (environment_secrets() if self.scrub_environment else []),
        )

    def save(self, file: str | Path | None = None) -> SaveResult:
        """Write the session; never raises (a failure is a warning and `ok=False`)."""
        target = Path(file) if file is not None else self.file
        if target is None:
            return SaveResult(False, None, "no file given")
        started = time.perf_counter()
        try:
            return self._save(target)
        finally:
            self.save_ms += (time.perf_counter() - started) * 1000

    def _save(self, target: Path) -> SaveResult:
        text = self.guard(lambda: session_to_json_text(self.document()))
        if text is None:
            return SaveResult(False, target, "the session could not be serialised")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            write_file_atomic(target, text, "session file")
        except Exception as exc:
            self.warn(f"could not write {target}: {exc}")
            return SaveResult(False, target, str(exc))
        return SaveResult(True, target)


_CALLBACK_KEYS = ("kind", "payload", "forward", "stage", "turn", "call_index")


def _tool_error(exc: Exception) -> RunError:
    """What a function tool raised, as the recording keeps it."""
    info = describe_failure(exc)
    return RunError(
        kind=info.kind,
        type=type(exc).__name__,
        message=str(exc),
        status=info.status,
        retry_after=info.retry_after,
    )


def _ms_since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


def _object(value: JsonValue) -> JsonObject:
    """A forward's inputs as the session holds them (an object)."""
    return value if isinstance(value, dict) else {}
