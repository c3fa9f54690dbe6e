"""The "Local (bundled model)" provider: start the bundled model's server for the time a
run needs it, and hand out OpenAI-compatible settings pointing at it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from axmem_gui.core.providers import ProviderSettings
from axmem_gui.engine.local_model import (
    MODEL_NAME,
    LocalModelServer,
    LocalModelStatus,
    local_model_status,
)

#: The provider name that means "start the bundled model" (CLI `--provider local`).
LOCAL_PROVIDER = "local"
LOCAL_LABEL = "Local (bundled model)"

__all__ = [
    "LOCAL_LABEL",
    "LOCAL_PROVIDER",
    "MODEL_NAME",
    "LocalModelServer",
    "LocalModelStatus",
    "local_label",
    "local_model_status",
    "local_provider",
    "served_settings",
]


def served_settings(server: LocalModelServer, settings: ProviderSettings) -> ProviderSettings:
    """`settings` pointed at a running local server (timeouts and retries kept)."""
    return replace(
        settings, provider="openai-compatible", model=MODEL_NAME, base_url=server.base_url
    )


def local_label(settings: ProviderSettings, label: str = "") -> str:
    """The label an eval run on the bundled model gets when the user gave none."""
    if label or settings.provider != LOCAL_PROVIDER:
        return label
    return f"{LOCAL_LABEL}: {MODEL_NAME}"


@contextmanager
def local_provider(settings: ProviderSettings) -> Iterator[ProviderSettings]:
    """For `--provider local`: start the bundled model, yield settings for it, stop it.
    Any other provider passes through untouched."""
    if settings.provider != LOCAL_PROVIDER:
        yield settings
        return
    with LocalModelServer() as server:
        yield served_settings(server, settings)
