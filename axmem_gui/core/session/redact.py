"""Keep API keys out of recordings, exports and logs.

Header values that carry credentials are replaced; URLs lose credential query parameters;
and as a last line of defence `scrub_secrets` replaces every occurrence of the known secret
strings anywhere in a JSON value (error messages can quote a request).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

REDACTED = "[redacted]"
_SECRET_HEADER = re.compile(
    r"(authorization|api[-_]?key|token|secret|cookie|password|credential)", re.IGNORECASE
)
_SECRET_PARAM = re.compile(r"^(key|api[-_]?key|token|access[-_]?token|secret)$", re.IGNORECASE)
#: Secrets at least this long are replaced wherever they occur; shorter ones (placeholders
#: such as "local", or a real short key) are replaced where they stand as a whole token, so
#: a provider error quoting them back loses them without mangling ordinary words.
MIN_SECRET_LENGTH = 8


def redact_headers(headers: Mapping[str, Any]) -> dict[str, str]:
    return {
        str(k): (REDACTED if _SECRET_HEADER.search(str(k)) else str(v)) for k, v in headers.items()
    }


def redact_url(url: str) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if not parts.query and "@" not in parts.netloc:
        return url
    query = urlencode(
        [(k, REDACTED if _SECRET_PARAM.match(k) else v) for k, v in parse_qsl(parts.query)],
        safe="[]",
    )
    netloc = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def scrub_secrets(value: Any, secrets: Iterable[str]) -> Any:
    """A copy of a JSON value with every occurrence of each secret replaced.

    Secrets of MIN_SECRET_LENGTH or more are replaced everywhere. Shorter ones (a short
    real key, or a placeholder such as "local") are replaced as whole tokens inside error
    messages and warnings, where a provider quotes a rejected key back, and in a bare
    string (a message); prompts and answers keep their words."""
    wanted = sorted({s for s in secrets if s}, key=len, reverse=True)
    if not wanted:
        return value
    long = [re.compile(re.escape(s)) for s in wanted if len(s) >= MIN_SECRET_LENGTH]
    short = [re.compile(_TOKEN % re.escape(s)) for s in wanted if len(s) < MIN_SECRET_LENGTH]
    return _scrub(value, long, short, in_message=isinstance(value, str))


_TOKEN = r"(?<![A-Za-z0-9_\-])%s(?![A-Za-z0-9_\-])"
_MESSAGE_KEYS = frozenset({"error", "errors", "message", "warnings", "detail", "details"})


def _scrub(
    value: Any, long: list[re.Pattern[str]], short: list[re.Pattern[str]], in_message: bool
) -> Any:
    if isinstance(value, str):
        for secret in long + short if in_message else long:
            value = secret.sub(REDACTED, value)
        return value
    if isinstance(value, list):
        return [_scrub(v, long, short, in_message) for v in value]
    if isinstance(value, dict):
        return {
            _scrub(k, long, short, False): _scrub(
                v, long, short, in_message or str(k).lower() in _MESSAGE_KEYS
            )
            for k, v in value.items()
        }
    return value
