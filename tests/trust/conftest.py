"""Sessions recorded through the independent scripted server (tests/trust/script_server)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from axmem_gui.core.providers import ProviderSettings
from axmem_gui.core.session.agent_config import agent_config_from_json
from axmem_gui.services import sessions
from tests.engine.conftest import (
    AGENT_JSON,
    INPUTS,
    make_catalog,
    workspace_path,  # noqa: F401  (a shared fixture)
)
from tests.helpers.session_docs import session_json
from tests.trust.script_server import ScriptServer, script_server  # noqa: F401


def settings(server: ScriptServer, **kw: Any) -> ProviderSettings:
    kw.setdefault("max_retries", 0)
    kw.setdefault("timeout_s", 10.0)
    return ProviderSettings("openai-compatible", "script-1", base_url=server.base_url, **kw)


def record(server: ScriptServer, *, max_chars: int = 1500, **kw: Any) -> dict[str, Any]:
    """A live run through the script server, as the document it is written as (these
    tests change what a file holds)."""
    agent = copy.deepcopy(AGENT_JSON)
    agent["contextMap"]["maxChars"] = max_chars
    config = agent_config_from_json(agent, "test agent")
    inputs = kw.pop("inputs", INPUTS)
    session = sessions.run_agent(
        config, make_catalog(), list(inputs), kw.pop("settings", None) or settings(server), **kw
    )
    return session_json(session)


@pytest.fixture(scope="module")
def trusted_once() -> Iterator[dict[str, Any]]:
    srv = ScriptServer().start()
    try:
        yield record(srv)
    finally:
        srv.stop()


@pytest.fixture
def trusted(trusted_once: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(trusted_once)
