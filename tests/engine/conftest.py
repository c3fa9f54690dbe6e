"""Shared pieces for the session engine tests: a fake OpenAI-compatible server on
127.0.0.1 (started and stopped per test), a small catalog and agent, and a recorded
two-forward session."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from axmem_gui.core.catalog import Catalog, Memory, Skill
from axmem_gui.core.session.agent_config import AgentConfig, agent_config_from_json
from axmem_gui.core.session.model import Session
from axmem_gui.services import sessions
from tests.fakes.fake_openai_server import FakeOpenAIServer, settings_for
from tests.helpers.session_docs import session_json
from tests.helpers.store import raw

AGENT_JSON: dict[str, Any] = {
    "name": "triage",
    "signature": "document:string, query:string -> answer:string",
    "instruction": "Answer questions about incident notes.",
    "contextFields": ["document"],
    "catalog": {"skills": "all", "memories": "all"},
    "contextMap": {"maxChars": 1500, "infiniteEvolve": True},
    "relevanceRanking": True,
    "maxActorSteps": 6,
    "runtime": "quickjs",
}

DOCUMENT = (
    "INC-1 | SEV3 | search | slow autocomplete\n"
    "INC-2 | SEV1 | checkout | payments failing for EU cards\n"
    "INC-3 | SEV2 | search | stale index"
)
INPUTS = (
    {"document": DOCUMENT, "query": "Which incident is the most severe and who owns checkout?"},
    {"document": DOCUMENT, "query": "Which incidents affect the search service?"},
)


def make_catalog() -> Catalog:
    return Catalog(
        skills=(
            Skill(
                "incident-triage",
                "Incident triage",
                "How to read incident notes and rank severity",
                "# Incident triage\n- Each line is `<id> | <severity> | <service> | <note>`.\n"
                "- SEV1 is the most severe incident.",
                ("incident",),
            ),
            Skill(
                "release-notes",
                "Release notes style",
                "How to write release notes",
                "# Release notes\nUse short bullet points.",
                ("release",),
            ),
            Skill(
                "search-tuning",
                "Search tuning",
                "Fixing a stale search index and slow autocomplete",
                "# Search tuning\n1. Rebuild the index.\n2. Warm the autocomplete cache.",
                ("search",),
            ),
        ),
        memories=(
            Memory(
                "mem-checkout-owner", "The checkout service owner is team-payments.", ("people",)
            ),
            Memory("mem-search-owner", "The search service owner is team-discovery.", ("people",)),
            Memory("mem-user-pref", "The user prefers one-sentence answers.", ("prefs",)),
            Memory("mem-sev-policy", "A SEV1 incident pages the checkout on-call at once.", ()),
        ),
    )


@pytest.fixture
def catalog() -> Catalog:
    return make_catalog()


@pytest.fixture
def config() -> AgentConfig:
    return agent_config_from_json(copy.deepcopy(AGENT_JSON), "test agent")


def record(
    server: FakeOpenAIServer,
    config: AgentConfig,
    catalog: Catalog,
    inputs: tuple[dict[str, Any], ...] = INPUTS,
    **kw: Any,
) -> Session:
    settings = kw.pop("settings", None) or settings_for(server)
    return sessions.run_agent(config, catalog, list(inputs), settings, **kw)


@pytest.fixture(scope="module")
def recorded_once() -> Iterator[tuple[Session, int]]:
    """One recording shared by a module's tests (a Session is immutable; tests that
    tamper with it take `recorded_json`)."""
    srv = FakeOpenAIServer().start()
    try:
        config = agent_config_from_json(copy.deepcopy(AGENT_JSON), "test agent")
        session = record(srv, config, make_catalog())
        yield session, len(srv.requests)
    finally:
        srv.stop()


@pytest.fixture
def recorded(recorded_once: tuple[Session, int]) -> Session:
    return recorded_once[0]


@pytest.fixture
def recorded_json(recorded_once: tuple[Session, int]) -> dict[str, Any]:
    """The recording as the JSON document it is written as: a copy of its own to change."""
    return session_json(recorded_once[0])


@pytest.fixture
def workspace_path(tmp_path: Any) -> Any:
    """A real workspace file holding the test agent and catalog."""
    from axmem_gui.services.workspace import init_workspace

    path = tmp_path / "test.axmem"
    ws = init_workspace(path)
    try:
        for skill in make_catalog().skills:
            raw(ws).skills.upsert(skill)
        for memory in make_catalog().memories:
            raw(ws).memories.upsert(memory)
        raw(ws).agents.save(AGENT_JSON["name"], copy.deepcopy(AGENT_JSON))
    finally:
        ws.close()
    return path
