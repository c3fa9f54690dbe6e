"""Replay (and verify) through the recorded provider's own axllm client.

A version 2 call is sent again through the client the recorded provider settings build
(its model, its defaults, its structured-output mode and streaming), over a transport
that answers with the recorded raw reply (`engine.wire.ReplayTransport`). So the
settings the provider gets are made again, not copied, and what the agent reads is
axllm's reading of what the provider sent back: an edited model name, sampling setting,
finish reason or token count no longer replays as "identical".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from axmem_gui.core.errors import AxmemError
from axmem_gui.core.providers import ProviderSettings
from axmem_gui.core.session.digest import digest_scheme
from axmem_gui.core.session.model import Exchange, Session, SessionProvider
from axmem_gui.core.session.redact import has_redacted_credentials, url_without_redacted
from axmem_gui.core.session.verify import Difference, json_diff
from axmem_gui.core.session.wire_payloads import params_of
from axmem_gui.engine.clients import jsonable
from axmem_gui.engine.providers import make_client
from axmem_gui.engine.wire import ReplayTransport

#: Handed to providers that want a key: never sent anywhere (the transport is ours).
REPLAY_KEY = "replay-no-key"


@dataclass
class Resent:
    """What sending a recorded call again came to."""

    response: Any  # axllm's reading of the recorded raw reply (None when it failed)
    chunks: list[Any] | None  # a streamed reply's chunks, as the client read them
    sent: dict[str, Any] | None  # the request settings the client made
    params: dict[str, Any]  # `params` as the recorder derives them
    failure: BaseException | None


class WireReplay:
    """The recorded provider's client over a replay transport. Raises AxmemError when
    the recorded provider settings cannot build one here."""

    def __init__(self, provider: SessionProvider) -> None:
        settings = dataclasses.replace(ProviderSettings.of_session(provider), max_retries=0)
        if settings.base_url and has_redacted_credentials(settings.base_url):
            # A key the base URL carried was redacted when the file was written; the
            # replay sends nothing, so the URL without it builds the same requests.
            bare = url_without_redacted(settings.base_url)
            settings = dataclasses.replace(settings, base_url=bare)
        self.transport = ReplayTransport()
        self.client = make_client(settings, REPLAY_KEY, transport=self.transport)

    @property
    def model(self) -> str | None:
        model = getattr(self.client, "model", None)
        return model if isinstance(model, str) else None

    def send(
        self, recorded: Exchange, request: Mapping[str, Any], options: Mapping[str, Any]
    ) -> Resent:
        self.transport.serving = recorded
        self.transport.sent = None
        response: Any = None
        failure: BaseException | None = None
        try:
            response = self.client.chat(request, dict(options))
        except Exception as exc:  # the recorded error, or a raw reply axllm cannot read
            failure = exc
        call = getattr(self.client, "last_call", None)
        chunks = getattr(call, "chunks", None)
        # A call recorded without an HTTP attempt (cancelled first) had no settings sent.
        sent = self.transport.sent if recorded.wire is not None else None
        return Resent(
            response=None if response is None else jsonable(response),
            chunks=jsonable(chunks) if isinstance(chunks, list) else None,
            sent=sent,
            params=params_of(jsonable(request), sent, self.model),
            failure=failure,
        )


def reply_difference(
    recorded: Exchange, response: Any, chunks: list[Any] | None
) -> Difference | None:
    """A stored reply (or a streamed one's chunks) set against what the recorded provider's
    client reads from the recorded raw reply: the served model name, the finish reason,
    the token counts, the content."""
    where = f"exchanges[{recorded.index}]"
    stored: Any
    read: Any
    if recorded.chunks is not None:
        if chunks == recorded.chunks:
            return None
        where, stored, read = f"{where}.chunks", recorded.chunks, chunks
    elif response == recorded.response:
        return None
    else:
        where, stored, read = f"{where}.response", recorded.response, response
    return Difference(
        where,
        "reply",
        "the stored reply is not what the recorded provider's client reads from the recorded "
        "raw reply (served model name, finish reason, token counts, content)",
        json_diff(stored, read, where, ("stored", "read from the raw reply")),
    )


def stored_reply_differences(session: Session) -> list[Difference]:
    """Verify's reading of each recorded raw reply (no agent run, no network): the
    recorded provider's client reads it as it did for the replay, and its reading must be
    the stored reply (its content, function calls, finish reason, model and usage)."""
    calls = [
        ex
        for ex in session.exchanges
        if digest_scheme(ex.digest) == 2
        and ex.wire is not None
        and ex.error is None
        and ex.response is not None
    ]
    if not calls:
        return []
    try:
        wire = WireReplay(session.provider)
    except AxmemError as exc:
        return [
            Difference(
                "provider",
                "outcome",
                f"the recorded provider settings build no client here ({exc}): the stored "
                "replies were not checked against the recorded raw replies",
            )
        ]
    out = []
    for ex in calls:
        resent = wire.send(ex, ex.request, {})
        if resent.failure is not None or resent.response is None:
            out.append(
                Difference(
                    f"exchanges[{ex.index}].wire.response",
                    "reply",
                    "the recorded provider's client cannot read the recorded raw reply "
                    f"({resent.failure or 'no reply'})",
                )
            )
            continue
        found = reply_difference(ex, resent.response, resent.chunks)
        if found is not None:
            out.append(found)
    return out
