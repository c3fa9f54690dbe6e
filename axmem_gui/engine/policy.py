"""The provider behaviour the user sets: a deadline per reply, one retry policy, streaming.

`PolicyClient` wraps an axllm client (built with axllm's own request-layer retries off) and
is the only place a model call is retried:

* `timeout_s` is a deadline for one complete reply, streamed or not: a timer cancels the
  request's own cancellation token when it runs out, which closes the socket even while a
  server trickles its body; the call then fails as a `timeout`.
* The retry policy says how often (`max_retries`), how long to wait (exponential backoff,
  or the server's Retry-After up to `max_wait_s`) and after which failures (`retry_on`:
  rate_limited, server_error, network, timeout, malformed). When it gives up it raises
  `ProviderFailure`, which AxGen does not retry on its own (axllm's infra retries would
  otherwise send the request up to 3 more times), so `max_retries 0` is one request.
* `stream` asks the server for a streamed reply (SSE); the chunks are kept for the record
  and folded into the one response AxGen reads.

`DeadlineTransport` also keeps the key where it belongs: a redirect to another origin
(scheme, host and port) is refused, never followed with the Authorization header (urllib's
own handler re-sends every header to wherever a 301 or 302 points); and it reads no reply
past `max_reply_bytes`, streamed or not.

Each call leaves `last_call` (attempts, chunks) for the recording client to store.
"""

from __future__ import annotations

import contextlib
import copy
import http.client
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import axllm
from axllm import gen as _gen

# (their home is core.providers: plain data, no Ax runtime)
from axmem_gui.core.providers import DEFAULT_MAX_REPLY_MIB
from axmem_gui.core.providers import RETRY_KINDS as RETRY_KINDS
from axmem_gui.core.providers import RetryPolicy as RetryPolicy
from axmem_gui.core.providers import parse_retry_on as parse_retry_on
from axmem_gui.core.session.redact import redact_url
from axmem_gui.engine.errors import (
    ProviderFailure,
    RedirectRefused,
    ReplyTooLarge,
    RunCancelled,
    describe_failure,
)


def fold_chunks(chunks: list[Any]) -> Any:
    """The one response AxGen reads from a streamed reply's chunks (axllm's own fold)."""
    fold = _gen.fold_chat_response_stream  # type: ignore[attr-defined]
    return fold(copy.deepcopy(list(chunks)))


class DeadlineExceeded(axllm.AxAIServiceTimeoutError):
    """No complete reply within the deadline (`--timeout`)."""


class DeadlineTransport:
    """axllm's HTTP transport with a deadline for the whole reply: connecting, the headers
    and every read of the body (a streamed one included) share `timeout_s`, so a server
    that trickles its answer cannot hold a call longer. Uses urllib (proxies honoured);
    the user's cancellation closes the socket."""

    def __init__(self, timeout_s: float, max_reply_mib: float = DEFAULT_MAX_REPLY_MIB) -> None:
        self.timeout_s = timeout_s
        self.max_reply_mib = max_reply_mib
        self.max_reply_bytes = int(max_reply_mib * 1024 * 1024)

    def __call__(self, call: Mapping[str, Any]) -> dict[str, Any]:
        return self.call_with_cancellation(call, None)

    def stream_with_cancellation(self, call: Mapping[str, Any], cancellation: Any) -> Any:
        return self.call_with_cancellation(call, cancellation)

    def _expired(self, streamed: bool) -> DeadlineExceeded:
        how = "streamed " if streamed else ""
        return DeadlineExceeded(
            f"no complete {how}reply within the {self.timeout_s:g} s deadline (--timeout)",
            retryable=True,
        )

    def call_with_cancellation(self, call: Mapping[str, Any], cancellation: Any) -> dict[str, Any]:
        streamed = bool(call.get("stream"))
        deadline = time.monotonic() + self.timeout_s
        method = str(call.get("method") or "POST")
        body = call.get("json")
        data = None if body is None or method in ("GET", "HEAD") else json.dumps(body).encode()
        headers = {str(k): str(v) for k, v in (call.get("headers") or {}).items()}
        if data is not None:
            headers.setdefault("Content-Type", "application/json")
        request = urllib.request.Request(
            str(call["url"]), data=data, headers=headers, method=method
        )
        sockets: list[Any] = []
        connections: list[Any] = []

        def interrupt() -> None:
            for sock in sockets + [c.sock for c in connections if c.sock is not None]:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

        unsubscribe = (
            cancellation.subscribe(interrupt)
            if isinstance(cancellation, axllm.AxCancellationToken)
            else lambda: None
        )
        try:
            try:
                response = _opener(connections).open(request, timeout=self.timeout_s)
            except urllib.error.HTTPError as exc:
                with exc:
                    raw = self._read_all(exc, deadline, sockets, streamed)
                return {
                    "status": exc.code,
                    "json": _json_or_text(raw),
                    "headers": dict(exc.headers),
                }
            except urllib.error.URLError as exc:
                if isinstance(exc.reason, TimeoutError):
                    raise self._expired(streamed) from exc
                raise
            except TimeoutError as exc:
                raise self._expired(streamed) from exc
            with response:
                raw = self._read_all(response, deadline, sockets, streamed)
                return {
                    "status": int(getattr(response, "status", 200) or 200),
                    "json": raw if streamed else _json_or_text(raw),
                    "headers": dict(response.headers),
                }
        finally:
            unsubscribe()

    def _too_large(self, streamed: bool) -> ReplyTooLarge:
        what = "streamed reply" if streamed else "reply"
        return ReplyTooLarge(
            f"the model server's {what} is larger than the {self.max_reply_mib:g} MiB limit "
            "(--max-reply-mib); the call was ended there"
        )

    def _read_all(
        self, response: Any, deadline: float, sockets: list[Any], streamed: bool
    ) -> bytes:
        sock = getattr(getattr(getattr(response, "fp", None), "raw", None), "_sock", None)
        if sock is not None:
            sockets.append(sock)
        announced = getattr(response, "headers", {}).get("Content-Length")
        if announced and announced.isdigit() and int(announced) > self.max_reply_bytes:
            raise self._too_large(streamed)
        parts: list[bytes] = []
        size = 0
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._expired(streamed)
            if sock is not None:
                sock.settimeout(remaining)
            try:
                chunk = getattr(response, "read1", response.read)(65536)
            except TimeoutError as exc:
                raise self._expired(streamed) from exc
            if not chunk:
                raw = b"".join(parts)
                expected = getattr(response, "headers", {}).get("Content-Length")
                if expected and expected.isdigit() and len(raw) < int(expected):
                    # The connection dropped mid-body: a network error, as axllm says it.
                    raise ConnectionError(
                        f"IncompleteRead({len(raw)} bytes read, "
                        f"{int(expected) - len(raw)} more expected)"
                    )
                return raw
            size += len(chunk)
            if size > self.max_reply_bytes:
                raise self._too_large(streamed)
            parts.append(chunk)


def _opener(connections: list[Any]) -> urllib.request.OpenerDirector:
    """A urllib opener that keeps its connections, so a cancel can close one that is still
    waiting for the response headers."""

    def tracked(base: type[http.client.HTTPConnection]) -> Any:
        def factory(*args: Any, **kwargs: Any) -> http.client.HTTPConnection:
            connection = base(*args, **kwargs)
            connections.append(connection)
            return connection

        return factory

    class Http(urllib.request.HTTPHandler):
        def http_open(self, req: Any) -> Any:
            return self.do_open(tracked(http.client.HTTPConnection), req)

    class Https(urllib.request.HTTPSHandler):
        def https_open(self, req: Any) -> Any:
            context = getattr(self, "_context", None)
            return self.do_open(tracked(http.client.HTTPSConnection), req, context=context)

    return urllib.request.build_opener(Http(), Https(), _SameOriginRedirects())


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:  # a port that is not a number: no origin matches it
        return (scheme, parts.netloc, -1)
    return (scheme, (parts.hostname or "").lower(), port or {"http": 80, "https": 443}.get(scheme))


class _SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect within the origin the request went to (307 and 308 resend the
    POST, as RFC 9110 says); refuses one to anywhere else."""

    def redirect_request(
        self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str
    ) -> Any:
        if _origin(newurl) != _origin(req.full_url):
            fp.close()
            raise RedirectRefused(
                f"the model server at {redact_url(req.full_url)} redirected the request "
                f"(HTTP {code}) to another origin, {redact_url(newurl)}; it was not followed, "
                "so the API key went nowhere else (point the base URL at the server that "
                "answers)"
            )
        if code in (307, 308) and req.get_method() not in ("GET", "HEAD"):
            return urllib.request.Request(
                newurl,
                data=req.data,
                headers=dict(req.header_items()),
                origin_req_host=req.origin_req_host,
                unverifiable=True,
                method=req.get_method(),
            )
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _json_or_text(raw: bytes) -> Any:
    text = raw.decode("utf-8", errors="replace")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def failure_kind(exc: BaseException) -> str:
    """Which retry class a failed call falls in (or "other": never retried)."""
    if isinstance(exc, axllm.AxAIServiceTimeoutError) and getattr(exc, "status", None) is None:
        return "timeout"
    status = getattr(exc, "status", None)
    if isinstance(exc, axllm.AxAIServiceAuthenticationError) or status in (401, 403):
        return "other"
    if status == 429:
        return "rate_limited"
    if isinstance(status, int) and (500 <= status < 600 or status == 408):
        return "server_error"
    if isinstance(exc, axllm.AxAIServiceNetworkError):
        return "network"
    if isinstance(
        exc, axllm.AxAIServiceResponseError | ValueError | KeyError | TypeError | AttributeError
    ):
        return "malformed"
    return "other"


@dataclass
class CallRecord:
    """What one chat() call did on the wire."""

    attempts: list[dict[str, Any]] = field(default_factory=list)
    chunks: list[Any] | None = None


Sleeper = Callable[[float, Any], None]


def _wait(seconds: float, user_token: Any) -> None:
    if seconds <= 0:
        return
    if isinstance(user_token, axllm.AxCancellationToken):
        if user_token.wait(seconds):
            raise RunCancelled()
    else:
        time.sleep(seconds)


class PolicyClient:
    """An axllm client with the user's deadline, retry policy and streaming choice."""

    def __init__(
        self,
        inner: Any,
        *,
        timeout_s: float,
        policy: RetryPolicy,
        stream: bool = False,
        sleep: Sleeper = _wait,
    ) -> None:
        self.inner = inner
        self.timeout_s = timeout_s
        self.policy = policy
        self.stream_replies = stream
        self._sleep = sleep
        self.last_call = CallRecord()

    # The attributes AxGen and the app read from a client.
    @property
    def name(self) -> str:
        return str(getattr(self.inner, "name", "axllm"))

    @property
    def model(self) -> Any:
        return getattr(self.inner, "model", None)

    @property
    def model_config(self) -> Any:
        return getattr(self.inner, "model_config", None)

    @property
    def base_url(self) -> Any:
        return getattr(self.inner, "base_url", None)

    def get_features(self, model: Any = None) -> Any:
        return self.inner.get_features(model)

    def _headers(self) -> Any:
        return self.inner._headers()

    def _once(self, request: Mapping[str, Any], options: Mapping[str, Any]) -> tuple[Any, Any]:
        """One request (the transport enforces the deadline): (response, chunks or None)."""
        if self.stream_replies:
            streamed = copy.deepcopy(dict(request))
            streamed["model_config"] = {**(streamed.get("model_config") or {}), "stream": True}
            chunks = [copy.deepcopy(c) for c in self.inner.stream(streamed, dict(options))]
            return fold_chunks(chunks), chunks
        return self.inner.chat(request, dict(options)), None

    def chat(self, request: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> Any:
        options = dict(options or {})
        record = CallRecord()
        self.last_call = record
        user_token = options.get("cancellation")
        attempt = 0
        while True:
            started = time.perf_counter()
            try:
                response, chunks = self._once(request, options)
            except BaseException as exc:
                if isinstance(exc, axllm.AxAIServiceAbortedError) or not isinstance(
                    exc, Exception
                ):
                    # the user cancelled (the attempt is kept: the call's time is its
                    # attempts' and waits')
                    record.attempts.append(
                        {
                            "outcome": "cancelled",
                            "duration_ms": round((time.perf_counter() - started) * 1000, 3),
                        }
                    )
                    raise
                kind = failure_kind(exc)
                info = describe_failure(exc)
                entry: dict[str, Any] = {
                    "outcome": kind,
                    "error": info.to_json(),
                    "duration_ms": round((time.perf_counter() - started) * 1000, 3),
                }
                record.attempts.append(entry)
                wait = self._wait_before_retry(kind, exc, attempt)
                if wait is None:
                    if attempt > 0:
                        info = replace(
                            info, message=f"{info.message} (gave up after {attempt + 1} attempts)"
                        )
                    raise ProviderFailure(info, attempt + 1) from exc
                entry["retry_in_s"] = wait
                self._sleep(wait, user_token)
                attempt += 1
                continue
            record.attempts.append(
                {"outcome": "ok", "duration_ms": round((time.perf_counter() - started) * 1000, 3)}
            )
            record.chunks = chunks
            return response

    def _wait_before_retry(self, kind: str, exc: BaseException, attempt: int) -> float | None:
        return self.policy.wait_before_retry(kind, getattr(exc, "retry_after", None), attempt)
