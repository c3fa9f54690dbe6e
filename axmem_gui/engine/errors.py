"""Turn whatever a run raised into one clear sentence (and a few structured facts).

axllm wraps provider failures (AxGen re-raises them as "Generate failed: ..." with the
original as `__cause__`), so the useful error is found by walking the cause chain.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import axllm

from axmem_gui.core.errors import AxmemError


class RunCancelled(axllm.AxAIServiceAbortedError):
    """The user cancelled the run. An abort, so AxGen neither retries nor wraps it."""

    def __init__(self) -> None:
        super().__init__("cancelled by the user")


class RedirectRefused(axllm.AxAIServiceError):
    """The server redirected a request to another origin: not followed, so no credential
    goes there. Not retried (the next attempt would be redirected too)."""


class ReplyTooLarge(axllm.AxAIServiceError):
    """The reply passed the size limit: the call ends there (nothing past it is read)."""


@dataclass(frozen=True)
class FailureInfo:
    kind: str  # cancelled | rate_limited | http_status | auth | timeout | network | bad_response
    #          | redirect | reply_too_large | out_of_memory | replay | agent
    message: str
    type: str
    status: int | None = None
    retry_after: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "type": self.type, "message": self.message}
        if self.status is not None:
            out["status"] = self.status
        if self.retry_after is not None:
            out["retry_after"] = self.retry_after
        return out


class ProviderFailure(Exception):
    """A model call failed and the user's retry policy gave up (engine.policy). Not an
    axllm service error, so AxGen neither retries it nor takes it for an abort; `info`
    says what went wrong."""

    def __init__(self, info: FailureInfo, attempts: int = 1) -> None:
        super().__init__(info.message)
        self.info = info
        self.attempts = attempts


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in out and len(out) < 20:
        out.append(current)
        current = current.__cause__ or current.__context__
    return out


def _body_message(error: BaseException) -> str:
    body = getattr(error, "response_body", None)
    if isinstance(body, dict):
        inner = body.get("error")
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
        if isinstance(body.get("message"), str):
            return str(body["message"])
    return ""


def describe_failure(exc: BaseException) -> FailureInfo:
    chain = _chain(exc)
    for error in chain:
        if isinstance(error, ProviderFailure):
            return error.info
        if isinstance(error, RunCancelled):
            return FailureInfo("cancelled", "the run was cancelled", "RunCancelled")
        if getattr(error, "divergence", None) is not None:
            return FailureInfo("replay", str(error), type(error).__name__)
    for error in chain:
        if isinstance(error, MemoryError):
            return FailureInfo(
                "out_of_memory",
                "the agent run ran out of memory (MemoryError); the limits on the model's "
                "code (--code-memory-limit) and on replies (--max-reply-mib) bound what it "
                "may take",
                "MemoryError",
            )
        if isinstance(error, RedirectRefused):
            return FailureInfo("redirect", str(error), type(error).__name__)
        if isinstance(error, ReplyTooLarge):
            return FailureInfo("reply_too_large", str(error), type(error).__name__)
    for error in chain:
        if not isinstance(error, axllm.AxAIServiceError):
            continue
        name = type(error).__name__
        status = getattr(error, "status", None)
        detail = _body_message(error)
        suffix = f": {detail}" if detail else ""
        if isinstance(error, axllm.AxAIServiceAbortedError):
            return FailureInfo("cancelled", "the request was aborted", name)
        if status == 429:
            retry_after = getattr(error, "retry_after", None)
            wait = f"; it asked to retry after {retry_after} s" if retry_after else ""
            return FailureInfo(
                "rate_limited",
                f"the model server is rate limiting requests (HTTP 429){wait}{suffix}",
                name,
                429,
                None if retry_after is None else str(retry_after),
            )
        if status in (401, 403) or isinstance(error, axllm.AxAIServiceAuthenticationError):
            what = f"HTTP {status}" if status else str(error)
            return FailureInfo(
                "auth",
                f"the model server refused the credentials ({what}){suffix}; check the API key",
                name,
                status,
            )
        if isinstance(error, axllm.AxAIServiceTimeoutError) and status is None:
            return FailureInfo(
                "timeout", f"the model server did not answer in time ({error})", name
            )
        if isinstance(status, int):
            return FailureInfo(
                "http_status", f"the model server answered HTTP {status}{suffix}", name, status
            )
        if isinstance(error, axllm.AxAIServiceNetworkError):
            return FailureInfo(
                "network",
                f"the connection to the model server failed ({error}); is it running, and "
                "is the base URL right?",
                name,
            )
        return FailureInfo(
            "bad_response", f"the model server sent a response axllm cannot use: {error}", name
        )
    for error in chain:
        if isinstance(error, AxmemError):
            return FailureInfo("agent", str(error), type(error).__name__)
    return FailureInfo("agent", f"the agent run failed: {exc}", type(exc).__name__)
