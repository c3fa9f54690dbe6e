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
#: Secrets shorter than this are placeholders ("local"); replacing them would mangle text.
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
    """A copy of a JSON value with every occurrence of each secret replaced."""
    wanted = sorted(
        {s for s in secrets if s and len(s) >= MIN_SECRET_LENGTH}, key=len, reverse=True
    )
    if not wanted:
        return value
    return _scrub(value, wanted)


def _scrub(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, list):
        return [_scrub(v, secrets) for v in value]
    if isinstance(value, dict):
        return {_scrub(k, secrets): _scrub(v, secrets) for k, v in value.items()}
    return value
