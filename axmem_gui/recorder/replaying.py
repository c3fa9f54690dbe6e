"""Replay a recorded session of an app's axllm agent in the app's own tests, offline.

The studio's replay client (engine.clients.ReplayClient) serves the recorded responses in
order and checks each request's digest; the first difference stops the run. Recorded
function results (opt-in per function) and host search results (opt-in) are served instead
of calling the app's code. A difference is raised as `SessionMismatch` (an AssertionError,
so pytest shows it as a test failure) naming the call and carrying a unified diff.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import axllm

from axmem_gui.core.session.app_session import is_host_search
from axmem_gui.core.session.model import COMPLETE, Exchange, Forward, Session
from axmem_gui.core.session.payloads import runtime_map, truncated_preview
from axmem_gui.core.session.replay_cursor import Divergence, SearchCursor
from axmem_gui.core.session.verify import json_diff
from axmem_gui.engine.clients import ReplayClient, jsonable, recorded_error
from axmem_gui.recorder.wiring import HOST_SEARCHES, function_tools, option_key, wrap_functions
from axmem_gui.services.sessions import read_session_file


class SessionMismatch(AssertionError):
    """The agent now does something else than the recording: where, and a diff."""

    def __init__(
        self,
        kind: str,
        message: str,
        diff: str = "",
        *,
        call: int | None = None,
        stage: str | None = None,
        forward: int | None = None,
    ) -> None:
        super().__init__(f"{message}\n\n{diff}" if diff else message)
        self.kind = kind
        self.summary = message
        self.diff = diff
        self.call = call
        self.stage = stage
        self.forward = forward


def _mismatch(divergence: Divergence, exchanges: Sequence[Exchange]) -> SessionMismatch:
    recorded = exchanges[divergence.index] if divergence.index < len(exchanges) else None
    turn = recorded.turn if recorded is not None else None
    where = f", forward {divergence.forward}, turn {turn}" if divergence.forward is not None else ""
    message = f"replay: {divergence.message}"
    if divergence.kind == "prompt":
        message = (
            f"replay: call #{divergence.index} ({divergence.recorded_stage}{where}) differs from "
            f"the recording: the agent now asks something else"
        )
    return SessionMismatch(
        divergence.kind,
        message,
        divergence.diff,
        call=divergence.index,
        stage=divergence.recorded_stage,
        forward=divergence.forward,
    )


class SessionReplayer:
    """Serve a recorded session back to the app's agent (see the module docstring).

    ```python
    player = SessionReplayer.load("sessions/support.axsession.json", functions=["lookupOwner"])
    support = player.agent("question:string -> answer:string", options)
    assert support.forward(player.client(), player.inputs(0)) == player.output(0)
    player.assert_complete()
    ```
    """

    def __init__(
        self,
        session: Session,
        *,
        functions: Sequence[str] = (),
        host_searches: str = "live",
    ) -> None:
        self.session = session
        stop = session.recorder.truncated if session.recorder is not None else None
        if stop is not None:
            raise ValueError(
                f"this session cannot be replayed: its recording stopped early ({stop.reason})"
            )
        if host_searches not in ("live", "recorded"):
            raise ValueError("host_searches must be 'live' or 'recorded'")
        self.served = set(functions)
        self.host_searches = host_searches
        self.exchanges = session.exchanges
        self._client = ReplayClient(
            self.exchanges,
            features=session.client_features or {},
            model=session.provider.model,
        )
        self.forward_index = 0
        self._calls: dict[str, int] = {}
        self._searches: SearchCursor | None = None
        self.mismatch: SessionMismatch | None = None

    @classmethod
    def load(cls, path: str | Path, **options: Any) -> SessionReplayer:
        """Read and check a session file (bounded size, checked structure)."""
        return cls(read_session_file(Path(path)), **options)

    # ------------------------------------------------------------ the recording ---

    @property
    def forwards(self) -> tuple[Forward, ...]:
        return self.session.forwards

    def inputs(self, i: int = 0) -> dict[str, Any]:
        return copy.deepcopy(dict(self.forwards[i].inputs))

    def output(self, i: int = 0) -> Any:
        return copy.deepcopy(self.forwards[i].output)

    def client(self) -> ReplayClient:
        """The client to pass to forward(): no network, no key."""
        return self._client

    @property
    def position(self) -> int:
        return self._client.cursor.position

    # ------------------------------------------------------------ the agent ---

    def _fail(self, error: SessionMismatch) -> SessionMismatch:
        if self.mismatch is None:
            self.mismatch = error
        return self.mismatch

    def agent_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        out = dict(options)
        if self.host_searches == "recorded":
            for kind, keys in HOST_SEARCHES.items():
                key = option_key(options, keys)
                if key is not None:
                    out[key] = self._served_search(kind)
        functions = function_tools(out)
        if functions is not None:
            out["functions"] = wrap_functions(functions, self._served_tool)
        return out

    def _served_search(self, kind: str) -> Callable[..., Any]:
        def search(searches: Any, *rest: Any) -> Any:
            if self._searches is None:
                fw = self.forwards[self.forward_index]
                self._searches = SearchCursor([s for s in fw.search_calls if is_host_search(s)])
            return self._searches.take(kind, [str(s) for s in searches or []])

        return search

    def _served_tool(
        self, name: str, namespace: str, handler: Callable[..., Any]
    ) -> Callable[..., Any]:
        qualified = f"{namespace}.{name}"
        if name not in self.served and qualified not in self.served:
            return handler

        def served(args: Any, *rest: Any) -> Any:
            fw = (
                self.forwards[self.forward_index]
                if self.forward_index < len(self.forwards)
                else None
            )
            recorded_calls = fw.function_call_list if fw is not None else ()
            calls = [c for c in recorded_calls if c.qualified_name == qualified]
            n = self._calls.get(qualified, 0)
            where = f"forward {self.forward_index}, {qualified} call #{n}"
            if n >= len(calls):
                raise self._fail(
                    SessionMismatch(
                        "function",
                        f"replay: {where} is not in the recording "
                        f"({len(calls)} call(s) of {qualified} in this forward)",
                    )
                )
            recorded = calls[n]
            if jsonable(args) != recorded.args:
                raise self._fail(
                    SessionMismatch(
                        "function",
                        f"replay: {where} (made after call #{recorded.call_index}) "
                        "has other arguments than recorded",
                        json_diff(
                            recorded.args,
                            jsonable(args),
                            f"{qualified} arguments",
                            ("recorded", "replayed"),
                        ),
                    )
                )
            self._calls[qualified] = n + 1
            if truncated_preview(recorded.result):
                raise self._fail(
                    SessionMismatch(
                        "function", f"replay: {where}: its result was too large to record"
                    )
                )
            if recorded.error is not None:
                raise recorded_error(recorded.error)
            return copy.deepcopy(recorded.result)

        return served

    def agent(self, signature: str, options: Mapping[str, Any]) -> Any:
        """`axllm.agent(signature, agent_options(options))`, replayed."""
        return self.wrap_agent(axllm.agent(signature, self.agent_options(options)))

    def wrap_agent(self, agent: Any) -> Any:
        inner = agent.forward

        def forward(client: Any, values: Any, options: Any = None) -> Any:
            i = self.forward_index
            self._calls = {}
            self._searches = None
            try:
                output = (
                    inner(client, values, options) if options is not None else inner(client, values)
                )
            except Exception as exc:
                divergence = self._client.cursor.divergence
                if divergence is not None:
                    raise self._fail(_mismatch(divergence, self.exchanges)) from exc
                if self.mismatch is not None:
                    raise self.mismatch from exc
                raise
            finally:
                self.forward_index += 1
            self._compare(agent, i, output)
            return output

        agent.forward = forward
        return agent

    def _compare(self, agent: Any, i: int, output: Any) -> None:
        recorded = self.forwards[i] if i < len(self.forwards) else None
        if recorded is None:
            return
        if recorded.status == COMPLETE and jsonable(output) != recorded.output:
            raise self._fail(
                SessionMismatch(
                    "output",
                    f"replay: forward {i} answered differently from the recording",
                    json_diff(
                        recorded.output,
                        jsonable(output),
                        f"forwards[{i}].output",
                        ("recorded", "replayed"),
                    ),
                    forward=i,
                )
            )
        after = jsonable(runtime_map(agent.export_runtime_state()))
        if recorded.context_map_after is not None and after != recorded.context_map_after:
            raise self._fail(
                SessionMismatch(
                    "context_map",
                    f"replay: forward {i} left another context map than recorded",
                    json_diff(
                        recorded.context_map_after,
                        after,
                        f"forwards[{i}].context_map_after",
                        ("recorded", "replayed"),
                    ),
                    forward=i,
                )
            )

    def assert_complete(self) -> None:
        """Raises SessionMismatch unless every recorded model call was used and nothing
        differed."""
        if self.mismatch is not None:
            raise self.mismatch
        divergence = self._client.cursor.finish()
        if divergence is not None:
            raise self._fail(_mismatch(divergence, self.exchanges))
