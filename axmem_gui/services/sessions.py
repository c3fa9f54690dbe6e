"""Agent sessions as use cases: run live, replay offline, rerun, compare, what-if, and
keep sessions in the workspace or in `.axsession.json` files.

Every function takes plain data (and a cancel token / progress callback for the slow ones)
so the GUI's task runner can call it from a worker thread.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import AxmemError, InputError
from axmem_gui.core.formats import catalog_from_json_value
from axmem_gui.core.session.agent_config import (
    AgentConfig,
    agent_config_from_json,
    check_inputs,
    select_catalog,
)
from axmem_gui.core.session.app_session import complete_app_session, is_app_session, not_here
from axmem_gui.core.session.compare import SessionComparison, compare_sessions
from axmem_gui.core.session.format import (
    FILE_SUFFIX,
    session_from_json_text,
    session_summary,
    session_to_json_text,
)
from axmem_gui.core.session.verify import VerifyReport
from axmem_gui.core.session.whatif import RetrievalBackend, WhatIfReport, whatif_retrieval
from axmem_gui.engine.clients import CancelLike, ProgressCallback
from axmem_gui.engine.providers import ProviderSettings
from axmem_gui.engine.recorder import RunRequest, record_session
from axmem_gui.engine.replay import ReplayReport, check_replayable, verify_session
from axmem_gui.engine.replay import replay_session as _replay
from axmem_gui.engine.search import backend_named
from axmem_gui.services.files import read_utf8_file, write_file_atomic
from axmem_gui.services.providers import build_client
from axmem_gui.store.records import SessionSummary as SessionSummary

Transport = Callable[[Mapping[str, Any]], Any]

# ------------------------------------------------------------------ files ---


def read_session_file(path: Path) -> dict[str, Any]:
    """Load and validate a `.axsession.json` file; InputError names the file and field.
    A session recorded by an app gets the fields its recorder leaves to readers."""
    doc = session_from_json_text(read_utf8_file(path, "session file"), str(path))
    return complete_app_session(doc)


def write_session_file(doc: Mapping[str, Any], path: Path) -> None:
    """Write atomically (a temp file renamed into place): never a half-written session."""
    write_file_atomic(path, session_to_json_text(doc), "session file")


def default_file_name(doc: Mapping[str, Any]) -> str:
    return f"session-{doc.get('id')}{FILE_SUFFIX}"


# ------------------------------------------------------------------- runs ---


def agent_from_workspace(ws: Any, name: str) -> AgentConfig:
    value = ws.agents.get(name)
    if value is None:
        known = ", ".join(ws.agents.list()) or "none"
        raise InputError(f"no agent named '{name}' in {ws.path} (agents: {known})")
    return agent_config_from_json(value, f"{ws.path}: agent")


def run_agent(
    config: AgentConfig,
    catalog: Catalog,
    inputs: Sequence[Mapping[str, Any]],
    settings: ProviderSettings,
    *,
    context_map: Mapping[str, Any] | str | None = None,
    name: str = "",
    search: RetrievalBackend | str | None = None,
    cancel: CancelLike = None,
    progress: ProgressCallback | None = None,
    transport: Transport | None = None,
    origin: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Run `config` live over its share of `catalog`, one forward per inputs mapping, and
    return the recorded session (status "incomplete" with the error if it failed)."""
    if not inputs:
        raise InputError("a run needs inputs for at least one forward")
    for i, values in enumerate(inputs):
        check_inputs(config, values, f"inputs of forward {i + 1}")
    backend = search if not isinstance(search, str | type(None)) else backend_named(search)
    resolved = build_client(settings, transport=transport)
    request = RunRequest(
        config=config,
        catalog=select_catalog(catalog, config),
        inputs=tuple(dict(v) for v in inputs),
        context_map=context_map,
        name=name,
        origin=dict(origin or {"kind": "live"}),
    )
    return record_session(
        request,
        resolved.client,
        resolved.provider_json,
        backend=backend,
        cancel=cancel,
        progress=progress,
        secrets=resolved.secrets,
        http_attempts=resolved.http_attempts,
    )


def run_workspace_agent(
    ws: Any,
    agent_name: str,
    inputs: Sequence[Mapping[str, Any]],
    settings: ProviderSettings,
    **kwargs: Any,
) -> dict[str, Any]:
    """`run_agent` with the agent config and catalog taken from the workspace."""
    config = agent_from_workspace(ws, agent_name)
    return run_agent(config, ws.catalog(), inputs, settings, **kwargs)


def session_catalog(doc: Mapping[str, Any]) -> Catalog:
    return catalog_from_json_value(doc.get("catalog"), f"session {doc.get('id')}: catalog")


def rerun_session(
    doc: Mapping[str, Any],
    settings: ProviderSettings,
    *,
    catalog: Catalog | None = None,
    search: RetrievalBackend | str | None = None,
    cancel: CancelLike = None,
    progress: ProgressCallback | None = None,
    transport: Transport | None = None,
    name: str = "",
) -> dict[str, Any]:
    """Run a recorded session's inputs again, as a new session: on another provider/model,
    and/or over another catalog (default: the recorded one). It starts from the same
    context map the recording started from."""
    if is_app_session(doc):
        raise InputError(not_here(doc, "rerun"))
    config = agent_config_from_json(doc.get("agent"), f"session {doc.get('id')}: agent")
    forwards = [f for f in doc.get("forwards") or [] if isinstance(f, Mapping)]
    if not forwards:
        raise InputError(f"session {doc.get('id')} has no forwards to rerun")
    first_map = forwards[0].get("context_map_before")
    return run_agent(
        config,
        catalog if catalog is not None else session_catalog(doc),
        [dict(f.get("inputs") or {}) for f in forwards],
        settings,
        context_map=first_map if isinstance(first_map, Mapping) else None,
        name=name or f"rerun of {doc.get('name') or doc.get('id')}",
        search=search,
        cancel=cancel,
        progress=progress,
        transport=transport,
        origin={
            "kind": "rerun",
            "source_session": doc.get("id"),
            "catalog": "recorded" if catalog is None else "given",
        },
    )


def replay(
    doc: Mapping[str, Any],
    *,
    cancel: CancelLike = None,
    progress: ProgressCallback | None = None,
) -> ReplayReport:
    """Offline replay (no network). Raises ReplayRefused (an AxmemError) when the recording
    needs another axllm version."""
    return _replay(doc, cancel=cancel, progress=progress)


def verify(doc: Mapping[str, Any]) -> VerifyReport:
    """The file-only checks of a session, without running the agent (fast, for CI)."""
    return verify_session(doc)


def can_replay(doc: Mapping[str, Any]) -> str | None:
    """None when `doc` can be replayed here, else why not (for a disabled button)."""
    try:
        check_replayable(doc)
    except AxmemError as exc:
        return str(exc)
    return None


def compare(a: Mapping[str, Any], b: Mapping[str, Any]) -> SessionComparison:
    return compare_sessions(a, b)


def whatif(
    doc: Mapping[str, Any],
    catalog: Catalog | None = None,
    search: RetrievalBackend | str | None = None,
) -> WhatIfReport:
    """Recompute the session's discover/recall calls against `catalog` (default: the
    recorded one) with no model call."""
    backend = search if not isinstance(search, str | type(None)) else backend_named(search)
    return whatif_retrieval(doc, catalog if catalog is not None else session_catalog(doc), backend)


# -------------------------------------------------------------- workspace ---


def list_sessions(ws: Any) -> list[dict[str, Any]]:
    return [s.to_json() if hasattr(s, "to_json") else dict(s) for s in ws.sessions.list()]


def get_session(ws: Any, session_id: str) -> dict[str, Any]:
    doc = ws.sessions.get(session_id)
    if doc is None:
        raise InputError(f"no session '{session_id}' in {ws.path}")
    return dict(doc)


def save_session(ws: Any, doc: Mapping[str, Any]) -> str:
    return str(ws.sessions.save(dict(doc)))


def export_session(ws: Any, session_id: str, path: Path) -> None:
    doc = get_session(ws, session_id)
    # What the store gives back must still be a valid file (and fails loudly if not).
    checked = session_from_json_text(session_to_json_text(doc), f"session {session_id}")
    write_session_file(checked, path)


class SessionImport(NamedTuple):
    """Where an imported session file is in the workspace."""

    id: str
    #: False when the same session was already stored (under `id`): nothing was written.
    stored: bool
    #: The file's own id, when another session had it (`id` is then `<it>-N`).
    taken_id: str = ""


def import_session(ws: Any, path: Path) -> SessionImport:
    """Validate and store a session file. A stored session is never replaced: the same
    session again is left as it is (also when an earlier import kept it under `<id>-N`),
    a different one with a taken id is kept beside it under a new id (`<id>-2`, `<id>-3`,
    ...)."""
    return store_session(ws, read_session_file(path))


def store_session(ws: Any, doc: Mapping[str, Any]) -> SessionImport:
    """Store a validated session document as `import_session` does (never replacing a
    stored one). One transaction that holds the write lock from its first read: another
    connection cannot take the id between the look and the write."""
    session_id = str(doc["id"])
    canonical = ""  # made only when a stored session is there to compare (0.25 s at 25 MB)
    with ws.transaction(immediate=True):
        candidate, n = session_id, 1
        while (stored := ws.sessions.get(candidate)) is not None:
            canonical = canonical or _canonical(doc)
            if _canonical({**stored, "id": session_id}) == canonical:
                taken = "" if candidate == session_id else session_id
                return SessionImport(candidate, False, taken)
            n += 1
            candidate = f"{session_id}-{n}"
        taken = "" if candidate == session_id else session_id
        return SessionImport(save_session(ws, {**doc, "id": candidate}), True, taken)


def claims_warning(doc: Mapping[str, Any]) -> str:
    """ "" when everything the session claims that can be checked without running the
    agent holds (`verify`); otherwise the warning the CLI and the GUI give when they
    import it: "the file does not hold what it claims (N difference(s))"."""
    report = verify(doc)
    if report.ok:
        return ""
    return f"the file does not hold what it claims ({len(report.differences)} difference(s))"


class SessionImportCancelled(AxmemError):
    def __init__(self) -> None:
        super().__init__("import cancelled; nothing was imported")


@dataclass(frozen=True)
class FileImport:
    """What importing one file of a batch came to: `result`, or the `error` that kept it
    out; `warning` (`claims_warning`) for a file whose session was stored."""

    path: Path
    result: SessionImport | None
    error: str = ""
    warning: str = ""


#: `import_session_files` progress: the share of the work done, and what it is doing.
ImportProgress = Callable[[float, str], None]
#: Shares of a file's work: reading and validating, checking its claims (searches re-run
#: on its catalog); storing them all takes the rest.
_READ_SHARE, _CHECK_SHARE = 0.25, 0.55


def import_session_files(
    ws: Any,
    paths: Sequence[Path],
    *,
    cancel: Callable[[], bool] | None = None,
    progress: ImportProgress | None = None,
) -> list[FileImport]:
    """Import several session files (as `import_session` each), all or nothing: a file
    that cannot be read or is not a valid session is reported in its `FileImport` and
    the others go on; what is stored goes in one transaction, after every file was read
    and checked (the write lock is held for the writes only). A `cancel` that returns
    True before the commit raises SessionImportCancelled, and nothing was written.

    Every file's claims are checked before anything is stored (so a cancel never comes
    between a commit and its warning): also those found already stored, whose warning is
    then not given (as the CLI gives none)."""
    report = progress or (lambda _f, _m: None)
    count = len(paths)
    store_from = _READ_SHARE + _CHECK_SHARE

    def check() -> None:
        if cancel is not None and cancel():
            raise SessionImportCancelled()

    outcomes: list[FileImport | None] = [None] * count
    checked: list[tuple[int, dict[str, Any], str]] = []
    for i, path in enumerate(paths):
        check()
        of = f" ({i + 1} of {count})" if count > 1 else ""
        report(store_from * i / count, f"reading {path.name}{of}")
        try:
            doc = read_session_file(path)
            check()
            report((store_from * i + _READ_SHARE) / count, f"checking {path.name}{of}")
            warning = claims_warning(doc)
        except SessionImportCancelled:
            raise
        except AxmemError as exc:
            outcomes[i] = FileImport(path, None, str(exc))
        else:
            checked.append((i, doc, warning))
    check()
    if checked:
        report(store_from, "storing in the workspace")
        with ws.transaction(immediate=True):
            for done, (i, doc, warning) in enumerate(checked):
                check()
                try:  # (a savepoint of its own: a file that fails leaves nothing)
                    result = store_session(ws, doc)
                except AxmemError as exc:
                    outcomes[i] = FileImport(paths[i], None, str(exc))
                else:
                    outcomes[i] = FileImport(paths[i], result, "", warning if result.stored else "")
                report(store_from + (1 - store_from) * (done + 1) / len(checked), "")
            check()  # the last moment a cancel undoes it all
    report(1.0, "done")
    return [o for o in outcomes if o is not None]


def _canonical(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc, sort_keys=True, ensure_ascii=False)


def summary(doc: Mapping[str, Any]) -> dict[str, Any]:
    return session_summary(doc)
