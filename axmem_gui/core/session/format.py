"""The `.axsession.json` file: constants, validation and (de)serialisation.

The full field list is documented in docs/axsession-format.md. The loader checks the
structure the app relies on and reports the first problem as an InputError naming the file
and the JSON path (`session.axsession.json: exchanges[3]: field 'digest' must be a string`);
it never lets a malformed file through to a traceback later on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from axmem_gui.core import jsontext
from axmem_gui.core.errors import InputError
from axmem_gui.core.formats import catalog_from_json_value
from axmem_gui.core.jsontext import REQUIRED, Field, type_name
from axmem_gui.core.jsout import json_dumps

FORMAT = "axsession"
VERSION = 1
FILE_SUFFIX = ".axsession.json"
STATUSES = ("complete", "incomplete")
FORWARD_STATUSES = ("complete", "failed", "cancelled", "not_run")


class _Checker:
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
        spec = Field(kinds, default=REQUIRED if required else None, nullable=nullable, **rules)
        return jsontext.check_field(obj, key, self.where(path), spec)


def _at(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _check_exchange(c: _Checker, ex: Any, i: int, forwards: int) -> None:
    path = f"exchanges[{i}]"
    if not isinstance(ex, dict):
        raise c.fail(path, f"an exchange must be an object, got {type_name(ex)}")
    index = c.field(ex, "index", (int,), path)
    if index != i:
        raise c.fail(path, f"field 'index' is {index}, expected {i} (exchanges must be in order)")
    fwd = c.field(ex, "forward", (int,), path)
    if not 0 <= fwd < max(forwards, 1):
        raise c.fail(path, f"field 'forward' is {fwd}, but the session has {forwards} forward(s)")
    c.field(ex, "stage", (str,), path)
    c.field(ex, "turn", (int,), path)
    digest = c.field(ex, "digest", (str,), path)
    if not digest.startswith("sha256:"):
        raise c.fail(path, "field 'digest' must start with 'sha256:'")
    request = c.field(ex, "request", (dict,), path)
    prompt = c.field(request, "chat_prompt", (list,), _at(path, "request"))
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
        results = c.field(response, "results", (list,), _at(path, "response"))
        for j, result in enumerate(results):
            if not isinstance(result, dict):
                raise c.fail(f"{path}.response.results[{j}]", "a result must be an object")
    if error is not None:
        c.field(error, "type", (str,), _at(path, "error"))
        c.field(error, "message", (str,), _at(path, "error"))
    c.field(ex, "duration_ms", (int, float), path, required=False, nullable=True)
    usage = c.field(ex, "usage", (dict,), path, required=False, nullable=True)
    if usage:
        for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
            c.field(usage, key, (int,), _at(path, "usage"), required=False, nullable=True)


def _check_forward(c: _Checker, fw: Any, i: int) -> None:
    path = f"forwards[{i}]"
    if not isinstance(fw, dict):
        raise c.fail(path, f"a forward must be an object, got {type_name(fw)}")
    index = c.field(fw, "index", (int,), path)
    if index != i:
        raise c.fail(path, f"field 'index' is {index}, expected {i}")
    c.field(fw, "inputs", (dict,), path)
    c.field(fw, "forward_options", (dict,), path, required=False)
    c.field(fw, "status", (str,), path, choices=FORWARD_STATUSES)
    for key in ("context_map_before", "context_map_after"):
        cm = c.field(fw, key, (dict,), path, required=False, nullable=True)
        if cm is not None:
            c.field(cm, "text", (str,), _at(path, key))
    for key in ("turns", "searches", "callbacks", "action_log", "function_calls"):
        items = c.field(fw, key, (list,), path, required=False, nullable=True)
        for j, item in enumerate(items or []):
            if not isinstance(item, dict):
                raise c.fail(f"{path}.{key}[{j}]", "must be an object")
    for j, call in enumerate(fw.get("function_calls") or []):
        # An app's function tools (docs/recorders.md): only ever shown, never run.
        c.field(call, "name", (str,), f"{path}.function_calls[{j}]")
    for j, search in enumerate(fw.get("searches") or []):
        spath = f"{path}.searches[{j}]"
        c.field(search, "kind", (str,), spath, choices=("discover", "recall"))
        c.field(search, "source", (str,), spath, required=False, choices=("catalog", "host"))
        c.field(search, "searches", (list,), spath, items=Field((str,)))
        results = c.field(search, "results", (list,), spath)
        if not all(isinstance(r, dict) and isinstance(r.get("id"), str) for r in results):
            raise c.fail(spath, "field 'results' must be a list of objects with a string 'id'")


def validate_session(value: Any, source: str = "session") -> dict[str, Any]:
    """Check a parsed `.axsession.json` value; returns it (as a dict) or raises InputError."""
    c = _Checker(source)
    if not isinstance(value, dict):
        raise c.fail("", f"expected a JSON object, got {type_name(value)}")
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
    c.field(value, "id", (str,), "", non_empty=True)
    c.field(value, "name", (str,), "", required=False)
    c.field(value, "created_at", (str,), "")
    c.field(value, "status", (str,), "", choices=STATUSES)
    error = c.field(value, "error", (dict,), "", required=False, nullable=True)
    if error is not None:
        c.field(error, "message", (str,), "error")
    c.field(value, "warnings", (list,), "", required=False, nullable=True, items=Field((str,)))
    versions = c.field(value, "versions", (dict,), "")
    # A session recorded by a TypeScript app names the Ax package instead of axllm.
    runtime = "ax" if "ax" in versions and "axllm" not in versions else "axllm"
    c.field(versions, runtime, (str,), "versions")
    agent = c.field(value, "agent", (dict,), "")
    c.field(agent, "name", (str,), "agent")
    c.field(agent, "signature", (str,), "agent")
    catalog_from_json_value(c.field(value, "catalog", (dict,), ""), f"{source}: catalog")
    provider = c.field(value, "provider", (dict,), "")
    c.field(provider, "name", (str,), "provider")
    c.field(provider, "model", (str,), "provider", nullable=True)
    search = c.field(value, "search", (dict,), "", required=False)
    if search is not None:
        c.field(search, "backend", (str,), "search")
    forwards = c.field(value, "forwards", (list,), "")
    for i, fw in enumerate(forwards):
        _check_forward(c, fw, i)
    exchanges = c.field(value, "exchanges", (list,), "")
    for i, ex in enumerate(exchanges):
        _check_exchange(c, ex, i, len(forwards))
    return value


def session_from_json_text(text: str, source: str = "session") -> dict[str, Any]:
    return validate_session(jsontext.loads(text, source), source)


def session_to_json_text(doc: Mapping[str, Any]) -> str:
    return json_dumps(doc, indent=1, sort_keys=False) + "\n"


def session_summary(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The short description a session list shows."""
    provider = doc.get("provider") if isinstance(doc.get("provider"), dict) else {}
    agent = doc.get("agent") if isinstance(doc.get("agent"), dict) else {}
    exchanges = doc.get("exchanges") if isinstance(doc.get("exchanges"), list) else []
    forwards = doc.get("forwards") if isinstance(doc.get("forwards"), list) else []
    assert isinstance(provider, dict) and isinstance(agent, dict)
    return {
        "id": doc.get("id"),
        "name": doc.get("name", ""),
        "agent": agent.get("name", ""),
        "provider": provider.get("name", ""),
        "model": provider.get("model"),
        "status": doc.get("status"),
        "created_at": doc.get("created_at"),
        "forwards": len(forwards or []),
        "exchanges": len(exchanges or []),
    }
