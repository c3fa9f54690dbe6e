"""The sessions a workspace stores, and session files: the one service that owns them.

`SessionService` is the owner of the sessions stored in a workspace: the GUI (its undoable
delete, its import job) and the CLI list, read, store, import, export and delete them
through it, and it reads every stored document through the session parser
(core.session.format), so nothing above it sees a stored dict. `SessionJobs` is the same
service for a task-runner job, which opens its own connection.

No Ax runtime here (the context-map timeline reads sessions before the first paint): what
needs it (live runs, replay, the file checks of an import) is services.sessions.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import AxmemError, InputError
from axmem_gui.core.providers import ProviderSettings
from axmem_gui.core.session.analytics import (
    SessionTotals,
    UsageReport,
    session_totals,
    usage_from_sessions,
)
from axmem_gui.core.session.format import (
    FILE_SUFFIX,
    parse_session,
    safe_file_stem,
    session_from_json_text,
    session_to_json,
    session_to_json_text,
    with_id,
)
from axmem_gui.core.session.model import Session
from axmem_gui.core.session.redact import without_credentials
from axmem_gui.services.files import read_utf8_file, write_file_atomic
from axmem_gui.services.settings import SettingsService
from axmem_gui.services.workspace import open_workspace
from axmem_gui.store import Workspace

# ------------------------------------------------------------------ files ---


def read_session_file(path: Path) -> Session:
    """Load and check a `.axsession.json` file; InputError names the file and field."""
    return session_from_json_text(read_utf8_file(path, "session file"), str(path))


def write_session_file(session: Session, path: Path) -> None:
    """Write atomically (a temp file renamed into place): never a half-written session,
    never a credential in its URLs."""
    write_file_atomic(path, session_to_json_text(without_credentials(session)), "session file")


def default_file_name(session: Session) -> str:
    """The name an export suggests: the id made safe (an imported id may hold `/`, `..`
    or anything else)."""
    return f"session-{safe_file_stem(session.id)}{FILE_SUFFIX}"


# -------------------------------------------------------------- workspace ---


@dataclass(frozen=True)
class SessionRow:
    """A stored session as lists show it (without reading its document)."""

    id: str
    name: str
    agent: str
    provider: str
    model: str
    status: str
    created_at: str
    exchanges: int
    #: Why it is in quarantine ("" when it is not): imported from a file that does not
    #: hold what it claims; its code runs only once someone confirms.
    quarantine: str = ""

    @property
    def label(self) -> str:
        return self.name or self.id

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


class SessionImport(NamedTuple):
    """Where an imported session file is in the workspace."""

    id: str
    #: False when the same session was already stored (under `id`): nothing was written.
    stored: bool
    #: The file's own id, when another session had it (`id` is then `<it>-N`).
    taken_id: str = ""


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


#: `import_files` progress: the share of the work done, and what it is doing.
ImportProgress = Callable[[float, str], None]
#: Shares of a file's work: reading and validating, checking its claims (searches re-run
#: on its catalog); storing them all takes the rest.
_READ_SHARE, _CHECK_SHARE = 0.25, 0.55


def _canonical(value: Mapping[str, Any]) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _nothing_changed() -> None:
    pass


class SessionService:
    """The sessions of one open workspace (its connection belongs to the caller's
    thread). Writes are transactions and end with `changed()`, the change notice."""

    def __init__(self, ws: Workspace, changed: Callable[[], None] = _nothing_changed) -> None:
        self._ws = ws
        self._changed = changed

    @property
    def read_only(self) -> bool:
        return bool(self._ws.read_only)

    @property
    def folder(self) -> Path:
        """The folder the workspace file is in (where file dialogs start)."""
        return Path(self._ws.path).parent

    def jobs(self) -> SessionJobs:
        """This service for a task-runner job (which opens its own connection)."""
        return SessionJobs(Path(self._ws.path))

    # the provider the last run used (a convenience: a rerun or the next run starts
    # there), kept in the workspace settings, whose one owner is the settings service
    def last_provider(self) -> ProviderSettings | None:
        try:
            return SettingsService(self._ws).read().last_provider
        except AxmemError:
            return None

    # quarantine: a session imported from a file that does not hold what it claims (its
    # `verify` failed) runs no code until the user says so (`trust`); kept in the
    # workspace settings
    def quarantine(self) -> dict[str, str]:
        """The sessions in quarantine, with why."""
        return dict(SettingsService(self._ws).read().quarantine)

    def quarantined(self, session_id: str) -> str:
        """Why session `session_id` is in quarantine ("" when it is not)."""
        return self.quarantine().get(session_id, "")

    def trust(self, session_id: str) -> None:
        """The user confirmed: session `session_id` may be replayed and rerun."""
        self._set_quarantine(session_id, "")
        self._changed()

    def _set_quarantine(self, session_id: str, why: str) -> None:
        if self.quarantined(session_id) != why:
            SettingsService(self._ws).set_quarantine(session_id, why)

    def remember_provider(self, settings: ProviderSettings) -> None:
        if self.read_only:
            return
        with contextlib.suppress(AxmemError):  # only a convenience
            SettingsService(self._ws).set_last_provider(settings)  # never a key

    # reads ------------------------------------------------------------------------
    def rows(self) -> list[SessionRow]:
        try:
            held = self.quarantine()
        except AxmemError:  # unreadable settings: the list still shows (a viewer says why)
            held = {}
        return [
            SessionRow(**s.to_json(), quarantine=held.get(s.id, ""))
            for s in self._ws.sessions.list()
        ]

    def find(self, session_id: str) -> Session | None:
        """The stored session, or None when there is none with that id."""
        value = self._ws.sessions.get(session_id)
        return None if value is None else parse_session(value, f"session {session_id}")

    def get(self, session_id: str) -> Session:
        found = self.find(session_id)
        if found is None:
            raise InputError(f"no session '{session_id}' in {self._ws.path}")
        return found

    def heads(self) -> Iterable[Session]:
        """Every stored session without its model calls, oldest first; a stored document
        the parser refuses (written by hand, say) is left out."""
        for row in self._ws.sessions.list():
            value = self._ws.sessions.head(row.id)
            if value is None:
                continue  # deleted meanwhile
            try:
                yield parse_session(value, f"session {row.id}", head=True)
            except InputError:
                continue

    def totals(self, ids: Iterable[str]) -> dict[str, SessionTotals]:
        """Totals of the named sessions (ids no longer stored are left out)."""
        out = {}
        for session_id in ids:
            found = self.find(session_id)
            if found is not None:  # deleted meanwhile (another window, the CLI)
                out[found.id] = session_totals(found)
        return out

    def usage(self, catalog: Catalog | None = None) -> UsageReport:
        """Per skill and memory: loaded/used counts across every stored session, against
        the workspace's current catalog (or `catalog`)."""
        against = catalog if catalog is not None else self._ws.catalog()
        found = (self.find(s.id) for s in self._ws.sessions.list())
        return usage_from_sessions((s for s in found if s is not None), against)

    # writes -----------------------------------------------------------------------
    def save(self, session: Session) -> str:
        """Store `session` under its id (a new recording: ids are unique)."""
        with self._ws.transaction():
            stored = session_to_json(without_credentials(session))
            session_id = str(self._ws.sessions.save(stored))
        self._changed()
        return session_id

    def store(self, session: Session, quarantine: str = "") -> SessionImport:
        """Store a session as an import does: a stored session is never replaced. The
        same session again is left as it is (also when an earlier import kept it under
        `<id>-N`), a different one with a taken id is kept beside it under a new id
        (`<id>-2`, `<id>-3`, ...). One transaction that holds the write lock from its first
        read: another connection cannot take the id between the look and the write.
        `quarantine`: why the session is put in quarantine (a failed `verify`), if it is."""
        with self._ws.transaction(immediate=True):
            result = self._store(session)
            if result.stored:
                self._set_quarantine(result.id, quarantine)
        if result.stored:
            self._changed()
        return result

    def _store(self, session: Session) -> SessionImport:
        session = without_credentials(session)
        canonical = ""  # made only when a stored session is there to compare (0.25 s at 25 MB)
        with self._ws.transaction(immediate=True):
            candidate, n = session.id, 1
            # (compared as stored JSON: a stored document is not parsed for this)
            while (stored := self._ws.sessions.get(candidate)) is not None:
                canonical = canonical or _canonical(session_to_json(session))
                if _canonical({**stored, "id": session.id}) == canonical:
                    taken = "" if candidate == session.id else session.id
                    return SessionImport(candidate, False, taken)
                n += 1
                candidate = f"{session.id}-{n}"
            taken = "" if candidate == session.id else session.id
            kept = session if candidate == session.id else with_id(session, candidate)
            self._ws.sessions.save(session_to_json(kept))
            return SessionImport(candidate, True, taken)

    def import_file(self, path: Path) -> SessionImport:
        """Check a session file and store it as `store` does (in quarantine when it does
        not hold what it claims)."""
        session = read_session_file(path)
        return self.store(session, quarantine=_claims_warning(session))

    def export(self, session_id: str, path: Path) -> None:
        write_session_file(self.get(session_id), path)

    def delete(self, sessions: Sequence[Session]) -> None:
        """Delete these sessions, in one transaction."""
        with self._ws.transaction():
            for session in sessions:
                self._ws.sessions.delete(session.id)
        self._changed()

    def restore(self, sessions: Sequence[Session]) -> None:
        """Store deleted sessions back (undo of `delete`), in one transaction. Refused
        when another session took one of the ids meanwhile (an import, the CLI): a stored
        session is never replaced."""
        with self._ws.transaction(immediate=True):
            for session in sessions:
                there = self._ws.sessions.get(session.id)
                if there is not None and _canonical(there) != _canonical(session_to_json(session)):
                    raise InputError(
                        f"session {session.id} cannot be restored: another session was "
                        "stored under its id meanwhile"
                    )
                self._ws.sessions.save(session_to_json(session))
        self._changed()

    def import_files(
        self,
        paths: Sequence[Path],
        *,
        cancel: Callable[[], bool] | None = None,
        progress: ImportProgress | None = None,
    ) -> list[FileImport]:
        """Import several session files (as `import_file` each), all or nothing: a file
        that cannot be read or is not a valid session is reported in its `FileImport` and
        the others go on; what is stored goes in one transaction, after every file was
        read and checked (the write lock is held for the writes only). A `cancel` that
        returns True before the commit raises SessionImportCancelled, and nothing was
        written.

        Every file's claims are checked before anything is stored (so a cancel never
        comes between a commit and its warning): also those found already stored, whose
        warning is then not given (as the CLI gives none)."""
        return _Batch(paths, cancel, progress).run(self)


class _Batch:
    """One `import_files`: read and check every file, then store them all at once."""

    def __init__(
        self,
        paths: Sequence[Path],
        cancel: Callable[[], bool] | None,
        progress: ImportProgress | None,
    ) -> None:
        self.paths = paths
        self.cancel = cancel
        self.report = progress or (lambda _f, _m: None)

    def check(self) -> None:
        if self.cancel is not None and self.cancel():
            raise SessionImportCancelled()

    def run(self, service: SessionService) -> list[FileImport]:
        count = len(self.paths)
        store_from = _READ_SHARE + _CHECK_SHARE
        outcomes: list[FileImport | None] = [None] * count
        checked: list[tuple[int, Session, str]] = []
        for i, path in enumerate(self.paths):
            self.check()
            of = f" ({i + 1} of {count})" if count > 1 else ""
            self.report(store_from * i / count, f"reading {path.name}{of}")
            try:
                session = read_session_file(path)
                self.check()
                self.report((store_from * i + _READ_SHARE) / count, f"checking {path.name}{of}")
                warning = _claims_warning(session)
            except SessionImportCancelled:
                raise
            except AxmemError as exc:
                outcomes[i] = FileImport(path, None, str(exc))
            else:
                checked.append((i, session, warning))
        self.check()
        if checked:
            self.report(store_from, "storing in the workspace")
            with service._ws.transaction(immediate=True):
                for done, (i, session, warning) in enumerate(checked):
                    self.check()
                    try:  # (a savepoint of its own: a file that fails leaves nothing)
                        result = service.store(session, quarantine=warning)
                    except AxmemError as exc:
                        outcomes[i] = FileImport(self.paths[i], None, str(exc))
                    else:
                        kept = warning if result.stored else ""
                        outcomes[i] = FileImport(self.paths[i], result, "", kept)
                    self.report(store_from + (1 - store_from) * (done + 1) / len(checked), "")
                self.check()  # the last moment a cancel undoes it all
        self.report(1.0, "done")
        return [o for o in outcomes if o is not None]


@dataclass(frozen=True)
class SessionJobs:
    """The sessions service for a task-runner job: every call opens the job's own
    connection to the workspace (SQLite connections belong to one thread) and closes it."""

    _path: Path = field(repr=False)

    @property
    def location(self) -> str:
        """The workspace, as messages name it."""
        return str(self._path)

    def catalog(self) -> Catalog:
        """The workspace's catalog (100,000 memories take most of a second to read)."""
        with open_workspace(self._path, read_only=True) as ws:
            return ws.catalog.snapshot()

    def totals(self, ids: Iterable[str]) -> dict[str, SessionTotals]:
        with open_workspace(self._path, read_only=True) as ws:
            return ws.sessions.totals(ids)

    def usage(self) -> UsageReport:
        with open_workspace(self._path, read_only=True) as ws:
            return ws.sessions.usage()

    def save(self, session: Session) -> str:
        with open_workspace(self._path) as ws:
            return ws.sessions.save(session)

    def import_files(
        self,
        paths: Sequence[Path],
        *,
        cancel: Callable[[], bool] | None = None,
        progress: ImportProgress | None = None,
    ) -> list[FileImport]:
        with open_workspace(self._path) as ws:
            return ws.sessions.import_files(paths, cancel=cancel, progress=progress)


def _claims_warning(session: Session) -> str:
    from axmem_gui.services.sessions import claims_warning  # (the file checks need axllm)

    return claims_warning(session)
