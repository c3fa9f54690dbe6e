"""Model providers through axllm: the choices a user has, and building a client.

API keys are handed in by the caller (services resolve them from the OS keyring or an
environment variable); this module never stores or logs them. Local OpenAI-compatible
servers get a placeholder key because axllm refuses to send a request without one.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import importlib
import time
import urllib.parse
from collections.abc import Callable, Mapping
from typing import Any

import axllm

from axmem_gui.core.errors import InputError
from axmem_gui.core.providers import LOCAL_PROVIDER

# (their home is core.providers: plain data, no Ax runtime)
from axmem_gui.core.providers import PLACEHOLDER_KEY as PLACEHOLDER_KEY
from axmem_gui.core.providers import PROVIDERS as PROVIDERS
from axmem_gui.core.providers import SCRIPTED_BASE_URL as SCRIPTED_BASE_URL
from axmem_gui.core.providers import SCRIPTED_MODELS as SCRIPTED_MODELS
from axmem_gui.core.providers import SCRIPTED_PROVIDER as SCRIPTED_PROVIDER
from axmem_gui.core.providers import STRUCTURED_OUTPUT_MODES as STRUCTURED_OUTPUT_MODES
from axmem_gui.core.providers import ConnectionReport as ConnectionReport
from axmem_gui.core.providers import ProviderInfo as ProviderInfo
from axmem_gui.core.providers import ProviderSettings as ProviderSettings
from axmem_gui.core.providers import is_scripted as is_scripted
from axmem_gui.core.session.redact import redact_headers, redact_url
from axmem_gui.engine.errors import describe_failure
from axmem_gui.engine.policy import DeadlineTransport, PolicyClient
from axmem_gui.engine.wire import TransportWrapper, WireTap


def _cache_provider_descriptors() -> None:
    """axllm 25.4.6 re-parses its whole provider table (a 100 KB JSON literal) every time
    it looks one provider up, about 13 times per model call: 0.6 s of a 1.7 s replay of
    24 calls, and the same on every live call. The table is a constant, so each profile's
    entry is parsed once and handed out as a copy (callers may change what they get)."""
    ai = importlib.import_module("axllm.ai")  # `axllm.ai` the attribute is a function
    original = ai.provider_descriptor
    if getattr(original, "axmem_cached", False):
        return

    @functools.cache
    def parsed(profile: str) -> Any:
        return original(profile)

    def provider_descriptor(profile: str) -> Any:
        return copy.deepcopy(parsed(profile))

    provider_descriptor.axmem_cached = True  # type: ignore[attr-defined]
    vars(ai)["provider_descriptor"] = provider_descriptor


_cache_provider_descriptors()

#: axllm's model types an agent can talk to (embedding, audio, realtime and image models
#: cannot run one: the OpenAI list began with three embedding models).
CHAT_MODEL_TYPES = frozenset({"text", "code"})


def model_choices(provider: str) -> list[str]:
    """Known chat model names for a provider, its default first, each once (empty for
    servers that host any model; any other name can still be typed)."""
    if provider == SCRIPTED_PROVIDER:
        return list(SCRIPTED_MODELS)
    for entry in axllm.get_supported_ai_models():
        if entry.get("name") != provider:
            continue
        models = [
            m
            for m in entry.get("models") or []
            if m.get("name") and m.get("type", "text") in CHAT_MODEL_TYPES
        ]
        models.sort(key=lambda m: not m.get("isDefault"))  # stable: axllm's order after
        return list(dict.fromkeys(str(m["name"]) for m in models))
    return []


def make_client(
    settings: ProviderSettings,
    api_key: str | None,
    *,
    transport: Callable[[Mapping[str, Any]], Any] | None = None,
    on_http_attempt: Callable[[dict[str, Any]], None] | None = None,
) -> Any:
    """An axllm client for these settings. `on_http_attempt` sees every HTTP attempt
    (retries included): method, URL, the body's settings, status and raw reply; never a
    header."""
    provider = settings.provider
    chosen = settings.info
    if is_scripted(settings):
        # Answered in process through axllm's own OpenAI-compatible client.
        from axmem_gui.engine.scripted_model import ScriptedTransport

        transport = transport or ScriptedTransport()
        provider = "openai-compatible"
        settings = dataclasses.replace(settings, provider=provider, base_url=SCRIPTED_BASE_URL)
    info = settings.info
    base_url = settings.base_url or (info.default_base_url if info else None)
    if info is not None and info.needs_base_url and not base_url:
        raise InputError(f"provider '{settings.provider}' needs a base URL (--base-url)")
    if settings.base_url_problem:
        raise InputError(settings.base_url_problem)
    key = api_key or (PLACEHOLDER_KEY if info is None or info.local else None)
    if not key:
        known = info.key_env if info else ()
        names = " or ".join((settings.api_key_env,) if settings.api_key_env else known)
        label = info.label if info else settings.provider
        raise InputError(
            f"no API key for {label}: store one in the OS keyring (service 'axmem') "
            f"or set {names or 'an environment variable'} and name it with --api-key-env"
        )
    kwargs: dict[str, Any] = {
        "api_key": key,
        # The socket timeout; the deadline for a whole reply is PolicyClient's.
        "timeout": settings.timeout_s,
        # axllm's request-layer retries are off: PolicyClient applies the user's policy.
        "options": {"retry": {"maxRetries": 0}},
    }
    if settings.model:
        kwargs["model"] = settings.model
    query = ""
    if base_url:
        parts = urllib.parse.urlsplit(base_url)
        if parts.username is not None or parts.password is not None:
            raise InputError(
                f"the base URL {redact_url(base_url)} carries a user name or password "
                "(user:key@host), which the OpenAI-style clients cannot send; give the key "
                "with --api-key-env or keep it in the OS keyring"
            )
        # axllm appends each endpoint's path to the base URL as text: a query there (a
        # key parameter, Azure's api-version) would swallow the path. It goes after it.
        query = parts.query
        base_url = urllib.parse.urlunsplit(parts._replace(query="", fragment=""))
        kwargs["base_url"] = base_url
    if settings.structured_output != "auto":
        kwargs["model_info"] = [
            {
                "name": settings.model,
                "supported": {"structuredOutputModes": [settings.structured_output]},
            }
        ]
    # The deadline for a whole reply lives in the transport (axllm's own socket timeout
    # restarts with every byte a trickling server sends).
    kwargs["transport"] = (
        transport
        if transport is not None
        else DeadlineTransport(settings.timeout_s, settings.max_reply_mib)
    )
    if query:
        kwargs["transport"] = _WithQuery(kwargs["transport"], query)
    if on_http_attempt is not None:
        # Every HTTP attempt: method, URL, the settings sent, status, raw reply (never a
        # header); the recording keeps them (engine.wire).
        kwargs["transport"] = WireTap(kwargs["transport"], on_http_attempt)
    try:
        inner = axllm.ai(settings.provider, **kwargs)
    except ValueError as exc:
        if not settings.model and str(exc) == "No model defined":
            label = chosen.label if chosen else settings.provider
            models = model_choices(chosen.name) if chosen else []
            hint = f" (e.g. {' or '.join(models)})" if models else ""
            raise InputError(
                f"{label} needs a model name{hint}: it has no default model "
                "(--model, or the Model field)"
            ) from None
        raise InputError(
            f"unknown provider '{settings.provider}' ({exc}); known: "
            f"{', '.join([*PROVIDERS, LOCAL_PROVIDER])}"
        ) from None
    except axllm.AxAIServiceError as exc:
        message = describe_failure(exc).message
        raise InputError(f"cannot set up {settings.provider}: {message}") from None
    return PolicyClient(
        inner, timeout_s=settings.timeout_s, policy=settings.retry_policy, stream=settings.stream
    )


class _WithQuery(TransportWrapper):
    """A transport that adds the base URL's query to every request URL (after the path
    axllm appended), below the recording: the key a query may carry is never recorded."""

    def __init__(self, inner: Any, query: str) -> None:
        super().__init__(inner)
        self.query = query

    def _send(self, call: Mapping[str, Any], send: Callable[[Mapping[str, Any]], Any]) -> Any:
        url = str(call["url"])
        return send({**call, "url": f"{url}{'&' if '?' in url else '?'}{self.query}"})


def request_headers(client: Any) -> dict[str, str]:
    """The HTTP headers the client sends, credential values redacted (for the record).
    Reads axllm's private `_headers()`; an empty dict when that is unavailable."""
    fn = getattr(client, "_headers", None)
    try:
        headers = fn() if callable(fn) else {}
    except Exception:  # a private helper: never let it break a run
        return {}
    return redact_headers(headers) if isinstance(headers, Mapping) else {}


def test_connection(client: Any) -> ConnectionReport:
    """One tiny chat request: does the server answer, and with which model?"""
    started = time.perf_counter()
    request = {
        "chat_prompt": [{"role": "user", "content": "Reply with the single word: ok"}],
        "model_config": {"max_tokens": 8, "temperature": 0},
    }
    model = getattr(client, "model", None)
    try:
        response = client.chat(request, {})
    except Exception as exc:  # every failure becomes a message for the dialog
        return ConnectionReport(
            False,
            describe_failure(exc).message,
            round((time.perf_counter() - started) * 1000, 1),
            model,
        )
    results = response.get("results") if isinstance(response, Mapping) else None
    first = results[0] if isinstance(results, list) and results else {}
    reply = first.get("content") if isinstance(first, Mapping) else None
    return ConnectionReport(
        True,
        "connected",
        round((time.perf_counter() - started) * 1000, 1),
        model,
        reply if isinstance(reply, str) else "",
    )


# pytest would collect `test_connection` from modules that import it by name.
test_connection.__test__ = False  # type: ignore[attr-defined]
