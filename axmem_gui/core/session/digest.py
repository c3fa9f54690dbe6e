"""A stable fingerprint of what the model was asked, used to check replays call by call."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from axmem_gui.core.jsout import json_dumps

#: The request parts that decide what the model sees. `model_config` and provider metadata
#: are left out on purpose: a rerun on another model must still line up call by call.
DIGEST_KEYS = ("chat_prompt", "functions", "response_format")


def canonical_json(value: Any) -> str:
    return json_dumps(value, sort_keys=True, separators=(",", ":"))


def request_digest(request: Mapping[str, Any]) -> str:
    basis = {key: request.get(key) for key in DIGEST_KEYS}
    return "sha256:" + hashlib.sha256(canonical_json(basis).encode("utf-8")).hexdigest()


def short_digest(digest: str) -> str:
    return digest.split(":", 1)[-1][:12]
