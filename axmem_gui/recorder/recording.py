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
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import axllm

from axmem_gui.core.session.contextmap_update import describe_update
from axmem_gui.core.session.derive import (
    map_snapshots,
    map_warnings,
    trace_without_logs,
    turns,
    without_run_token,
)
from axmem_gui.core.session.format import FORMAT, VERSION, session_to_json_text, validate_session
from axmem_gui.core.session.redact import scrub_secrets
from axmem_gui.engine.clients import jsonable, utc_now
from axmem_gui.engine.errors import describe_failure
from axmem_gui.engine.recorder import new_session_id
from axmem_gui.engine.versions import runtime_versions
from axmem_gui.recorder.client import AppRecordingClient
from axmem_gui.recorder.wiring import (
    CALLBACKS,
    HOST_SEARCHES,
    catalog_of,
    describe_agent,
    ids_of,
    option_key,
    wrap_functions,
)
from axmem_gui.services.files import write_file_atomic

RECORDER_NAME = "axmem_gui.recorder"
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


@dataclass
class _Forward:
    index: int
    searches: list[dict[str, Any]] = field(default_factory=list)
    callbacks: list[dict[str, Any]] = field(default_factory=list)
    function_calls: list[dict[str, Any]] = field(default_factory=list)


_ACTIVE: contextvars.ContextVar[tuple[SessionRecorder, _Forward] | None] = contextvars.ContextVar(
    "axmem_recorder_active", default=None
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
        self.truncated: dict[str, Any] | None = None
        #: The recorder's own time in model calls, and in writing the file (ms).
        self.overhead_ms = 0.0
        self.save_ms = 0.0
        self._versions = runtime_versions(None)  # package metadata lookups are slow
        self.client: AppRecordingClient | None = None
        self.forwards: list[dict[str, Any]] = []
        self.agent_info: dict[str, Any] | None = None
        self.catalog: dict[str, list[dict[str, Any]]] = {"skills": [], "memories": []}
        self._bytes = 0
        self._host = {"discover": False, "recall": False}
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

    def bounded(self, value: Any) -> Any:
        plain = jsonable(value)
        text = session_to_json_text(plain)
        if len(text) <= self.limits.max_value_chars:
            return plain
        self.warn(
            f"a value of {len(text)} characters was kept as a preview "
            f"(max_value_chars is {self.limits.max_value_chars})"
        )
        return {"truncated": True, "chars": len(text), "preview": text[:2000]}

    def exchange_done(self, client: AppRecordingClient) -> None:
        def account() -> None:
            if self.truncated or not client.exchanges:
                return
            self._bytes += len(session_to_json_text(client.exchanges[-1]))
            if len(client.exchanges) >= self.limits.max_exchanges:
                self.truncate(f"more than {self.limits.max_exchanges} model calls (max_exchanges)")
            elif self._bytes > self.limits.max_bytes:
                self.truncate(f"more than {self.limits.max_bytes} bytes of recording (max_bytes)")

        self.guard(account)

    def truncate(self, reason: str) -> None:
        exchanges = len(self.client.exchanges) if self.client else 0
        self.truncated = {"reason": reason, "after_exchange": exchanges}
        self.warn(
            f"recording stopped: {reason}; the agent runs on, later calls are not "
            "recorded and the session cannot be replayed"
        )

    def location(self, forward: int) -> dict[str, Any]:
        """The model call that led here: the last one made (its code made this call)."""
        last = self.client.exchanges[-1] if self.client and self.client.exchanges else None
        if last is not None and last.get("forward") != forward:
            last = None
        return {
            "forward": forward,
            "stage": last.get("stage") if last else None,
            "turn": last.get("turn") if last else None,
            "call_index": last.get("index") if last else None,
        }

    def note_search(
        self,
        fw: _Forward,
        kind: str,
        searches: Any,
        results: Any,
        already_loaded: Any,
        source: str,
    ) -> None:
        def note() -> None:
            entry: dict[str, Any] = {"kind": kind, **self.location(fw.index)}
            entry["searches"] = [str(s) for s in searches or []]
            if kind == "recall":
                entry["already_loaded"] = ids_of(already_loaded)
            entry["results"] = self.bounded(list(results or []))
            entry["source"] = source
            fw.searches.append(entry)

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
            out[key or keys[0]] = self._observer(kind, options.get(key) if key else None)
        for kind, keys in HOST_SEARCHES.items():
            key = option_key(options, keys)
            if key is not None:
                self._host[kind] = True
                out[key] = self._host_search(kind, options[key])
        out["functions"] = wrap_functions(options.get("functions"), self._tool)
        if out["functions"] is None:
            del out["functions"]
        return out

    def _observer(self, kind: str, app: Callable[..., Any] | None) -> Callable[[Any], Any]:
        def observer(payload: Any) -> Any:
            active = _ACTIVE.get()
            if active is not None and active[0] is self:
                fw = active[1]
                self.guard(
                    lambda: fw.callbacks.append(
                        {"kind": kind, "payload": self.bounded(payload), **self.location(fw.index)}
                    )
                )
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
            entry = (
                self.guard(
                    lambda: {
                        "name": name,
                        "qualified_name": f"{namespace}.{name}",
                        "args": self.bounded(args),
                        **self.location(fw.index if fw else 0),
                    }
                )
                if fw
                else None
            )
            started = time.perf_counter()
            try:
                result = handler(args, *rest)
            except Exception as exc:
                if entry is not None and fw is not None:
                    info = describe_failure(exc)
                    fw.function_calls.append(
                        {
                            **entry,
                            "result": None,
                            "error": {
                                **info.to_json(),
                                "type": type(exc).__name__,
                                "message": str(exc),
                            },
                        }
                    )
                raise
            if entry is not None and fw is not None:
                elapsed = round((time.perf_counter() - started) * 1000, 3)
                self.guard(
                    lambda: fw.function_calls.append(
                        {
                            **entry,
                            "result": self.bounded(result),
                            "error": None,
                            "duration_ms": elapsed,
                        }
                    )
                )
            return result

        return recorded

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
        self.agent_info = describe_agent(name or self.name or "agent", signature, options)
        self.catalog = catalog_of(options)
        inner = agent.forward

        def forward(client: Any, values: Any, forward_options: Any = None) -> Any:
            return self._forward(agent, inner, client, values, forward_options)

        agent.forward = forward
        return agent

    @contextmanager
    def _active(self, fw: _Forward) -> Iterator[None]:
        token = _ACTIVE.set((self, fw))
        try:
            yield
        finally:
            _ACTIVE.reset(token)

    def _forward(
        self, agent: Any, inner: Callable[..., Any], client: Any, values: Any, options: Any
    ) -> Any:
        fw = _Forward(len(self.forwards))
        if isinstance(client, AppRecordingClient):
            client.forward = fw.index
        first = len(self.client.exchanges) if self.client else 0
        before = self.guard(lambda: jsonable(agent.export_runtime_state().get("context_map")))
        record: dict[str, Any] = {
            "index": fw.index,
            "inputs": self.guard(lambda: self.bounded(values), {}),
            "forward_options": self.guard(lambda: jsonable(dict(options or {})), {}),
            "started_at": utc_now(),
            "status": "complete",
            "output": None,
            "error": None,
        }
        self.forwards.append(record)
        try:
            with self._active(fw):
                output = (
                    inner(client, values, options) if options is not None else inner(client, values)
                )
            record["output"] = self.guard(lambda: self.bounded(output))
            return output
        except BaseException as exc:
            info = describe_failure(exc)
            record["status"] = "cancelled" if info.kind == "cancelled" else "failed"
            record["error"] = {**info.to_json(), "detail": str(exc), "forward": fw.index}
            raise
        finally:
            self.guard(lambda: self._finish_forward(agent, fw, record, first, before))
            if self.autosave:
                self.save()

    def _finish_forward(
        self, agent: Any, fw: _Forward, record: dict[str, Any], first: int, before: Any
    ) -> None:
        exchanges = self.client.exchanges[first:] if self.client else []
        trace = jsonable(agent.export_trace())
        after = jsonable(agent.export_runtime_state().get("context_map"))
        has_map = before is not None or after is not None
        if record["error"] is not None:
            failed = next((e for e in reversed(exchanges) if e.get("error")), None)
            record["error"]["call_index"] = failed.get("index") if failed else None
        record.update(
            {
                "context_map_before": before,
                "context_map_after": after,
                "context_map_update": describe_update(exchanges, before, after)
                if has_map
                else None,
                "exchange_range": [first, first + len(exchanges)],
                "turns": turns(trace, exchanges),
                "searches": fw.searches,
                "callbacks": fw.callbacks,
                "function_calls": fw.function_calls,
                "action_log": without_run_token(jsonable(agent.get_action_log())),
                "usage": jsonable(agent.get_usage()),
                "trace": trace_without_logs(trace),
            }
        )

    # ------------------------------------------------------------ output ---

    def document(self) -> dict[str, Any]:
        """The session document (validated, secrets scrubbed)."""
        client = self.client
        failed = next((f for f in self.forwards if f["status"] in ("failed", "cancelled")), None)
        has_map = any(
            f.get("context_map_after") or f.get("context_map_before") for f in self.forwards
        )
        agent = self.agent_info or describe_agent(self.name or "agent", "", {})
        model = getattr(client.inner, "model", None) if client else None
        doc: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "id": self.id,
            "name": self.name or f"{agent['name']} · {model or '?'}",
            "created_at": self.created_at,
            "status": "incomplete" if failed else "complete",
            "error": failed["error"] if failed else None,
            "origin": {"kind": "app", "language": "python", "recorder": RECORDER_NAME},
            "versions": dict(self._versions),
            "agent": agent,
            "catalog": self.catalog,
            "provider": {
                "name": client.name if client else "unknown",
                "model": None if model is None else str(model),
                "model_config": jsonable(client.model_config) if client else None,
                "api_key_source": {"kind": "app"},
            },
            "client_features": jsonable(client.get_features()) if client else {},
            "search": {
                "backend": "axllm-builtin",
                "profile": None,
                "host": self._host["discover"] or self._host["recall"],
            },
            # jsonable() below copies the whole document (C-speed json round trip).
            "forwards": self.forwards,
            "exchanges": client.exchanges if client else [],
            "contextMapSnapshots": map_snapshots(self.forwards) if has_map else [],
            "warnings": map_warnings(self.forwards),
            "recorder": {
                "name": RECORDER_NAME,
                "warnings": list(self.warnings),
                "truncated": self.truncated,
                "limits": asdict(self.limits),
                "overhead_ms": round(self.overhead_ms, 3),
                "save_ms": round(self.save_ms, 3),
            },
        }
        secrets = self.secrets + (environment_secrets() if self.scrub_environment else [])
        doc = scrub_secrets(jsonable(doc), secrets)
        return validate_session(doc, f"session {self.id}")

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
