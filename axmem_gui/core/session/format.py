"""The `.axsession.json` edge: the one parser and the one writer of session documents.

The full field list is documented in docs/axsession-format.md. `parse_session` checks a
parsed JSON value and builds the typed `Session` (core.session.model) in one pass; the
first problem is an InputError naming the file and the JSON path
(`session.axsession.json: exchanges[3]: field 'digest' must be a string, got a number`),
so a malformed file never gets as far as a traceback. `session_to_json_text` writes a
session back: a file read and written again is the same file, byte for byte (unknown keys
and the key order are kept by the records).

Every file, stored document and recording enters here: `services.sessions` reads files
and the workspace through it, the recorder hands its document to it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from axmem_gui.core import jsontext
from axmem_gui.core.errors import InputError
from axmem_gui.core.formats import catalog_from_json_value
from axmem_gui.core.jsontext import Field, type_name
from axmem_gui.core.jsout import json_dumps
from axmem_gui.core.printable import printable
from axmem_gui.core.records import JsonObject, shape_of
from axmem_gui.core.session.agent_config import AgentConfig, agent_config_from_json
from axmem_gui.core.session.digest import digest_scheme
from axmem_gui.core.session.format_parts import (
    Checker,
    at,
    attempts_of,
    callbacks,
    code_limits,
    function_calls,
    limit_hits,
    map_settings_rule,
    map_snapshots,
    map_update,
    recorder_info,
    request_params,
    run_error,
    search_calls,
    search_info,
    session_origin,
    session_provider,
    session_versions,
    strings,
    token_usage,
    turns,
    wire_record,
)
from axmem_gui.core.session.model import (
    Exchange,
    Forward,
    HttpAttempt,
    SearchCall,
    Session,
    SessionAgent,
    SessionCatalog,
)

FORMAT = "axsession"
#: The version this axmem writes; it reads every one up to it (docs/axsession-format.md).
VERSION = 2
FILE_SUFFIX = ".axsession.json"
#: The keys a recording writes, in order: a forward that ran, one that did not, the
#: session (the recorder gives its records these orders, nulls included).
FORWARD_KEYS = (
    "index",
    "inputs",
    "forward_options",
    "started_at",
    "status",
    "output",
    "error",
    "context_map_before",
    "context_map_after",
    "context_map_update",
    "exchange_range",
    "turns",
    "searches",
    "callbacks",
    "action_log",
    "usage",
    "trace",
)
NOT_RUN_KEYS = ("index", "inputs", "forward_options", "status", "output", "error")
SESSION_KEYS = (
    "format",
    "version",
    "id",
    "name",
    "created_at",
    "status",
    "error",
    "origin",
    "versions",
    "agent",
    "catalog",
    "provider",
    "client_features",
    "search",
    "forwards",
    "exchanges",
    "contextMapSnapshots",
    "warnings",
    "context_map_settings",
)

#: What an app's Python recording writes (axmem_gui.recorder): the forward with the app's
#: function-tool calls after its callbacks, a forward that did not finish recording, the
#: session with the recorder's account last.
APP_FORWARD_KEYS = (*FORWARD_KEYS[:14], "function_calls", *FORWARD_KEYS[14:])
APP_STARTED_KEYS = (*NOT_RUN_KEYS[:3], "started_at", *NOT_RUN_KEYS[3:])
APP_SESSION_KEYS = (*(k for k in SESSION_KEYS if k != "context_map_settings"), "recorder")

STATUSES = ("complete", "incomplete")
FORWARD_STATUSES = ("complete", "failed", "cancelled", "not_run")


def _exchange(c: Checker, ex: Any, i: int, forwards: int) -> Exchange:
    path = f"exchanges[{i}]"
    if not isinstance(ex, dict):
        raise c.fail(path, f"an exchange must be an object, got {type_name(ex)}")
    index = c.field(ex, "index", (int,), path)
    if index != i:
        raise c.fail(path, f"field 'index' is {index}, expected {i} (exchanges must be in order)")
    fwd = c.field(ex, "forward", (int,), path)
    if not 0 <= fwd < max(forwards, 1):
        raise c.fail(path, f"field 'forward' is {fwd}, but the session has {forwards} forward(s)")
    stage = c.field(ex, "stage", (str,), path)
    turn = c.field(ex, "turn", (int,), path)
    digest = c.field(ex, "digest", (str,), path)
    if digest_scheme(digest) is None:
        raise c.fail(path, "field 'digest' must start with 'sha256:' or 'sha256-v2:'")
    request = c.field(ex, "request", (dict,), path)
    prompt = c.field(request, "chat_prompt", (list,), at(path, "request"))
    for j, message in enumerate(prompt):
        mpath = f"{path}.request.chat_prompt[{j}]"
        if not isinstance(message, dict):
            raise c.fail(mpath, f"a message must be an object, got {type_name(message)}")
        c.field(message, "role", (str,), mpath)
    response = c.field(ex, "response", (dict,), path, nullable=True)
    error = c.field(ex, "error", (dict,), path, required=False, nullable=True)
    if response is None and error is None:
        raise c.fail(path, "an exchange needs a 'response' or an 'error'")
    if response is not None:
        results = c.field(response, "results", (list,), at(path, "response"))
        for j, result in enumerate(results):
            if not isinstance(result, dict):
                raise c.fail(f"{path}.response.results[{j}]", "a result must be an object")
    if error is not None:
        c.field(error, "type", (str,), at(path, "error"))
        c.field(error, "message", (str,), at(path, "error"))
    duration = c.field(ex, "duration_ms", (int, float), path, required=False, nullable=True)
    usage = c.field(ex, "usage", (dict,), path, required=False, nullable=True)
    if usage:
        for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
            c.field(usage, key, (int,), at(path, "usage"), required=False, nullable=True)
    attempts = c.field(ex, "http_attempts", (list,), path, required=False, nullable=True)
    params = c.field(ex, "params", (dict,), path, required=False, nullable=True)
    wire = c.field(ex, "wire", (dict,), path, required=False, nullable=True)
    return Exchange(
        index=index,
        forward=fwd,
        stage=stage,
        turn=turn,
        digest=digest,
        request=request,
        response=response,
        error=None if error is None else run_error(c, error, at(path, "error")),
        started_at=c.optional(ex, "started_at", (str,), path),
        duration_ms=duration,
        usage=None if usage is None else token_usage(c, usage, at(path, "usage")),
        attempts=attempts_of(c, ex, path),
        stream=c.optional(ex, "stream", (bool,), path),
        chunks=c.optional(ex, "chunks", (list,), path),
        http_attempts=None if attempts is None else _http_attempts(c, attempts, path),
        params=None if params is None else request_params(c, params, at(path, "params")),
        wire=None if wire is None else wire_record(c, wire, at(path, "wire")),
        **shape_of(ex, Exchange),
    )


def _http_attempts(c: Checker, items: list[Any], path: str) -> tuple[HttpAttempt, ...]:
    out = []
    for j, item in enumerate(items):
        where = f"{path}.http_attempts[{j}]"
        if not isinstance(item, dict):
            raise c.fail(where, "must be an object")
        out.append(
            HttpAttempt(
                method=c.optional(item, "method", (str,), where),
                url=c.optional(item, "url", (str,), where),
                **shape_of(item, HttpAttempt),
            )
        )
    return tuple(out)


def _forward(c: Checker, fw: Any, i: int) -> Forward:
    path = f"forwards[{i}]"
    if not isinstance(fw, dict):
        raise c.fail(path, f"a forward must be an object, got {type_name(fw)}")
    index = c.field(fw, "index", (int,), path)
    if index != i:
        raise c.fail(path, f"field 'index' is {index}, expected {i}")
    inputs = c.field(fw, "inputs", (dict,), path)
    options = c.field(fw, "forward_options", (dict,), path, required=False)
    status = c.field(fw, "status", (str,), path, choices=FORWARD_STATUSES)
    maps = {}
    for key in ("context_map_before", "context_map_after"):
        cm = c.field(fw, key, (dict,), path, required=False, nullable=True)
        if cm is not None:
            c.field(cm, "text", (str,), at(path, key))
        maps[key] = cm
    for key in ("turns", "searches", "callbacks", "action_log", "function_calls"):
        items = c.field(fw, key, (list,), path, required=False, nullable=True)
        for j, item in enumerate(items or []):
            if not isinstance(item, dict):
                raise c.fail(f"{path}.{key}[{j}]", "must be an object")
    found_searches = search_calls(c, fw, path)
    error = c.field(fw, "error", (dict,), path, required=False, nullable=True)
    update = c.field(fw, "context_map_update", (dict,), path, required=False, nullable=True)
    return Forward(
        index=index,
        inputs=inputs,
        forward_options=options,
        started_at=c.optional(fw, "started_at", (str,), path),
        status=status,
        output=fw.get("output"),
        error=None if error is None else run_error(c, error, at(path, "error")),
        context_map_before=maps["context_map_before"],
        context_map_after=maps["context_map_after"],
        context_map_update=None
        if update is None
        else map_update(c, update, at(path, "context_map_update")),
        exchange_range=_range(c, fw, path),
        turns=turns(c, fw, path),
        searches=found_searches,
        callbacks=callbacks(c, fw, path),
        function_calls=function_calls(c, fw, path),
        action_log=fw.get("action_log"),
        usage=fw.get("usage"),
        trace=fw.get("trace"),
        context_map_update_ax=fw.get("context_map_update_ax"),
        code_limits_hit=limit_hits(c, fw, path),
        **shape_of(fw, Forward),
    )



def _range(c: Checker, fw: dict[str, Any], path: str) -> tuple[int, int] | None:
    value = c.optional(fw, "exchange_range", (list,), path)
    if value is None:
        return None
    if len(value) != 2 or any(jsontext.type_problem(v, (int,)) for v in value):
        raise c.fail(path, "field 'exchange_range' must be a list of two integers [first, end)")
    return value[0], value[1]


def _agent(c: Checker, value: dict[str, Any], session_id: str) -> SessionAgent:
    agent = c.field(value, "agent", (dict,), "")
    name = c.field(agent, "name", (str,), "agent")
    signature = c.field(agent, "signature", (str,), "agent")
    config: AgentConfig | None
    try:
        config = agent_config_from_json(agent, f"session {session_id}: agent")
    except InputError as exc:  # still a session: replay says why it cannot run
        config, problem = None, str(exc)
    else:
        problem = ""
    return SessionAgent(
        name=name,
        signature=signature,
        config=config,
        problem=problem,
        # what the file says, as verify reads it (a config this axmem refuses included)
        has_context_map=bool(agent.get("contextMap")),
        raw=agent,
    )



def _check_version(c: Checker, value: dict[str, Any]) -> int:
    fmt = value.get("format")
    if fmt != FORMAT:
        raise c.fail("", f"not an axsession file (field 'format' is {fmt!r}, expected 'axsession')")
    version = value.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise c.fail("", "field 'version' must be an integer")
    if version > VERSION:
        raise c.fail(
            "",
            f"written by a newer axmem (axsession version {version}); this axmem reads "
            f"version {VERSION}: update axmem to open it",
        )
    if version < 1:
        raise c.fail("", f"unknown axsession version {version}")
    return version


def parse_session(value: Any, source: str = "session", *, head: bool = False) -> Session:
    """A parsed `.axsession.json` value as a typed Session, or an InputError naming
    `source` and the place. `head`: a stored session read without its exchanges (it
    reads as a session with none)."""
    c = Checker(source)
    if not isinstance(value, dict):
        raise c.fail("", f"expected a JSON object, got {type_name(value)}")
    version = _check_version(c, value)
    session_id = c.field(value, "id", (str,), "", non_empty=True)
    if _CONTROL.search(session_id):
        # An id is shown in lists, terminals and file names: a NUL or an escape sequence
        # in it would show as something else, or cut it short.
        shown = printable(session_id, keep_newlines=False)
        raise c.fail("", f"field 'id' must not contain control characters, got '{shown}'")
    name = c.field(value, "name", (str,), "", required=False)
    created_at = c.field(value, "created_at", (str,), "")
    status = c.field(value, "status", (str,), "", choices=STATUSES)
    error = c.field(value, "error", (dict,), "", required=False, nullable=True)
    if error is not None:
        c.field(error, "message", (str,), "error")
    warnings = c.field(
        value, "warnings", (list,), "", required=False, nullable=True, items=Field((str,))
    )
    versions = session_versions(c, value)
    agent = _agent(c, value, session_id)
    raw_catalog = c.field(value, "catalog", (dict,), "")
    catalog = catalog_from_json_value(raw_catalog, f"{source}: catalog")
    provider = session_provider(c, value)
    search = search_info(c, value)
    origin = session_origin(c, value)
    features = c.optional(value, "client_features", (dict,), "")
    raw_forwards = c.field(value, "forwards", (list,), "")
    forwards = tuple(_forward(c, fw, i) for i, fw in enumerate(raw_forwards))
    if head and "exchanges" not in value:
        raw_exchanges: list[Any] = []
    else:
        raw_exchanges = c.field(value, "exchanges", (list,), "")
    exchanges = tuple(_exchange(c, ex, i, len(forwards)) for i, ex in enumerate(raw_exchanges))
    return Session(
        format=FORMAT,
        version=version,
        id=session_id,
        name=name,
        created_at=created_at,
        status=status,
        error=None if error is None else run_error(c, error, "error"),
        origin=origin,
        versions=versions,
        agent=agent,
        catalog=SessionCatalog(catalog=catalog, raw=raw_catalog),
        provider=provider,
        client_features=features,
        search=search,
        code_limits=code_limits(c, value),
        forwards=forwards,
        exchanges=exchanges,
        map_snapshots=map_snapshots(c, value),
        warnings=None if warnings is None else strings(warnings),
        recorder=recorder_info(c, value),
        context_map_settings=map_settings_rule(c, value),
        **shape_of(value, Session),
    )


def parse_exchange(value: Any, index: int, forwards: int, source: str = "session") -> Exchange:
    """One model call (`exchanges[index]`) as the recorder hands it over, checked as the
    session parser checks it."""
    return _exchange(Checker(source), value, index, forwards)


def parse_search_call(value: Any, forward: int, source: str = "session") -> SearchCall:
    """One discover/recall call of forward `forward` as a recorder hands it over, checked
    as the session parser checks a forward's searches."""
    c = Checker(source)
    path = f"forwards[{forward}]"
    if not isinstance(value, dict):
        raise c.fail(f"{path}.searches[0]", "must be an object")
    found = search_calls(c, {"searches": [value]}, path)
    assert found is not None
    return found[0]


def is_session_value(value: Any) -> bool:
    """Whether a parsed JSON value says it is a session file (its `format`)."""
    return isinstance(value, dict) and value.get("format") == FORMAT


def session_from_json_text(text: str, source: str = "session") -> Session:
    """A session file's text as a Session. A leading UTF-8 byte order mark is skipped (the
    file is still UTF-8; RFC 8259 lets a reader ignore one, and Windows editors add it);
    a key named twice in one object is refused, naming it: which of the two a reader
    keeps is not defined, so the file says two things."""
    if text.startswith(_BOM):
        text = text[len(_BOM) :]
    try:
        value = jsontext.parse(text, object_pairs_hook=_unique_keys)
    except _KeyTwice as exc:
        raise InputError(f"{source}: {exc}") from None
    except ValueError as exc:
        raise InputError(f"{source}: {jsontext.error_message(exc)}") from None
    return parse_session(value, source)


_BOM = "\ufeff"
#: C0 and C1 control characters and DEL.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


class _KeyTwice(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) == len(pairs):
        return out
    seen: set[str] = set()
    for key, _value in pairs:
        if key in seen:
            break
        seen.add(key)
    keys = ", ".join(printable(k) for k, _v in pairs[:12])
    raise _KeyTwice(
        f"not a session file: the key '{printable(key)}' appears twice in one object (its "
        f"keys: {keys}); JSON does not say which one counts, so a session file names each "
        "key once"
    )


def safe_file_stem(text: str, limit: int = 80) -> str:
    """`text` fit for a file name on any system: only letters, digits, `-`, `_` and `.`
    (anything else, path separators and `..` included, becomes `_`), at most `limit`
    characters."""
    stem = _UNSAFE_NAME.sub("_", text).replace("..", "_")[:limit]
    return stem or "_"


_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]")


def session_to_json(session: Session) -> JsonObject:
    """The session as the JSON object it is written as (values shared, not copied)."""
    return session.to_json()


def session_to_json_text(session: Session) -> str:
    return json_dumps(session.to_json(), indent=1, sort_keys=False) + "\n"


def session_summary(session: Session) -> dict[str, Any]:
    """The short description a session list shows."""
    return {
        "id": session.id,
        "name": session.name if session.name is not None else "",
        "agent": session.agent.name,
        "provider": session.provider.name,
        "model": session.provider.model,
        "status": session.status,
        "created_at": session.created_at,
        "forwards": len(session.forwards),
        "exchanges": len(session.exchanges),
    }


def with_id(session: Session, session_id: str) -> Session:
    """The same session under another id (an import that keeps a taken id's session)."""
    return replace(session, id=session_id)
