"""A stable fingerprint of what the model was asked, used to check replays call by call."""

from __future__ import annotations

import hashlib
from typing import Any

from axmem_gui.core.jsout import json_dumps
from axmem_gui.core.session.payloads import DIGEST_KEYS, digest_basis

__all__ = ["DIGEST_KEYS", "canonical_json", "request_digest", "short_digest"]


def canonical_json(value: Any) -> str:
    return json_dumps(value, sort_keys=True, separators=(",", ":"))


def request_digest(request: Any) -> str:
    """`sha256:` + hex of the canonical JSON of the request parts in DIGEST_KEYS."""
    return (
        "sha256:"
        + hashlib.sha256(canonical_json(digest_basis(request)).encode("utf-8")).hexdigest()
    )


def short_digest(digest: str) -> str:
    return digest.split(":", 1)[-1][:12]
