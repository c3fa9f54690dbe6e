"""Provider choices for the UI and CLI: resolve the API key, build a client, test it."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from axmem_gui.core.providers import PROVIDERS, ConnectionReport, ProviderSettings
from axmem_gui.core.session.model import SessionProvider
from axmem_gui.core.session.redact import redact_url, scrub_secrets, url_secrets
from axmem_gui.engine.providers import make_client, request_headers
from axmem_gui.engine.providers import model_choices as _model_choices
from axmem_gui.engine.providers import test_connection as _test_connection
from axmem_gui.services.local_model import local_provider
from axmem_gui.services.secrets import env_api_key, get_api_key


def model_choices(provider: str) -> list[str]:
    """Known model names for a provider (empty for servers that host any model)."""
    return list(_known_models(provider))


@functools.cache
def _known_models(provider: str) -> tuple[str, ...]:
    # The lists are the installed axllm's (constant for the process); reading them copies
    # its whole table (tens of milliseconds), so a provider form's first build may read
    # them ahead, off the GUI thread.
    return tuple(_model_choices(provider))


@dataclass(frozen=True)
class ResolvedKey:
    value: str | None = field(repr=False)
    source: dict[str, str]  # {"kind": "env", "name": VAR} | keyring | provider-env | none


def resolve_api_key(settings: ProviderSettings) -> ResolvedKey:
    """Where the key comes from, in order: the environment variable the user named, the OS
    keyring (service "axmem", user = provider), the provider's usual variable
    (OPENAI_API_KEY, ...), else none (local servers then get a placeholder)."""
    if settings.api_key_env:
        return ResolvedKey(
            env_api_key(settings.api_key_env), {"kind": "env", "name": settings.api_key_env}
        )
    stored = get_api_key(settings.provider)
    if stored:
        return ResolvedKey(stored, {"kind": "keyring", "service": "axmem"})
    info = PROVIDERS.get(settings.provider)
    for variable in info.key_env if info else ():
        if os.environ.get(variable):
            return ResolvedKey(os.environ[variable], {"kind": "env", "name": variable})
    return ResolvedKey(None, {"kind": "none"})


@dataclass
class ResolvedClient:
    client: Any
    provider: SessionProvider  # for the session file: choices and key source, no key
    secrets: tuple[str, ...] = field(repr=False)  # scrubbed from anything written
    http_attempts: list[dict[str, Any]] = field(default_factory=list)


def build_client(
    settings: ProviderSettings,
    *,
    transport: Callable[[Mapping[str, Any]], Any] | None = None,
    key: ResolvedKey | None = None,
) -> ResolvedClient:
    """A client for `settings`, with the key `resolve_api_key` finds (or `key`, resolved
    by the process that started this one)."""
    key = key if key is not None else resolve_api_key(settings)
    attempts: list[dict[str, Any]] = []
    client = make_client(settings, key.value, transport=transport, on_http_attempt=attempts.append)
    info = settings.info
    source = (
        key.source if key.value or not (info is None or info.local) else {"kind": "placeholder"}
    )
    used_url = getattr(client, "base_url", None)
    provider = settings.session_record(
        dict(source),
        dict(request_headers(client)),
        base_url=redact_url(str(used_url)) if used_url else None,
    )
    secrets = tuple(v for v in (key.value, *url_secrets(settings.base_url)) if v)
    return ResolvedClient(client, provider, secrets, attempts)


def check_connection(settings: ProviderSettings) -> ConnectionReport:
    """The "test connection" button: one tiny request with these settings (provider
    `local`: the bundled model, already serving or started for the test)."""
    with local_provider(settings) as served:
        resolved = build_client(served)
        report = _test_connection(resolved.client)
    message = scrub_secrets(report.message, resolved.secrets)
    return ConnectionReport(report.ok, message, report.latency_ms, report.model, report.reply)
