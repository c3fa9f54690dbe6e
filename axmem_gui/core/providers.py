"""Model providers as plain data: the choices a user has, the settings of a run and the
retry policy. The engine builds clients from these (engine.providers, engine.policy);
the UI, the CLI and the session file read them without importing the Ax runtime."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from axmem_gui.core.errors import InputError
from axmem_gui.core.records import JsonObject
from axmem_gui.core.session.model import SessionProvider
from axmem_gui.core.session.redact import has_redacted_credentials, redact_url

#: The default bound on one reply (`--max-reply-mib`): far above any chat completion.
DEFAULT_MAX_REPLY_MIB = 32.0
MAX_REPLY_MIB_BOUND = 4096.0

RETRY_KINDS = ("rate_limited", "server_error", "network", "timeout", "malformed")


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 2
    backoff_s: float = 1.0  # the first wait; each next one is `backoff_factor` times longer
    backoff_factor: float = 2.0
    max_wait_s: float = 60.0  # the longest wait, Retry-After included (longer: give up)
    retry_on: tuple[str, ...] = RETRY_KINDS

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise InputError("max retries must be 0 or more")
        if self.backoff_s < 0 or self.backoff_factor < 1 or self.max_wait_s < 0:
            raise InputError(
                "retry backoff must be 0 or more seconds, its factor 1 or more, "
                "the longest wait 0 or more seconds"
            )
        unknown = [k for k in self.retry_on if k not in RETRY_KINDS]
        if unknown:
            raise InputError(
                f"cannot retry on {', '.join(unknown)}: known failures are {', '.join(RETRY_KINDS)}"
            )

    def wait_before_retry(self, kind: str, retry_after: Any, attempt: int) -> float | None:
        """Seconds to wait before retrying after failed attempt `attempt` (0-based) of
        kind `kind`, the server having said `retry_after` (None: no retry). The server's
        Retry-After wins up to `max_wait_s`; else the backoff, capped at `max_wait_s`."""
        if kind not in self.retry_on or attempt >= self.max_retries:
            return None
        after = retry_after_seconds(retry_after)
        if after is not None:
            return after if after <= self.max_wait_s else None
        return min(self.backoff_s * self.backoff_factor**attempt, self.max_wait_s)

    def to_json(self) -> dict[str, Any]:
        return {
            "max_retries": self.max_retries,
            "backoff_s": self.backoff_s,
            "backoff_factor": self.backoff_factor,
            "max_wait_s": self.max_wait_s,
            "retry_on": list(self.retry_on),
        }

    @classmethod
    def from_json(cls, value: Mapping[str, Any], max_retries: int = 2) -> RetryPolicy:
        retry_on = value.get("retry_on")
        return cls(
            max_retries=int(value.get("max_retries", max_retries)),
            backoff_s=float(value.get("backoff_s", 1.0)),
            backoff_factor=float(value.get("backoff_factor", 2.0)),
            max_wait_s=float(value.get("max_wait_s", 60.0)),
            retry_on=tuple(str(k) for k in retry_on) if isinstance(retry_on, list) else RETRY_KINDS,
        )


def retry_after_seconds(value: Any) -> float | None:
    """A Retry-After value in seconds (an HTTP date reads as absent: the backoff applies)."""
    if value is None:
        return None
    try:
        seconds = float(str(value).strip())
    except ValueError:
        return None
    return max(0.0, seconds)


def parse_retry_on(text: str) -> tuple[str, ...]:
    """`--retry-on rate_limited,server_error` (or `none`)."""
    if text.strip() in ("", "none"):
        return ()
    return tuple(k.strip() for k in text.split(",") if k.strip())


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
#: The bundled model (services.local_model starts or reuses its server; CLI `--provider
#: local`): not an axllm provider, so not in PROVIDERS, but a name a user can choose.
LOCAL_PROVIDER = "local"

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


def provider_info(name: str) -> ProviderInfo | None:
    """What the app knows of provider `name` (None for another axllm profile)."""
    return PROVIDERS.get(name)


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
    max_reply_mib: float = DEFAULT_MAX_REPLY_MIB  # a reply larger than this ends the call

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
        if not 0 < self.max_reply_mib <= MAX_REPLY_MIB_BOUND:
            raise InputError(
                f"the largest reply (--max-reply-mib) must be above 0 and at most "
                f"{MAX_REPLY_MIB_BOUND:g} MiB"
            )
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

    @property
    def saved_base_url(self) -> str | None:
        """The base URL as it may be written (its credentials redacted)."""
        return None if self.base_url is None else redact_url(self.base_url)

    @property
    def base_url_problem(self) -> str | None:
        """Why the base URL cannot be used (its credentials were redacted on saving)."""
        if not has_redacted_credentials(self.base_url):
            return None
        return (
            f"the base URL {self.base_url} held credentials, redacted when it was saved; "
            "enter the whole URL again (or keep the key in the OS keyring instead)"
        )

    def to_json(self) -> dict[str, Any]:
        """For the session file and the remembered settings: the choices, never a key (not
        even one the base URL carries: its userinfo and credential parameters are
        redacted)."""
        out: dict[str, Any] = {
            "name": self.provider,
            "model": self.model,
            "base_url": self.saved_base_url,
            "structured_output": self.structured_output,
            "api_key_env": self.api_key_env,
            "timeout_s": self.timeout_s,
            "max_retries": self.max_retries,
            "retry_policy": self.retry_policy.to_json(),
            "stream": self.stream,
        }
        if self.max_reply_mib != DEFAULT_MAX_REPLY_MIB:  # (older files: the default)
            out["max_reply_mib"] = self.max_reply_mib
        return out

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
            max_reply_mib=_number(value.get("max_reply_mib"), DEFAULT_MAX_REPLY_MIB),
        )

    @classmethod
    def of_session(cls, provider: SessionProvider) -> ProviderSettings:
        """The settings a session was recorded with (to run it again); InputError when
        the file holds choices this axmem refuses."""
        return cls.from_json(provider.to_json())

    def session_record(
        self,
        api_key_source: JsonObject,
        request_headers: JsonObject,
        *,
        base_url: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> SessionProvider:
        """The session file's `provider`: these choices, where the key came from (never
        the key) and the headers sent (credentials redacted). `base_url`: the one the
        client used, when the settings name none."""
        limit = None if self.max_reply_mib == DEFAULT_MAX_REPLY_MIB else self.max_reply_mib
        return SessionProvider(
            name=self.provider,
            model=self.model,
            base_url=self.saved_base_url if self.base_url is not None else base_url,
            structured_output=self.structured_output,
            api_key_env=self.api_key_env,
            timeout_s=self.timeout_s,
            max_retries=self.max_retries,
            retry_policy=self.retry_policy.to_json(),
            stream=self.stream,
            max_reply_mib=limit,
            api_key_source=dict(api_key_source),
            request_headers=dict(request_headers),
            extra=dict(extra or {}),
            key_order=(
                *_PROVIDER_KEYS[:9],
                *(() if limit is None else ("max_reply_mib",)),
                *_PROVIDER_KEYS[9:],
                *(extra or {}),
            ),
        )


_PROVIDER_KEYS = (
    "name",
    "model",
    "base_url",
    "structured_output",
    "api_key_env",
    "timeout_s",
    "max_retries",
    "retry_policy",
    "stream",
    "api_key_source",
    "request_headers",
)


def _number(value: Any, default: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    return float(value)


@dataclass(frozen=True)
class ConnectionReport:
    ok: bool
    message: str
    latency_ms: float
    model: str | None
    reply: str = ""

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)
