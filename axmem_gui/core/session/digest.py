"""A stable fingerprint of what the model was asked, used to check replays call by call.

Two schemes, told apart by the digest's prefix, so a file keeps the definition it was
recorded with (docs/axsession-format.md, *Digests*):

* `sha256:` (scheme 1, version 1 files and the app recorders'): the canonical JSON of the
  request's `chat_prompt`, `functions` and `response_format` only; the model, the
  sampling settings and the tool choice are not covered.
* `sha256-v2:` (scheme 2, version 2 files): the canonical JSON of
  `{"request": the whole provider-neutral request, "params": the call's params}`: the
  prompt, tools and format as before, and the tool choice, the request's model config,
  the model and every setting sent to the provider.

`prompt_digest` is scheme 1's fingerprint under its own name: what "the same prompt" means
when two runs are compared (a rerun on another model still lines up call by call).
"""

from __future__ import annotations

import hashlib
from typing import Any

from axmem_gui.core.jsout import json_dumps
from axmem_gui.core.records import to_json_value
from axmem_gui.core.session.model import Exchange
from axmem_gui.core.session.payloads import DIGEST_KEYS, digest_basis

__all__ = [
    "DIGEST_KEYS",
    "SCHEME_1",
    "SCHEME_2",
    "canonical_json",
    "digest_scheme",
    "exchange_digest",
    "prompt_digest",
    "request_digest",
    "short_digest",
]

SCHEME_1, SCHEME_2 = "sha256:", "sha256-v2:"


def canonical_json(value: Any) -> str:
    return json_dumps(value, sort_keys=True, separators=(",", ":"))


def _sha256(value: Any) -> str:
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def prompt_digest(request: Any) -> str:
    """`sha256:` + hex of the canonical JSON of the request parts in DIGEST_KEYS."""
    return SCHEME_1 + _sha256(digest_basis(request))


def request_digest(request: Any, params: Any = None, scheme: int = 1) -> str:
    """The digest of a call by `scheme`: 1 the prompt parts only, 2 the whole request
    and its `params` (a JSON object, or None when the call recorded none)."""
    if scheme >= 2:
        return SCHEME_2 + _sha256({"request": request, "params": params})
    return prompt_digest(request)


def digest_scheme(digest: str) -> int | None:
    """The scheme of a stored digest (None: one this axmem does not know)."""
    if digest.startswith(SCHEME_2):
        return 2
    if digest.startswith(SCHEME_1):
        return 1
    return None


def exchange_digest(ex: Exchange, request: Any = None, params: Any = None) -> str:
    """The digest a call's scheme (its stored digest's) gives for `request` and `params`
    (default: the stored ones)."""
    scheme = digest_scheme(ex.digest) or 1
    if scheme < 2:
        return prompt_digest(ex.request if request is None else request)
    chosen = to_json_value(ex.params) if params is None else params
    return request_digest(ex.request if request is None else request, chosen, scheme)


def short_digest(digest: str) -> str:
    return digest.split(":", 1)[-1][:12]
