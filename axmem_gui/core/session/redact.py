"""Keep API keys out of recordings, exports, settings and logs.

Header values that carry credentials are replaced; URLs lose their userinfo and credential
query parameters; and as a last line of defence `scrub_secrets` replaces the known secret
strings anywhere in a JSON value (error messages can quote a request), in the forms a
server may echo them: any run of 8 or more of a key's characters, in any letter case,
reversed, spaced out, URL-encoded, or base64-encoded alone or inside `user:key`.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

from axmem_gui.core.records import JsonObject
from axmem_gui.core.session.model import Exchange, Session

REDACTED = "[redacted]"
_SECRET_HEADER = re.compile(
    r"(authorization|api[-_]?key|token|secret|cookie|password|credential)", re.IGNORECASE
)
#: Query (or fragment) parameters whose value is a credential: api_key, key, access_token,
#: X-Amz-Signature, sig, password, auth, ...
_SECRET_PARAM = re.compile(
    r"(key|token|secret|pass(word|wd)?|pwd|auth|sig(nature)?|credential|session)",
    re.IGNORECASE,
)
#: Secrets at least this long are replaced wherever they occur, and so is any run of this
#: many of their characters; shorter ones (placeholders such as "local", or a real short
#: key) are replaced where they stand as a whole token, so a provider error quoting them
#: back loses them without mangling ordinary words.
MIN_SECRET_LENGTH = 8


def redact_headers(headers: Mapping[str, Any]) -> dict[str, str]:
    return {
        str(k): (REDACTED if _SECRET_HEADER.search(str(k)) else str(v)) for k, v in headers.items()
    }


def _redacted_params(text: str) -> str:
    pairs = parse_qsl(text, keep_blank_values=True)
    return urlencode([(k, REDACTED if _SECRET_PARAM.search(k) else v) for k, v in pairs], safe="[]")


def redact_url(url: str) -> str:
    """`url` without credentials: userinfo becomes `[redacted]@`, the values of credential
    query and fragment parameters `[redacted]`."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if not parts.query and "@" not in parts.netloc and "=" not in parts.fragment:
        return url
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}@{netloc.rsplit('@', 1)[-1]}"
    query = _redacted_params(parts.query) if parts.query else ""
    fragment = _redacted_params(parts.fragment) if "=" in parts.fragment else parts.fragment
    return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


def url_without_redacted(url: str) -> str:
    """`url` with the credentials a save redacted left out (no `[redacted]@`, no parameter
    whose value is `[redacted]`): what a replay's client, which sends nothing, is built
    on."""
    parts = urlsplit(url)
    netloc = parts.netloc.rsplit("@", 1)[-1] if REDACTED in parts.netloc else parts.netloc
    kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if v != REDACTED]
    return urlunsplit((parts.scheme, netloc, parts.path, urlencode(kept), ""))


def url_secrets(url: str | None) -> tuple[str, ...]:
    """The credentials a URL carries (userinfo, credential parameters): what `redact_url`
    removes, to be scrubbed wherever else they turn up."""
    if not url:
        return ()
    try:
        parts = urlsplit(url)
    except ValueError:
        return ()
    found: list[str] = []
    if "@" in parts.netloc:
        # `key@host`, or `user:key@host` (the password is the key; a user name is not a
        # secret, and a short one scrubbed as a word would mangle ordinary messages)
        userinfo = parts.netloc.rsplit("@", 1)[0]
        found += [userinfo, userinfo.split(":", 1)[-1]]
    for text in (parts.query, parts.fragment):
        found += [v for k, v in parse_qsl(text, keep_blank_values=True) if _SECRET_PARAM.search(k)]
    return tuple(dict.fromkeys(s for s in found if s and s != REDACTED))


def has_redacted_credentials(url: str | None) -> bool:
    """True for a URL whose credentials were redacted when it was saved: using it would
    send `[redacted]` as the credential."""
    return bool(url) and REDACTED in str(url)


def without_credentials(session: Session) -> Session:
    """`session` with no credential in the URLs it records (the provider's base URL, each
    exchange's HTTP attempts): `session` itself when none holds one. A file from elsewhere,
    or one stored before they were redacted, may hold a key there."""
    provider = session.provider
    if provider.base_url is not None and redact_url(provider.base_url) != provider.base_url:
        provider = replace(provider, base_url=redact_url(provider.base_url))
    exchanges = tuple(_without_credentials(ex) for ex in session.exchanges)
    changed = any(a is not b for a, b in zip(exchanges, session.exchanges, strict=True))
    if provider is session.provider and not changed:
        return session
    return replace(session, provider=provider, exchanges=exchanges)


def _without_credentials(exchange: Exchange) -> Exchange:
    attempts = exchange.http_attempts or ()
    redacted = tuple(
        replace(a, url=redact_url(a.url)) if a.url and redact_url(a.url) != a.url else a
        for a in attempts
    )
    if all(a is b for a, b in zip(redacted, attempts, strict=True)):
        return exchange
    return replace(exchange, http_attempts=redacted)


# ------------------------------------------------------------------ scrub ---


@dataclass(frozen=True)
class _Form:
    """One way a secret may be written (lower case), and how long a run of it counts."""

    text: str
    min_run: int


def _b64_cores(raw: bytes, altchars: bytes | None) -> list[str]:
    """What base64 of any data holding `raw` contains, whatever precedes it: for each of
    the three byte alignments, the characters encoded from `raw`'s bits alone."""
    out = []
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + raw, altchars).decode("ascii")
        start = -(-8 * offset // 6)
        end = 8 * (offset + len(raw)) // 6
        out.append(encoded[start:end])
    return out


def _forms(secret: str) -> list[_Form]:
    low = secret.lower()
    raw = secret.encode("utf-8")
    forms = [_Form(low, MIN_SECRET_LENGTH), _Form(low[::-1], MIN_SECRET_LENGTH)]
    forms.append(_Form(" ".join(low), 2 * MIN_SECRET_LENGTH - 1))
    for encoded in (quote(secret, safe=""), "".join(f"%{b:02x}" for b in raw)):
        if encoded.lower() != low:
            forms.append(_Form(encoded.lower(), len(quote(secret[:MIN_SECRET_LENGTH], safe=""))))
    # base64 of the key alone, or inside `user:key` (HTTP Basic) or any other blob: 8 bytes
    # are 11 characters.
    for altchars in (None, b"-_"):
        forms += [_Form(core.lower(), 11) for core in _b64_cores(raw, altchars)]
    return [f for f in forms if len(f.text) >= f.min_run]


class _Finder:
    """Finds runs of the secrets' forms. Any run of `min_run` characters holds one whole
    aligned chunk of half that length, so a search for the chunks finds every run."""

    def __init__(self, secrets: list[str]) -> None:
        self.forms = [f for s in secrets for f in _forms(s)]
        self.chunks: dict[str, list[tuple[int, int]]] = {}
        for n, form in enumerate(self.forms):
            size = (form.min_run + 1) // 2
            for offset in range(0, len(form.text) - size + 1, size):
                chunk = form.text[offset : offset + size]
                self.chunks.setdefault(chunk, []).append((n, offset))
        self.pattern = re.compile(_trie_pattern(self.chunks))
        #: No form holds a character JSON escapes: a search of the dump finds every run.
        self.dump_safe = not any(ch in form.text for form in self.forms for ch in '"\\\n\r\t')

    def spans(self, low: str) -> list[tuple[int, int]]:
        found: list[tuple[int, int]] = []
        pos = 0
        while (m := self.pattern.search(low, pos)) is not None:
            for n, offset in self.chunks[m.group()]:
                form = self.forms[n]
                start, end = m.start(), m.end()
                i, j = start - 1, offset - 1
                while i >= 0 and j >= 0 and low[i] == form.text[j]:
                    i, j = i - 1, j - 1
                k, j = end, offset + (end - start)
                while k < len(low) and j < len(form.text) and low[k] == form.text[j]:
                    k, j = k + 1, j + 1
                if k - (i + 1) >= form.min_run:
                    found.append((i + 1, k))
            pos = m.start() + 1
        return found

    def scrub(self, text: str) -> str:
        low = _lower(text)
        spans = sorted(self.spans(low))
        if not spans:
            return text
        out, last = [], 0
        for start, end in spans:
            if end <= last:
                continue
            out.append(text[last : max(start, last)])
            if start >= last:
                out.append(REDACTED)
            last = end
        out.append(text[last:])
        return "".join(out)


def _trie_pattern(words: Iterable[str]) -> str:
    """An alternation of `words` as a trie (`ab(?:c|d)`): the regex engine tries one branch
    per character instead of every word at every position (2.5 times faster here)."""
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict[str, Any]) -> str:
        branches = [re.escape(ch) + build(sub) for ch, sub in sorted(node.items()) if ch]
        if not branches:
            return ""
        ends = "" in node
        if len(branches) == 1 and not ends:
            return branches[0]
        return "(?:" + "|".join(branches) + ")" + ("?" if ends else "")

    return build(trie)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _lower(text: str) -> str:
    low = text.lower()
    # Index for index with `text` (a few letters lower into two characters).
    return low if len(low) == len(text) else text.translate(_ASCII_LOWER)


def scrub_secrets(value: Any, secrets: Iterable[str]) -> Any:
    """A copy of a JSON value with every secret replaced.

    Secrets of MIN_SECRET_LENGTH or more are replaced everywhere, in the derived forms
    the module docstring lists. Shorter ones (a short real key, or a placeholder such as
    "local") are replaced as whole tokens inside error messages and warnings, where a
    provider quotes a rejected key back, and in a bare string (a message); prompts and
    answers keep their words."""
    wanted = sorted({s for s in secrets if s}, key=len, reverse=True)
    if not wanted:
        return value
    long = [s for s in wanted if len(s) >= MIN_SECRET_LENGTH]
    finder = _Finder(long) if long else None
    if finder is not None and finder.dump_safe and not _may_hold(value, finder):
        finder = None  # the common case: one search of the whole document finds nothing
    short = [re.compile(_TOKEN % re.escape(s)) for s in wanted if len(s) < MIN_SECRET_LENGTH]
    if finder is None and not short:
        return value
    return _scrub(value, finder, short, in_message=isinstance(value, str))


def scrub_session(session: Session, secrets: Iterable[str]) -> JsonObject:
    """The JSON of `session` with every secret scrubbed (`scrub_secrets`), quick when there
    is nothing to scrub: the derived forms are looked for in what the server sent (where
    an echo of a key shows up first: anything else that holds it, a later prompt or the
    trace, took it from there) and in the messages, the secrets themselves everywhere;
    only when one is found is every string scrubbed."""
    value = session.to_json()
    wanted = [s for s in {*secrets} if s]
    long = [s for s in wanted if len(s) >= MIN_SECRET_LENGTH]
    if len(long) < len(wanted):
        return dict(scrub_secrets(value, wanted))  # short secrets: token rules, no fast path
    if not long:
        return value
    low = _lower(json.dumps(value, ensure_ascii=False))
    finder = _Finder(long)
    sent: list[Any] = [
        [
            ex.response,
            ex.chunks,
            [a.to_json() for a in ex.attempts or ()],
            ex.wire.to_json() if ex.wire else None,  # the raw reply
            ex.error.to_json() if ex.error else None,
        ]
        for ex in session.exchanges
    ]
    errors = [session.error, *(f.error for f in session.forwards)]
    sent += [[e.to_json() for e in errors if e is not None], list(session.warning_list)]
    if (
        not finder.dump_safe
        or any(secret.lower() in low for secret in long)
        or _may_hold(sent, finder)
    ):
        return dict(scrub_secrets(value, long))
    return value


def _may_hold(value: Any, finder: _Finder) -> bool:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return finder.pattern.search(_lower(text)) is not None


_TOKEN = r"(?<![A-Za-z0-9_\-])%s(?![A-Za-z0-9_\-])"
_MESSAGE_KEYS = frozenset({"error", "errors", "message", "warnings", "detail", "details"})


def _scrub(
    value: Any, finder: _Finder | None, short: list[re.Pattern[str]], in_message: bool
) -> Any:
    if isinstance(value, str):
        if finder is not None:
            value = finder.scrub(value)
        if in_message:
            for secret in short:
                value = secret.sub(REDACTED, value)
        return value
    if isinstance(value, list):
        return [_scrub(v, finder, short, in_message) for v in value]
    if isinstance(value, dict):
        return {
            _scrub(k, finder, short, False): _scrub(
                v, finder, short, in_message or str(k).lower() in _MESSAGE_KEYS
            )
            for k, v in value.items()
        }
    return value
