"""Continuing a context map applies the agent's map settings, or the carried map's by an
explicit rule; the session records which, warns when they differ, and verify and replay
check it (issue #29). On the old code the carried map's settings won silently: an agent
with `evolveSteps: 3` continuing a map that says 2 skipped its update, and one with
`maxChars: 2000` still evicted to fit the carried 600."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.session.agent_config import AgentConfig, agent_config_from_json
from axmem_gui.core.session.model import Session
from axmem_gui.services import sessions
from tests.engine.conftest import AGENT_JSON, INPUTS, record
from tests.fakes.fake_openai_server import FakeOpenAIServer
from tests.helpers.present import present
from tests.helpers.session_docs import reparse, session_json


def _agent(**context_map: Any) -> AgentConfig:
    value = copy.deepcopy(AGENT_JSON)
    value["contextMap"] = context_map
    return agent_config_from_json(value, "test agent")


def _made_by(server: FakeOpenAIServer, catalog: Catalog, config: AgentConfig) -> dict[str, Any]:
    state = record(server, config, catalog, INPUTS).forwards[-1].context_map_after
    assert state is not None and state["steps"] == 2 and state["maxChars"] == 600
    return dict(state)


@pytest.fixture
def small_map(server: FakeOpenAIServer, catalog: Catalog) -> dict[str, Any]:
    """A map two updates old, made by an agent with maxChars 600 and evolveSteps 2: it
    says so itself (steps 2 of 2)."""
    return _made_by(server, catalog, _agent(maxChars=600, infiniteEvolve=False, evolveSteps=2))


@pytest.fixture
def narrow_map(server: FakeOpenAIServer, catalog: Catalog) -> dict[str, Any]:
    """A map made under maxChars 600 that evolves forever: its updates evict to fit."""
    return _made_by(server, catalog, _agent(maxChars=600, infiniteEvolve=True))


def _continue(
    server: FakeOpenAIServer, config: AgentConfig, catalog: Catalog, start: Any, **kw: Any
) -> Session:
    return record(server, config, catalog, (dict(INPUTS[0]),), context_map=start, **kw)


def test_the_agents_evolve_steps_apply_to_a_continued_map(
    server: FakeOpenAIServer, catalog: Catalog, small_map: dict[str, Any]
) -> None:
    config = _agent(maxChars=600, infiniteEvolve=False, evolveSteps=3)
    session = _continue(server, config, catalog, small_map)
    fw = session.forwards[0]
    update = fw.context_map_update
    assert update is not None and update.distiller_call is not None
    assert update.status != "skipped"  # it was: the map's evolveSteps 2 won
    assert fw.context_map_after is not None and fw.context_map_after["steps"] == 3
    doc = session_json(session)
    assert doc["context_map_settings"] == {
        "rule": "agent",
        "effective": {"maxChars": 600, "infiniteEvolve": False, "evolveSteps": 3},
        "carried": {"maxChars": 600, "infiniteEvolve": False, "evolveSteps": 2},
    }
    [warning] = doc["warnings"]
    assert "says evolveSteps 2" in warning and "contextMap (evolveSteps 3) applied" in warning
    assert sessions.verify(session).ok
    assert sessions.replay(session).identical


def test_the_agents_max_chars_apply_to_a_continued_map(
    server: FakeOpenAIServer, catalog: Catalog, narrow_map: dict[str, Any]
) -> None:
    wide = _agent(maxChars=2000, infiniteEvolve=True)
    session = _continue(server, wide, catalog, narrow_map)
    update = session.forwards[0].context_map_update
    assert update is not None and update.budget is not None
    assert update.budget["maxChars"] == 2000 and update.evicted == ()
    assert present(session.forwards[0].context_map_before)["maxChars"] == 2000
    # The same map under its own 600 (rule 'carried') evicts to fit it, and says why.
    narrow = _continue(server, wide, catalog, narrow_map, map_rule="carried")
    kept = narrow.forwards[0].context_map_update
    assert kept is not None and kept.budget is not None and kept.budget["maxChars"] == 600
    assert kept.evicted, "the carried 600 evicts what the agent's 2000 keeps"
    [warning] = narrow.warning_list
    assert "by the rule 'carried'" in warning and "maxChars 600" in warning
    assert sessions.verify(narrow).ok and sessions.replay(narrow).identical


def test_a_map_without_settings_of_its_own_warns_about_nothing(
    server: FakeOpenAIServer, catalog: Catalog
) -> None:
    session = _continue(server, _agent(maxChars=900), catalog, "## Notes\n- one thing")
    doc = session_json(session)
    assert doc["context_map_settings"]["carried"] is None
    assert doc["warnings"] == []


TAMPERS = [
    # (what is edited, how, where verify says it is)
    (
        "the agent's maxChars",
        lambda d: d["agent"]["contextMap"].update(maxChars=1900),
        "context_map_settings.effective",
    ),
    (
        "the agent's evolveSteps",
        lambda d: d["agent"]["contextMap"].update(evolveSteps=5),
        "context_map_settings.effective",
    ),
    ("the rule", lambda d: d["context_map_settings"].update(rule="carried"), "warnings"),
    (
        "what the carried map said",
        lambda d: d["context_map_settings"]["carried"].update(evolveSteps=3),
        "warnings",
    ),
    (
        "the effective settings",
        lambda d: d["context_map_settings"]["effective"].update(maxChars=601),
        "context_map_settings.effective",
    ),
    (
        "the settings in the map state",
        lambda d: d["forwards"][0]["context_map_after"].update(evolveSteps=9),
        "forwards[0].context_map_after",
    ),
]


@pytest.mark.parametrize(("what", "edit", "where"), TAMPERS, ids=[t[0] for t in TAMPERS])
def test_verify_and_replay_catch_an_edited_map_setting(
    server: FakeOpenAIServer,
    catalog: Catalog,
    small_map: dict[str, Any],
    what: str,
    edit: Any,
    where: str,
) -> None:
    config = _agent(maxChars=600, infiniteEvolve=False, evolveSteps=3)
    doc = session_json(_continue(server, config, catalog, small_map))
    edit(doc)
    tampered = reparse(doc)
    found = [d.where for d in sessions.verify(tampered).differences]
    assert where in found, (what, found)
    assert not sessions.replay(tampered).identical, what


def test_the_record_is_required_of_a_version_2_file_with_a_map(
    server: FakeOpenAIServer, catalog: Catalog, small_map: dict[str, Any]
) -> None:
    config = _agent(maxChars=600, infiniteEvolve=False, evolveSteps=3)
    doc = session_json(_continue(server, config, catalog, small_map))
    doc["context_map_settings"] = None
    assert "context_map_settings" in [d.where for d in sessions.verify(reparse(doc)).differences]


def test_the_cli_warns_when_the_carried_settings_do_not_apply(
    server: FakeOpenAIServer,
    workspace_path: Any,
    small_map: dict[str, Any],
    tmp_path: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import json

    from axmem_gui.cli.main import main

    start = tmp_path / "map.json"
    start.write_text(json.dumps(small_map), encoding="utf-8")
    base = [
        "run", "--workspace", str(workspace_path), "--agent", "triage",
        "--input", f"query={INPUTS[0]['query']}", "--input", "document=INC-1 | SEV1",
        "--provider", "openai-compatible",
        "--model", "scripted-a", "--base-url", server.base_url, "-q",
        "--context-map", str(start),
    ]  # fmt: skip
    out = tmp_path / "agent.axsession.json"
    assert main([*base, "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "axmem: warning: the context map the run started from says maxChars 600" in err
    assert "the agent's contextMap (maxChars 1500" in err
    # The note names what the agent's settings replaced (it named nothing).
    assert (
        "axmem: note: the agent's map settings replaced the carried map's (maxChars 600 -> 1500"
        in err
    )
    assert json.loads(out.read_text())["context_map_settings"]["rule"] == "agent"
    kept = tmp_path / "carried.axsession.json"
    assert main([*base, "--map-settings", "carried", "-o", str(kept)]) == 0
    assert "by the rule 'carried'" in capsys.readouterr().err
    doc = json.loads(kept.read_text())
    assert doc["forwards"][0]["context_map_update"]["status"] == "skipped"  # its own 2 of 2
