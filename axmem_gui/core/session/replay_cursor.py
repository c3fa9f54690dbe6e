"""Serve a recording back in order and say exactly where a replay stops matching.

The engine's replay client asks the cursor for the next recorded model exchange with the
request the agent is about to send; the cursor compares digests and, at the first
difference, keeps a `Divergence` with a unified diff of the recorded and the new request.
Host search calls (discover/recall) are served the same way from the recorded results.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from axmem_gui.core.jsout import json_dumps
from axmem_gui.core.records import JsonObject, to_json_value
from axmem_gui.core.session.digest import exchange_digest, short_digest
from axmem_gui.core.session.model import Exchange, SearchCall
from axmem_gui.core.session.payloads import messages, request_part
from axmem_gui.core.session.stages import stage_of_request


@dataclass(frozen=True)
class Divergence:
    """The first point where a replay differs from its recording."""

    index: int  # model call number (0-based), or search call number for kind "search"
    kind: str  # "prompt" | "digest" | "stored_request" | "extra_call" | "missing_calls"
    #          | "search" | "reply"
    message: str
    recorded_stage: str | None = None
    replay_stage: str | None = None
    forward: int | None = None
    diff: str = ""

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


class ReplayDivergence(Exception):
    """Raised into the agent run to stop it at the first difference."""

    def __init__(self, divergence: Divergence) -> None:
        super().__init__(divergence.message)
        self.divergence = divergence


#: The request parts shown after the messages (the tool choice and the request's own
#: model config are only in version 2 digests, but always part of what was asked).
_SHOWN_PARTS = ("functions", "response_format", "function_call", "model_config")


def request_as_text(request: Mapping[str, Any], params: Any = None) -> str:
    """A request rendered for reading and diffing: every message, then the tools, format,
    tool choice and model config, then (given) the parameters the provider was sent."""
    lines: list[str] = []
    for message in messages(request):
        lines.append(f"=== message {message.index}: {message.role} ===")
        lines.extend(message.text.split("\n"))
    for key in _SHOWN_PARTS:
        value = request_part(request, key)
        if value:
            lines.append(f"=== {key} ===")
            lines.extend(json_dumps(value, indent=2, sort_keys=True).split("\n"))
    if params is not None:
        lines.append("=== params (what the provider was sent) ===")
        lines.extend(json_dumps(params, indent=2, sort_keys=True).split("\n"))
    return "\n".join(lines) + "\n"


def request_diff(
    recorded: Mapping[str, Any],
    replayed: Mapping[str, Any],
    label: str = "call",
    sides: tuple[str, str] = ("recorded", "replayed"),
    params: tuple[Any, Any] = (None, None),
) -> str:
    """Unified diff of the message texts (and tools, format, parameters) of two requests."""
    return "".join(
        difflib.unified_diff(
            request_as_text(recorded, params[0]).splitlines(keepends=True),
            request_as_text(replayed, params[1]).splitlines(keepends=True),
            fromfile=f"{sides[0]} {label}",
            tofile=f"{sides[1]} {label}",
            n=3,
        )
    )


class ReplayCursor:
    """Recorded model exchanges, handed out in order with a digest check."""

    def __init__(self, exchanges: Sequence[Exchange]) -> None:
        self._exchanges = list(exchanges)
        self.position = 0
        self.divergence: Divergence | None = None

    @property
    def total(self) -> int:
        return len(self._exchanges)

    @property
    def remaining(self) -> int:
        return len(self._exchanges) - self.position

    def _diverge(self, divergence: Divergence) -> ReplayDivergence:
        if self.divergence is None:
            self.divergence = divergence
        return ReplayDivergence(self.divergence)

    def peek(self) -> Exchange | None:
        """The recorded exchange the next call should match (None: none is left)."""
        if self.divergence is not None or self.position >= len(self._exchanges):
            return None
        return self._exchanges[self.position]

    def take(self, request: Mapping[str, Any], params: Any = None) -> Exchange:
        """The recorded exchange for this request (and, for a scheme 2 digest, the
        parameters the replay sent); raises ReplayDivergence on a mismatch (and on every
        later call, so the run stops quickly)."""
        if self.divergence is not None:
            raise ReplayDivergence(self.divergence)
        stage = stage_of_request(request)
        if self.position >= len(self._exchanges):
            raise self._diverge(
                Divergence(
                    index=self.position,
                    kind="extra_call",
                    message=(
                        f"call #{self.position} ({stage}) was not in the recording, which "
                        f"has {len(self._exchanges)} call(s)"
                    ),
                    replay_stage=stage,
                    diff=request_diff({}, request, f"call #{self.position}"),
                )
            )
        recorded = self._exchanges[self.position]
        digest = exchange_digest(recorded, request, params)
        rec_request: JsonObject = recorded.request
        rec_stage = recorded.stage
        stored_digest = recorded.digest
        label = f"call #{self.position} ({rec_stage})"
        stored_matches = exchange_digest(recorded) == digest
        shown = (to_json_value(recorded.params), params) if params is not None else (None, None)
        if digest != stored_digest or not stored_matches:
            if stored_matches:
                # The stored request is what the replay sent; only the digest is off.
                kind = "digest"
                message = (
                    f"{label}: the stored digest was altered: the stored request is exactly "
                    f"what the replay sent, but its digest is not the stored one"
                )
                diff = (
                    f"--- stored exchanges[{self.position}].digest\n"
                    f"+++ digest of the request the replay sent\n@@ -1 +1 @@\n"
                    f"-{stored_digest}\n+{digest}\n"
                )
            elif digest == stored_digest:
                kind = "stored_request"
                message = (
                    f"{label}: the stored request text is not what was sent: the replay sent "
                    f"a request with the stored digest, and the stored text differs from it"
                )
                diff = request_diff(
                    rec_request, request, label, ("stored", "sent (matches the digest)"), shown
                )
            else:
                kind = "prompt"
                message = (
                    f"{label} differs from the recording: recorded digest "
                    f"{short_digest(stored_digest)}, replay {short_digest(digest)}"
                )
                diff = request_diff(rec_request, request, label, params=shown)
            raise self._diverge(
                Divergence(
                    index=self.position,
                    kind=kind,
                    message=message,
                    recorded_stage=rec_stage,
                    replay_stage=stage,
                    forward=recorded.forward,
                    diff=diff,
                )
            )
        self.position += 1
        return recorded

    def unreadable(self, recorded: Exchange, reason: str) -> ReplayDivergence:
        """The recorded raw reply of a call (taken already) could not be served."""
        index = self.position - 1
        return self._diverge(
            Divergence(
                index=index,
                kind="reply",
                message=(
                    f"call #{index} ({recorded.stage}): the recorded provider's client cannot "
                    f"read the recorded raw reply: {reason}"
                ),
                recorded_stage=recorded.stage,
                forward=recorded.forward,
            )
        )

    def finish(self) -> Divergence | None:
        """After the run: a divergence, or recorded calls the replay never made."""
        if self.divergence is None and self.position < len(self._exchanges):
            nxt = self._exchanges[self.position]
            self.divergence = Divergence(
                index=self.position,
                kind="missing_calls",
                message=(
                    f"the replay made {self.position} call(s) but the recording has "
                    f"{len(self._exchanges)}; call #{self.position} ({nxt.stage}) "
                    "never happened"
                ),
                recorded_stage=nxt.stage,
                forward=nxt.forward,
            )
        return self.divergence


class SearchCursor:
    """Recorded host search calls (discover/recall), served back in order."""

    def __init__(self, searches: Sequence[SearchCall]) -> None:
        self._searches = list(searches)
        self.position = 0
        self.divergence: Divergence | None = None

    def take(self, kind: str, queries: Sequence[str]) -> list[dict[str, Any]]:
        if self.divergence is not None:
            raise ReplayDivergence(self.divergence)
        wanted = f"{kind}({json_dumps(list(queries))})"
        if self.position >= len(self._searches):
            self.divergence = Divergence(
                index=self.position,
                kind="search",
                message=f"search call #{self.position} {wanted} was not in the recording",
            )
            raise ReplayDivergence(self.divergence)
        recorded = self._searches[self.position]
        rec_queries = list(recorded.searches)
        if recorded.kind != kind or rec_queries != list(queries):
            got = f"{recorded.kind}({json_dumps(rec_queries)})"
            self.divergence = Divergence(
                index=self.position,
                kind="search",
                message=f"search call #{self.position}: recorded {got}, replay {wanted}",
                forward=recorded.forward,
                diff=f"--- recorded search #{self.position}\n+++ replayed search "
                f"#{self.position}\n@@ -1 +1 @@\n-{got}\n+{wanted}\n",
            )
            raise ReplayDivergence(self.divergence)
        self.position += 1
        return [r.to_json() for r in recorded.results]
