"""Opening, creating and seeding workspaces; where the default workspace lives; and
`OpenWorkspace`, the open workspace as ui/ and cli/ see it.

`OpenWorkspace` holds the store's connection privately and hands out one service per
aggregate: `catalog` (skills, memories, tags, history), `scenarios`, `suites` (and their
runs), `evals` (eval sets and runs), `settings`, `sessions` and `agents`. Each service
owns its revision checks, its transactions and its change notices (`notices`); nothing
it returns is a store type. Services that need the connection itself reach it through
`services/store_access.py`, which ui/, cli/ and app.py may not import (pyproject.toml's
import contracts).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import platformdirs

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import InputError, WorkspaceError
from axmem_gui.core.records import to_json_value
from axmem_gui.core.session.derive import map_snapshots
from axmem_gui.core.session.format import parse_session, session_to_json
from axmem_gui.core.workspace import WORKSPACE_SUFFIX, WorkspaceCounts
from axmem_gui.services.aggregates import Change, Notices, WorkspaceAddress
from axmem_gui.services.catalog import CatalogService
from axmem_gui.store import Workspace

if TYPE_CHECKING:
    from axmem_gui.services.agents import AgentService
    from axmem_gui.services.evals import EvalService
    from axmem_gui.services.scenarios import ScenarioService
    from axmem_gui.services.session_store import SessionService
    from axmem_gui.services.settings import SettingsService
    from axmem_gui.services.suites import SuiteService

T = TypeVar("T")
APP_NAME = "axmem"
#: Overrides the data folder (tests, portable installs).
DATA_DIR_ENV = "AXMEM_DATA_DIR"


def data_dir() -> Path:
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override)
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def default_workspace_path() -> Path:
    return data_dir() / f"default{WORKSPACE_SUFFIX}"


class OpenWorkspace:
    """An open workspace: its aggregates' services and the facts of its file. Not
    thread-safe (an SQLite connection belongs to its thread): a job opens its own
    through a `WorkspaceAddress` or a reader (`catalog.reader()`)."""

    def __init__(self, store: Workspace) -> None:
        self._store = store
        #: What the services wrote, once committed (the GUI's controller subscribes).
        self.notices = Notices()
        self.catalog = CatalogService(store, self.notices)

    # The other services import what they use when first asked for (the evals service
    # brings the Ax runtime): opening a workspace, and the first paint, wait for none.
    @cached_property
    def scenarios(self) -> ScenarioService:
        from axmem_gui.services.scenarios import ScenarioService

        return ScenarioService(self._store, self.notices)

    @cached_property
    def suites(self) -> SuiteService:
        from axmem_gui.services.suites import SuiteService

        return SuiteService(self._store, self.notices)

    @cached_property
    def evals(self) -> EvalService:
        from axmem_gui.services.evals import EvalService

        return EvalService(self._store, self.notices)

    @cached_property
    def sessions(self) -> SessionService:
        """The recorded sessions (services/session_store.py)."""
        from axmem_gui.services.session_store import SessionService

        return SessionService(self._store, lambda: self.notices.publish(Change("sessions")))

    @cached_property
    def agents(self) -> AgentService:
        """The agent configs (services/agents.py)."""
        from axmem_gui.services.agents import AgentService

        return AgentService(self._store, lambda: self.notices.publish(Change("agents")))

    @cached_property
    def settings(self) -> SettingsService:
        from axmem_gui.services.settings import SettingsService

        return SettingsService(self._store, self.notices)

    @property
    def path(self) -> Path:
        return self._store.path

    @property
    def address(self) -> WorkspaceAddress:
        return WorkspaceAddress(self._store.path)

    @property
    def read_only(self) -> bool:
        return self._store.read_only

    @property
    def schema_version(self) -> int:
        return self._store.schema_version

    @property
    def backup_path(self) -> Path | None:
        """The copy made before this open upgraded the file (None: no upgrade)."""
        return self._store.backup_path

    def counts(self) -> WorkspaceCounts:
        return self._store.counts()

    def data_version(self) -> int:
        """Changes when another connection commits: cheap polling for external edits."""
        return self._store.data_version()

    def info(self) -> dict[str, Any]:
        return self._store.info()

    # sharing the file with other programs (store/sharing.py, design pattern 14) --------
    @property
    def write_wait_s(self) -> float:
        """How long a write waits for another program's write lock (the busy timeout)."""
        return self._store.write_wait_s

    def set_write_wait(self, seconds: float) -> None:
        self._store.set_write_wait(seconds)

    @property
    def last_write_wait_s(self) -> float:
        """How long the last write transaction waited for the write lock."""
        return self._store.last_write_wait_s

    def check_schema(self) -> None:
        """WorkspaceError when another program put SQL of its own into the file since it
        was last checked (cheap while the schema cookie does not move)."""
        self._store.check_schema()

    def ensure_lock_holder(self) -> None:
        """Wait until the lock holder (the desktop app's opens) holds the file's locks."""
        self._store.ensure_lock_holder()

    @property
    def lock_holder_pid(self) -> int | None:
        return self._store.lock_holder_pid

    def close(self) -> None:
        self._store.close()

    def __enter__(self) -> OpenWorkspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_workspace(
    path: Path | str | None = None, *, read_only: bool = False, hold_locks: bool = False
) -> OpenWorkspace:
    """Open `path`, or the default workspace (created and seeded on first use).
    `hold_locks`: the desktop app's open, guarded by a lock holder process
    (store/lockholder.py)."""
    if path is None:
        return open_default_workspace(read_only=read_only, hold_locks=hold_locks)
    return OpenWorkspace(Workspace.open(Path(path), read_only=read_only, hold_locks=hold_locks))


def open_at(address: WorkspaceAddress, *, read_only: bool = False) -> OpenWorkspace:
    """Open the workspace a job was handed (its own connection, on its own thread)."""
    return open_workspace(address.path, read_only=read_only)


def write_at(
    address: WorkspaceAddress,
    write: Callable[[OpenWorkspace], T],
    *,
    wait_s: float | None = None,
) -> tuple[T, float]:
    """Run `write` on a connection of its own (a job's, on its thread), waiting up to
    `wait_s` (None: the store's bound) for another program's write lock; its value and
    how long the write waited. The GUI's writes that met a busy workspace wait here, off
    the GUI thread (ui/writes.py)."""
    with open_at(address) as ws:
        if wait_s is not None:
            ws.set_write_wait(wait_s)
        value = write(ws)
        return value, ws.last_write_wait_s


def open_default_workspace(*, read_only: bool = False, hold_locks: bool = False) -> OpenWorkspace:
    path = default_workspace_path()
    if path.exists():
        return open_workspace(path, read_only=read_only, hold_locks=hold_locks)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WorkspaceError(f"{path.parent}: cannot create the data folder: {exc}") from None
    return init_workspace(path, sample=True, hold_locks=hold_locks)


def init_workspace(
    path: Path | str, *, sample: bool = False, hold_locks: bool = False
) -> OpenWorkspace:
    """Create a new workspace at `path` (refuses to overwrite an existing file)."""
    p = Path(path)
    if p.is_symlink() or (p.exists() and (not p.is_file() or p.stat().st_size > 0)):
        raise WorkspaceError(f"{p}: already exists; choose another name or open it")
    tmp = p.with_name(p.name + ".creating")
    # Build the new file aside and move it into place, so a crash never leaves a
    # half-seeded workspace under the real name; a failure leaves nothing behind.
    _remove_aside(tmp)
    try:
        ws = Workspace.open(tmp, create=True)
        try:
            if sample:
                _seed_sample(ws)
            ws.checkpoint()
        finally:
            ws.close()
        for suffix in ("-wal", "-shm"):
            Path(str(tmp) + suffix).unlink(missing_ok=True)
        os.replace(tmp, p)
    except OSError as exc:
        _remove_aside(tmp)
        raise WorkspaceError(f"{p}: cannot create the workspace: {exc.strerror or exc}") from None
    except BaseException:
        _remove_aside(tmp)
        raise
    return open_workspace(p, hold_locks=hold_locks)


def _remove_aside(tmp: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(tmp) + suffix).unlink(missing_ok=True)


def _sample_files() -> dict[str, Any]:
    folder = resources.files("axmem_gui") / "sample"
    out: dict[str, Any] = {}
    if not folder.is_dir():
        return out
    for item in folder.iterdir():
        if item.name.endswith(".json"):
            out[item.name] = json.loads(item.read_text(encoding="utf-8"))
    return out


def _seed_sample(ws: Workspace) -> None:
    """Fill a workspace with the shipped sample: catalog, scenarios, suites, agents, eval
    sets and recorded sessions, in one transaction."""
    files = _sample_files()
    if "catalog.json" not in files:
        raise WorkspaceError("the sample catalog is missing from this installation")
    from axmem_gui.core.formats import catalog_from_json_value  # only here (YAML, parsers)

    catalog = catalog_from_json_value(files["catalog.json"], "sample/catalog.json")
    batch = ws.new_batch_id()
    with ws.transaction():
        for skill in catalog.skills:
            ws.skills.upsert(skill, batch=batch)
        for memory in catalog.memories:
            ws.memories.upsert(memory, batch=batch)
        for filename, repo in (
            ("scenarios.json", ws.scenarios),
            ("suites.json", ws.suites),
            ("agents.json", ws.agents),
            ("evals.json", ws.evals),
        ):
            for doc in files.get(filename, []):
                repo.save(str(doc["name"]), doc)
        for name in sorted(files):
            if name.endswith(".axsession.json"):
                _seed_session(ws, files[name], f"sample/{name}")


def _seed_session(ws: Workspace, value: Any, source: str) -> None:
    session = parse_session(value, source)
    ws.sessions.save(session_to_json(session))
    # Computed from the forwards (what verify and replay check), not the file's copy.
    for snap in map_snapshots(session.forwards):
        update = to_json_value(snap.update)
        ws.contextmaps.add(
            session.agent.name,
            snap.state,
            label=snap.label,
            session_id=session.id,
            update_info=update if isinstance(update, dict) else None,
        )


def load_workspace_catalog(path: Path | str | None) -> Catalog:
    with open_workspace(path) as ws:
        return ws.catalog.snapshot()


def describe_workspace(path: Path | str | None) -> dict[str, Any]:
    with open_workspace(path) as ws:
        return ws.info()


def require_suffix(path: Path) -> Path:
    if path.suffix != WORKSPACE_SUFFIX:
        raise InputError(f"{path}: a workspace file name must end in {WORKSPACE_SUFFIX}")
    return path
