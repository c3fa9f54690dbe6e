"""Model providers through axllm: the choices a user has, and building a client.

API keys are handed in by the caller (services resolve them from the OS keyring or an
environment variable); this module never stores or logs them. Local OpenAI-compatible
servers get a placeholder key because axllm refuses to send a request without one.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import axllm

from axmem_gui.core.errors import InputError
from axmem_gui.core.session.redact import redact_headers
from axmem_gui.engine.errors import describe_failure
from axmem_gui.engine.policy import RETRY_KINDS, DeadlineTransport, PolicyClient, RetryPolicy

STRUCTURED_OUTPUT_MODES = ("auto", "native", "function", "json_object")
#: Sent to keyless local servers; not a secret.
PLACEHOLDER_KEY = "not-needed"


@dataclass(frozen=True)
class ProviderInfo:
    name: str  # the axllm profile
    label: str
    key_env: tuple[str, ...]  # environment variables axllm itself would read
    default_base_url: str | None
    local: bool  # keyless local server: a placeholder key is fine
    needs_base_url: bool = False


#: The scripted model (axmem_gui.engine.scripted_model) answering in process, as the shipped
#: sample sessions were recorded: a rerun of the sample works with no server and no key.
#: `.invalid` is a reserved top-level domain, so this URL can never be a real server.
SCRIPTED_PROVIDER = "scripted"
SCRIPTED_BASE_URL = "http://scripted.invalid/v1"
SCRIPTED_MODELS = ("scripted-a", "scripted-b")

PROVIDERS: dict[str, ProviderInfo] = {
    p.name: p
    for p in (
        ProviderInfo("openai", "OpenAI", ("OPENAI_API_KEY",), None, False),
        ProviderInfo("anthropic", "Anthropic", ("ANTHROPIC_API_KEY",), None, False),
        ProviderInfo(
            "google-gemini", "Google Gemini", ("GOOGLE_API_KEY", "GEMINI_API_KEY"), None, False
        ),
        ProviderInfo(
            "openai-compatible",
            "OpenAI-compatible server",
            ("OPENAI_API_KEY",),
            None,
            True,
            needs_base_url=True,
        ),
        ProviderInfo("ollama", "Ollama", (), "http://localhost:11434/v1", True),
        ProviderInfo("llama-cpp", "llama.cpp server", (), "http://localhost:8080/v1", True),
        ProviderInfo("lm-studio", "LM Studio", (), "http://localhost:1234/v1", True),
        ProviderInfo("vllm", "vLLM", (), "http://localhost:8000/v1", True),
        ProviderInfo(
            SCRIPTED_PROVIDER,
            "Scripted model (in process, no network — the sample's)",
            (),
            SCRIPTED_BASE_URL,
            True,
        ),
    )
}


def is_scripted(settings: ProviderSettings) -> bool:
    return settings.provider == SCRIPTED_PROVIDER or settings.base_url == SCRIPTED_BASE_URL


@dataclass(frozen=True)
class ProviderSettings:
    """Everything needed to reach a model, except the key itself."""

    provider: str
    model: str | None = None
    base_url: str | None = None
    structured_output: str = "auto"
    api_key_env: str | None = None  # an environment variable the user named
    timeout_s: float = 120.0  # a deadline for one complete reply, streamed or not
    max_retries: int = 2  # the only retries: axllm's own are folded into this policy
    retry_backoff_s: float = 1.0
    retry_max_wait_s: float = 60.0  # longest wait before a retry, Retry-After included
    retry_on: tuple[str, ...] = RETRY_KINDS
    stream: bool = False  # ask for streamed (SSE) replies

    def __post_init__(self) -> None:
        if self.structured_output not in STRUCTURED_OUTPUT_MODES:
            raise InputError(
                f"structured output mode '{self.structured_output}' is not one of "
                f"{', '.join(STRUCTURED_OUTPUT_MODES)}"
            )
        if self.structured_output != "auto" and not self.model:
            raise InputError("a structured output mode needs a model name (--model)")
        if self.timeout_s <= 0:
            raise InputError("the request timeout must be positive")
        self.retry_policy  # checks the retry options  # noqa: B018

    @property
    def retry_policy(self) -> RetryPolicy:
        return RetryPolicy(
            max_retries=self.max_retries,
            backoff_s=self.retry_backoff_s,
            max_wait_s=self.retry_max_wait_s,
            retry_on=tuple(self.retry_on),
        )

    @property
    def info(self) -> ProviderInfo | None:
        return PROVIDERS.get(self.provider)

    def to_json(self) -> dict[str, Any]:
        """For the session file: the choices, never a key."""
        return {
            "name": self.provider,
            "model": self.model,
            "base_url": self.base_url,
            "structured_output": self.structured_output,
            "api_key_env": self.api_key_env,
            "timeout_s": self.timeout_s,
            "max_retries": self.max_retries,
            "retry_policy": self.retry_policy.to_json(),
            "stream": self.stream,
        }

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> ProviderSettings:
        raw_policy = value.get("retry_policy")
        policy = RetryPolicy.from_json(raw_policy if isinstance(raw_policy, Mapping) else {})
        return cls(
            provider=str(value.get("name") or value.get("provider") or ""),
            model=value.get("model") if isinstance(value.get("model"), str) else None,
            base_url=value.get("base_url") if isinstance(value.get("base_url"), str) else None,
            structured_output=str(value.get("structured_output") or "auto"),
            api_key_env=value.get("api_key_env")
            if isinstance(value.get("api_key_env"), str)
            else None,
            timeout_s=float(value.get("timeout_s") or 120.0),
            max_retries=int(value.get("max_retries", 2) or 0),
            retry_backoff_s=policy.backoff_s,
            retry_max_wait_s=policy.max_wait_s,
            retry_on=policy.retry_on,
            stream=value.get("stream") is True,
        )


def provider_names() -> list[str]:
    return list(PROVIDERS)


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
    """An axllm client for these settings. `on_http_attempt` sees method and URL of every
    HTTP attempt (retries included); it never sees headers."""
    provider = settings.provider
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
    if base_url:
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
        transport if transport is not None else DeadlineTransport(settings.timeout_s)
    )
    if on_http_attempt is not None:

        def observe(context: Mapping[str, Any]) -> dict[str, str]:
            on_http_attempt({"method": context.get("method"), "url": context.get("url")})
            return {}  # adds no header: the key travels the normal way

        kwargs["credential_provider"] = observe
    try:
        inner = axllm.ai(settings.provider, **kwargs)
    except ValueError as exc:
        raise InputError(
            f"unknown provider '{settings.provider}' ({exc}); known: {', '.join(PROVIDERS)}"
        ) from None
    except axllm.AxAIServiceError as exc:
        message = describe_failure(exc).message
        raise InputError(f"cannot set up {settings.provider}: {message}") from None
    return PolicyClient(
        inner, timeout_s=settings.timeout_s, policy=settings.retry_policy, stream=settings.stream
    )


def request_headers(client: Any) -> dict[str, str]:
    """The HTTP headers the client sends, credential values redacted (for the record).
    Reads axllm's private `_headers()`; an empty dict when that is unavailable."""
    fn = getattr(client, "_headers", None)
    try:
        headers = fn() if callable(fn) else {}
    except Exception:  # a private helper: never let it break a run
        return {}
    return redact_headers(headers) if isinstance(headers, Mapping) else {}


@dataclass(frozen=True)
class ConnectionReport:
    ok: bool
    message: str
    latency_ms: float
    model: str | None
    reply: str = ""

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


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
