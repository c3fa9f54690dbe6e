"""The `.axsession.json` document as typed records (docs/axsession-format.md).

`core.session.format` parses a file (or a stored document, or what the recorder made)
into these once, and writes them back; everything in between reads attributes. Where the
line is (docs/design.md, "Typed at the edges"): what the session *is* and what the code
navigates by is typed here; what axllm produced and we store verbatim (a request, a
response, a trace, a context-map state, the action log) is a `JsonValue` in a typed field,
read only by `core.session.payloads`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.records import JsonList, JsonObject, JsonValue, Record, key, optional
from axmem_gui.core.session.agent_config import AgentConfig
from axmem_gui.core.session.code_limits import CodeLimits, LimitHit
from axmem_gui.core.session.map_records import MapSettingsRule, MapSnapshot, MapUpdate
from axmem_gui.core.session.payloads import payload_ids

COMPLETE = "complete"
#: `searches[j].source` of a search an app's own callback answered.
HOST_SEARCH = "host"
INCOMPLETE = "incomplete"
#: How a forward ended (`not_run`: an earlier forward ended the session first).
FAILED, CANCELLED, NOT_RUN = "failed", "cancelled", "not_run"
#: What came of an actor call (`Turn.outcome`).
RAN, REFUSED, INVALID_OUTPUT, TIMEOUT, UNUSED = (
    "ran",
    "refused",
    "invalid_output",
    "timeout",
    "unused",
)
TURN_OUTCOMES = (RAN, REFUSED, INVALID_OUTPUT, TIMEOUT, CANCELLED, FAILED, UNUSED)


@dataclass(frozen=True, slots=True, kw_only=True)
class RunError(Record):
    """An error that ended a model call, a forward or the session (*Errors*)."""

    kind: str | None = None
    type: str | None = None
    message: str = ""
    status: int | None = field(default=None, metadata=optional())
    retry_after: str | int | float | None = field(default=None, metadata=optional())
    retryable: bool | None = field(default=None, metadata=optional())
    #: A forward's error: axllm's own message, and where it happened.
    detail: str | None = field(default=None, metadata=optional())
    forward: int | None = field(default=None, metadata=optional())
    call_index: int | None = field(default=None, metadata=optional())


@dataclass(frozen=True, slots=True, kw_only=True)
class Origin(Record):
    kind: str | None = None  # live | rerun | sample | app
    source_session: str | None = field(default=None, metadata=optional())
    catalog: str | None = field(default=None, metadata=optional())  # recorded | given
    #: A session recorded by an app (`kind: "app"`): its language and recorder.
    language: str | None = field(default=None, metadata=optional())  # typescript | python
    recorder: str | None = field(default=None, metadata=optional())


@dataclass(frozen=True, slots=True, kw_only=True)
class Versions(Record):
    """What ran the recording. A TypeScript app's recording names the `@ax-llm/ax`
    package (`ax`) and has no `axllm` (the parser requires one of the two)."""

    app: str | None = None
    axllm: str | None = field(default=None, metadata=optional())
    quickjs: str | None = None
    python: str | None = None
    ax_profile: str | None = None
    ax: str | None = field(default=None, metadata=optional())
    #: The profile the prompts follow (docs/runtimes.md); absent in files written before.
    prompt_profile: str | None = field(default=None, metadata=optional())

    @property
    def runtime(self) -> str:
        """`@ax-llm/ax 24.0.21` or `axllm 25.4.6`: what ran the recorded agent."""
        if self.ax is not None and self.axllm is None:
            return f"@ax-llm/ax {self.ax}"
        return f"axllm {self.axllm or '?'}"

    @property
    def prompts(self) -> str:
        """The profile the session's prompts follow: `prompt_profile`, or for a file
        without it, the runtime's that recorded it (`ax-<ax>` for a TypeScript app's
        recording, else `axllm-<axllm>`)."""
        if self.prompt_profile:
            return self.prompt_profile
        if self.ax is not None and self.axllm is None:
            return f"ax-{self.ax}"
        return f"axllm-{self.axllm}"


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionAgent(Record):
    """The agent config the session ran, kept as written (`raw`), with its reading:
    `config`, or the `problem` that keeps it from being one (a file may carry a config
    this axmem refuses; it still opens, and replay says why it cannot run)."""

    name: str
    signature: str
    config: AgentConfig | None
    problem: str = ""
    #: The agent has a context map (its `contextMap` is set).
    has_context_map: bool = False
    raw: JsonObject = field(default_factory=dict, repr=False)

    def to_json(self) -> JsonObject:
        if self.raw:
            return self.raw
        if self.config is not None:
            return self.config.to_json()
        return {"name": self.name, "signature": self.signature}

    @classmethod
    def of(cls, config: AgentConfig) -> SessionAgent:
        """The agent block a recording writes for `config`."""
        return cls(
            name=config.name,
            signature=config.signature,
            config=config,
            has_context_map=config.context_map is not None,
            raw=config.to_json(),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionCatalog(Record):
    """The entries the agent received (`catalog`), kept as written (`raw`)."""

    catalog: Catalog
    raw: JsonObject = field(default_factory=dict, repr=False)

    def to_json(self) -> JsonObject:
        return self.raw if self.raw else catalog_json(self.catalog)

    @classmethod
    def of(cls, catalog: Catalog) -> SessionCatalog:
        """The catalog block a recording writes: the entries as Ax got them, and tags."""
        return cls(catalog=catalog, raw=catalog_json(catalog))


def catalog_json(catalog: Catalog) -> JsonObject:
    return {
        "skills": [{**s.to_ax(), "tags": list(s.tags)} for s in catalog.skills],
        "memories": [{**m.to_ax(), "tags": list(m.tags)} for m in catalog.memories],
    }


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionProvider(Record):
    """The provider choices of the run (never a key): `provider` in the file."""

    name: str
    model: str | None = None
    base_url: str | None = field(default=None, metadata=optional())
    structured_output: str | None = field(default=None, metadata=optional())
    api_key_env: str | None = field(default=None, metadata=optional())
    timeout_s: float | None = field(default=None, metadata=optional())
    max_retries: int | None = field(default=None, metadata=optional())
    retry_policy: JsonObject | None = field(default=None, metadata=optional())
    stream: bool | None = field(default=None, metadata=optional())
    #: The reply size limit, when not the default (32 MiB).
    max_reply_mib: float | None = field(default=None, metadata=optional())
    api_key_source: JsonObject | None = field(default=None, metadata=optional())
    request_headers: JsonObject | None = field(default=None, metadata=optional())


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchInfo(Record):
    backend: str
    profile: str | None = None
    host: bool | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TokenUsage(Record):
    prompt_tokens: int | None = field(default=None, metadata=optional())
    completion_tokens: int | None = field(default=None, metadata=optional())
    total_tokens: int | None = field(default=None, metadata=optional())


@dataclass(frozen=True, slots=True, kw_only=True)
class HttpAttempt(Record):
    method: str | None = None
    url: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestParams(Record):
    """The provider-neutral parameters that decided one model call (`exchanges[i].params`,
    written by the app recorders; provisional: the studio's own runs will record them too,
    issue #29). `model_config` is the client's or service's effective config merged with
    the request's, as JSON."""

    model: str | None = None
    temperature: int | float | None = None
    max_tokens: int | None = None
    stream: bool | None = None
    tool_choice: JsonValue = None
    model_config: JsonObject | None = None
    #: TypeScript Ax's `functionCallMode`, when the service sets one.
    function_call_mode: str | None = field(default=None, metadata=optional())


@dataclass(frozen=True, slots=True, kw_only=True)
class Attempt(Record):
    """One attempt of the retry policy (`exchanges[i].attempts[j]`): `outcome` is `ok`,
    `cancelled` or the failure kind; a retried one says how long the policy waited."""

    outcome: str | None = None
    error: RunError | None = field(default=None, metadata=optional())
    retry_in_s: int | float | None = field(default=None, metadata=optional())
    duration_ms: int | float | None = field(default=None, metadata=optional())


@dataclass(frozen=True, slots=True, kw_only=True)
class WireRecord(Record):
    """What went over the wire in a call's last HTTP attempt (`exchanges[i].wire`, the
    studio's version 2 runs): the settings of the request body (the body without the
    prompt, tools and format, which `request` holds), the HTTP status and the provider's
    raw reply (JSON, or a streamed reply's text), None when none came."""

    request: JsonObject
    status: int | None = None
    response: JsonValue = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Exchange(Record):
    """One model call (`exchanges[i]`). `request` and `response` are axllm's JSON, kept
    verbatim: the digest covers the request, replay serves the response back."""

    index: int
    forward: int
    stage: str
    turn: int
    digest: str
    request: JsonObject
    response: JsonObject | None
    error: RunError | None = None
    started_at: str | None = None
    duration_ms: float | None = None
    usage: TokenUsage | None = field(default=None, metadata=optional())
    attempts: tuple[Attempt, ...] | None = field(default=None, metadata=optional())
    stream: bool | None = field(default=None, metadata=optional())
    chunks: JsonList | None = field(default=None, metadata=optional())
    http_attempts: tuple[HttpAttempt, ...] | None = field(default=None, metadata=optional())
    params: RequestParams | None = field(default=None, metadata=optional())
    wire: WireRecord | None = field(default=None, metadata=optional())

    @property
    def tokens(self) -> tuple[int, int]:
        """(prompt, completion) tokens as the provider reported them (0 when not)."""
        if self.usage is None:
            return 0, 0
        return self.usage.prompt_tokens or 0, self.usage.completion_tokens or 0

    @property
    def ms(self) -> float:
        return float(self.duration_ms or 0.0)


@dataclass(frozen=True, slots=True, kw_only=True)
class Turn(Record):
    """One actor turn's code and runtime output (`forwards[i].turns[j]`, derived from the
    trace and the actor calls); `kind`, `runtime_turn`, `output`, `result` and `error` are
    the trace's. Version 1 files list the turns whose code ran; version 2 files one turn
    per actor call, with its outcome."""

    stage: str | None = None
    turn: int | None = None
    call_index: int | None = None
    runtime_turn: JsonValue = None
    kind: JsonValue = None
    code: str = ""
    output: JsonValue = None
    result: JsonValue = None
    is_error: bool = False
    error: JsonValue = None
    #: What came of the call (version 2 files; `TURN_OUTCOMES`): `ran`, `refused` (the
    #: runtime's policy refused the code: `message`), `invalid_output` (a reply axllm could
    #: not use: `message` is why, `retry` the retry it asked for, none when it gave up),
    #: `timeout`, `cancelled`, `failed`, `unused` (a reply Ax did not act on).
    outcome: str | None = field(default=None, metadata=optional())
    retry: int | None = field(default=None, metadata=optional())
    message: str | None = field(default=None, metadata=optional())
    #: What the model is shown about this turn on the next call of its stage: the part of
    #: the Action Log (with the runtime output) the turn added, or the correction it gets.
    next_view: str | None = field(default=None, metadata=optional())


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchResult(Record):
    """What a discover (id, name, content) or recall (id, content) call returned."""

    id: str
    name: str | None = field(default=None, metadata=optional())
    content: str | None = field(default=None, metadata=optional())


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchCall(Record):
    """One discover/recall call (`forwards[i].searches[j]`) and where it was made."""

    kind: str  # discover | recall
    forward: int | None = None
    stage: str | None = None
    turn: int | None = None
    call_index: int | None = None
    searches: tuple[str, ...] = ()
    already_loaded: tuple[str, ...] | None = field(default=None, metadata=optional())
    results: tuple[SearchResult, ...] = ()
    #: Who answered (an app's recording): the agent's own catalog search, or the app's
    #: `onSkillsSearch`/`onMemoriesSearch` callback (shown as recorded, never searched
    #: again). The studio's own runs leave it out: their searches are catalog searches.
    source: str | None = field(default=None, metadata=optional())  # catalog | host

    @property
    def result_ids(self) -> tuple[str, ...]:
        return tuple(r.id for r in self.results)

    @property
    def by_host(self) -> bool:
        return self.source == HOST_SEARCH


@dataclass(frozen=True, slots=True, kw_only=True)
class FunctionCall(Record):
    """One call of an app's function tool (`forwards[i].function_calls[j]`, recorded by
    the app recorders): shown, never run here. `args` and `result` are the app's JSON
    (`payloads.truncated_preview` tells a result kept as a preview)."""

    name: str
    qualified_name: str | None = None  # `utils.lookupOwner`
    args: JsonValue = None
    #: Where it was made: the model call whose code called it.
    forward: int | None = None
    stage: str | None = None
    turn: int | None = None
    call_index: int | None = None
    result: JsonValue = None
    error: RunError | None = None
    duration_ms: float | None = field(default=None, metadata=optional())

    @property
    def label(self) -> str:
        return self.qualified_name or self.name


@dataclass(frozen=True, slots=True, kw_only=True)
class Callback(Record):
    """An observer callback (`loaded_skills`, `used_memories`, ...); `payload` is what
    axllm passed."""

    kind: str | None = None
    payload: JsonValue = None
    forward: int | None = field(default=None, metadata=optional())
    stage: str | None = field(default=None, metadata=optional())
    turn: int | None = field(default=None, metadata=optional())
    call_index: int | None = field(default=None, metadata=optional())


@dataclass(frozen=True, slots=True, kw_only=True)
class Forward(Record):
    """One `forward()` call (`forwards[i]`). The context maps are axllm's map states."""

    index: int
    inputs: JsonObject
    forward_options: JsonObject | None = field(default=None, metadata=optional())
    started_at: str | None = field(default=None, metadata=optional())
    status: str
    output: JsonValue = None
    error: RunError | None = None
    context_map_before: JsonObject | None = field(default=None, metadata=optional())
    context_map_after: JsonObject | None = field(default=None, metadata=optional())
    context_map_update: MapUpdate | None = field(default=None, metadata=optional())
    exchange_range: tuple[int, int] | None = field(default=None, metadata=optional())
    turns: tuple[Turn, ...] | None = field(default=None, metadata=optional())
    searches: tuple[SearchCall, ...] | None = field(default=None, metadata=optional())
    callbacks: tuple[Callback, ...] | None = field(default=None, metadata=optional())
    #: An app's function-tool calls (app recorders only).
    function_calls: tuple[FunctionCall, ...] | None = field(default=None, metadata=optional())
    action_log: JsonList | None = field(default=None, metadata=optional())
    usage: JsonValue = field(default=None, metadata=optional())
    trace: JsonValue = field(default=None, metadata=optional())
    #: What TypeScript Ax reported to the map's `onUpdate` (Ax's own JSON, read by
    #: `payloads.ax_update_report`); a TypeScript recording has no `context_map_update`.
    context_map_update_ax: JsonValue = field(default=None, metadata=optional())
    #: Where a limit stopped the model's code (written only when one did).
    code_limits_hit: tuple[LimitHit, ...] | None = field(default=None, metadata=optional())

    @property
    def ran(self) -> bool:
        return self.status != NOT_RUN

    @property
    def search_calls(self) -> tuple[SearchCall, ...]:
        return self.searches or ()

    @property
    def callback_list(self) -> tuple[Callback, ...]:
        return self.callbacks or ()

    @property
    def function_call_list(self) -> tuple[FunctionCall, ...]:
        return self.function_calls or ()

    def callback_ids(self, kind: str) -> list[str]:
        """Ids reported to an observer callback (loaded_skills, used_memories, ...), in
        order, without repeats."""
        out: list[str] = []
        for event in self.callback_list:
            if event.kind == kind:
                out.extend(i for i in payload_ids(event.payload) if i not in out)
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordingStop(Record):
    """Why an app's recording stopped at its limits (the file cannot be replayed)."""

    reason: str
    after_exchange: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RecorderInfo(Record):
    """`recorder`: what an app recorder says about its recording (docs/recorders.md)."""

    name: str | None = None
    version: str | None = field(default=None, metadata=optional())
    warnings: tuple[str, ...] | None = None
    truncated: RecordingStop | None = None
    limits: JsonObject | None = None
    overhead_ms: float | None = field(default=None, metadata=optional())
    save_ms: float | None = field(default=None, metadata=optional())


@dataclass(frozen=True, slots=True, kw_only=True)
class Session(Record):
    """A recorded session. `exchanges` is empty for a head (a stored session read
    without its model calls, for lists and map timelines)."""

    format: str = "axsession"
    version: int = 1
    id: str
    name: str | None = field(default=None, metadata=optional())
    created_at: str
    status: str
    error: RunError | None = None
    origin: Origin | None = field(default=None, metadata=optional())
    versions: Versions
    agent: SessionAgent
    catalog: SessionCatalog
    provider: SessionProvider
    client_features: JsonObject | None = field(default=None, metadata=optional())
    search: SearchInfo | None = field(default=None, metadata=optional())
    #: The limits the model's code ran under (written only when not the defaults).
    code_limits: CodeLimits | None = field(default=None, metadata=optional())
    forwards: tuple[Forward, ...] = ()
    exchanges: tuple[Exchange, ...] = ()
    #: The stored copy of a derived list: readers derive it from the forwards
    #: (`derive.map_snapshots`), `verify` compares this copy with that.
    map_snapshots: tuple[MapSnapshot, ...] | None = field(
        default=None, metadata=key("contextMapSnapshots", optional=True)
    )
    warnings: tuple[str, ...] | None = field(default=None, metadata=optional())
    #: An app recorder's own account of the recording.
    recorder: RecorderInfo | None = field(default=None, metadata=optional())
    #: Which context-map settings applied (version 2, an agent with a map).
    context_map_settings: MapSettingsRule | None = field(default=None, metadata=optional())

    @property
    def label(self) -> str:
        """What lists and titles call the session: its name, else its id."""
        return self.name or self.id

    @property
    def complete(self) -> bool:
        return self.status == COMPLETE

    @property
    def ran_forwards(self) -> tuple[Forward, ...]:
        return tuple(f for f in self.forwards if f.ran)

    @property
    def warning_list(self) -> tuple[str, ...]:
        return self.warnings or ()

    def exchanges_of(self, forward: int) -> tuple[Exchange, ...]:
        return tuple(e for e in self.exchanges if e.forward == forward)

    def search_calls(self) -> Iterator[tuple[Forward, SearchCall]]:
        for fw in self.forwards:
            for call in fw.search_calls:
                yield fw, call

    @property
    def limits(self) -> CodeLimits:
        """The limits the model's code ran under (the defaults, when the file names none)."""
        return self.code_limits or CodeLimits()

    @property
    def limits_hit(self) -> tuple[LimitHit, ...]:
        return tuple(h for f in self.forwards for h in f.code_limits_hit or ())

    @property
    def failed_forward(self) -> Forward | None:
        """The forward that ended the session early (failed or cancelled), if one did."""
        return next((f for f in self.forwards if f.status in (FAILED, CANCELLED)), None)
