"""Opening, creating and seeding workspaces; where the default workspace lives."""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import Any

import platformdirs

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import InputError, WorkspaceError
from axmem_gui.core.records import to_json_value
from axmem_gui.core.session.derive import map_snapshots
from axmem_gui.core.session.format import parse_session, session_to_json
from axmem_gui.store import WORKSPACE_SUFFIX, Workspace, WorkspaceCounts

#: The workspace types the GUI works with (it does not import the store).
__all__ = [
    "WORKSPACE_SUFFIX",
    "Workspace",
    "WorkspaceCounts",
    "data_dir",
    "default_workspace_path",
    "describe_workspace",
    "init_workspace",
    "load_workspace_catalog",
    "open_default_workspace",
    "open_workspace",
    "require_suffix",
    "seed_sample",
]
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


def open_workspace(
    path: Path | str | None = None, *, read_only: bool = False, hold_locks: bool = False
) -> Workspace:
    """Open `path`, or the default workspace (created and seeded on first use).
    `hold_locks`: the desktop app's open, guarded by a lock holder process
    (store/lockholder.py)."""
    if path is None:
        return open_default_workspace(read_only=read_only, hold_locks=hold_locks)
    return Workspace.open(Path(path), read_only=read_only, hold_locks=hold_locks)


def open_default_workspace(*, read_only: bool = False, hold_locks: bool = False) -> Workspace:
    path = default_workspace_path()
    if path.exists():
        return Workspace.open(path, read_only=read_only, hold_locks=hold_locks)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WorkspaceError(f"{path.parent}: cannot create the data folder: {exc}") from None
    return init_workspace(path, sample=True, hold_locks=hold_locks)


def init_workspace(
    path: Path | str, *, sample: bool = False, hold_locks: bool = False
) -> Workspace:
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
                seed_sample(ws)
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
    return Workspace.open(p, hold_locks=hold_locks)


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


def seed_sample(ws: Workspace) -> None:
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
        return ws.catalog()


def describe_workspace(path: Path | str | None) -> dict[str, Any]:
    with open_workspace(path) as ws:
        return ws.info()


def require_suffix(path: Path) -> Path:
    if path.suffix != WORKSPACE_SUFFIX:
        raise InputError(f"{path}: a workspace file name must end in {WORKSPACE_SUFFIX}")
    return path
