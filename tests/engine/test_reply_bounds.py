"""A reply larger than the limit ends the call with an error naming the limit, and no more
of it is held than the limit (issue 26). On main a never-ending stream reached 1.85 GB of
memory before the deadline, and a 100 MB reply was read whole; with a longer deadline the
MemoryError it ended in was recorded as "the agent run failed: " with no message."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.providers import ProviderSettings
from axmem_gui.core.session.agent_config import AgentConfig
from axmem_gui.engine.scripted_model import ScriptedTransport
from axmem_gui.services import sessions
from axmem_gui.services.providers import check_connection
from tests.engine.conftest import INPUTS, make_catalog, record
from tests.fakes.fake_openai_server import FakeOpenAIServer, settings_for

MIB = 1024 * 1024


@pytest.fixture
def peak_memory() -> Iterator[Callable[[], int]]:
    """The most memory Python held (every thread's) since the test began."""
    tracemalloc.start()
    try:
        yield lambda: tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("fault", ["huge", "huge-unannounced"])
def test_a_100_mb_reply_ends_the_call_at_the_limit(
    fault: str, server: FakeOpenAIServer, peak_memory: Callable[[], int]
) -> None:
    server.state.fault_always = fault
    report = check_connection(settings_for(server))  # the default limit, 32 MiB
    assert not report.ok
    assert report.message == (
        "the model server's reply is larger than the 32 MiB limit (--max-reply-mib); "
        "the call was ended there"
    )
    # Not a byte past the limit was kept (and with Content-Length, not even read).
    assert peak_memory() < (34 if fault == "huge-unannounced" else 2) * MIB


def test_an_endless_stream_ends_at_the_limit(
    server: FakeOpenAIServer, peak_memory: Callable[[], int]
) -> None:
    server.state.fault_always = "endless"
    report = check_connection(settings_for(server, stream=True, max_reply_mib=4))
    assert not report.ok
    assert report.message.startswith(
        "the model server's streamed reply is larger than the 4 MiB limit"
    )
    assert peak_memory() < 6 * MIB


def test_a_run_whose_reply_is_too_large_ends_with_that_error_and_keeps_the_rest(
    server: FakeOpenAIServer, config: AgentConfig, catalog: Catalog
) -> None:
    server.state.faults = {3: "endless"}
    settings = settings_for(server, max_reply_mib=2, max_retries=2)
    session = record(server, config, catalog, inputs=INPUTS[:1], settings=settings)
    error = session.error
    assert not session.complete and error is not None
    assert error.kind == "reply_too_large" and "2 MiB limit" in error.message
    # Not retried: the same server would send the same reply.
    assert len(server.requests) == 3
    assert [e.error is None for e in session.exchanges] == [True, True, False]


def test_the_limit_is_a_provider_setting(server: FakeOpenAIServer) -> None:
    from axmem_gui.core.errors import InputError
    from axmem_gui.core.providers import ProviderSettings
    from axmem_gui.services.providers import build_client

    settings = settings_for(server, max_reply_mib=0.5)
    assert ProviderSettings.from_json(settings.to_json()).max_reply_mib == 0.5
    # recorded only when not the default
    assert build_client(settings).provider.to_json()["max_reply_mib"] == 0.5
    assert "max_reply_mib" not in build_client(settings_for(server)).provider.to_json()
    with pytest.raises(InputError, match="--max-reply-mib"):
        settings_for(server, max_reply_mib=0)


class _OutOfMemoryTransport(ScriptedTransport):
    """The scripted model, whose second reply could not be held: MemoryError."""

    def __call__(self, call: Mapping[str, Any]) -> dict[str, Any]:
        if self.count >= 1:
            raise MemoryError()  # as Python raises it: no message
        return super().__call__(call)


def test_memory_error_in_a_run_here_is_a_clear_error(config: AgentConfig) -> None:
    session = sessions.run_agent(
        config,
        make_catalog(),
        INPUTS[:1],
        ProviderSettings("scripted", "scripted-a"),
        transport=_OutOfMemoryTransport(),
    )
    error = session.error
    assert error is not None and error.kind == "out_of_memory" and error.call_index == 1
    assert error.message.startswith("the agent run ran out of memory (MemoryError)")
    assert "--max-reply-mib" in error.message  # and what bounds it
    assert [e.error is None for e in session.exchanges] == [True, False]  # the first kept
