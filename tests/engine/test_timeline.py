"""The viewer's tree: forward > stage > turn > call, with llmQuery under its actor turn."""

from __future__ import annotations

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.session.agent_config import AgentConfig
from axmem_gui.core.session.model import Session
from axmem_gui.core.session.timeline import session_timeline
from axmem_gui.services import sessions
from tests.engine.conftest import DOCUMENT, record
from tests.fakes.fake_openai_server import FakeOpenAIServer
from tests.helpers.session_docs import reparse, session_json


def test_timeline_groups_calls_by_stage_and_turn(recorded: Session) -> None:
    first, second = session_timeline(recorded)
    assert first.status == "complete" and first.forward == recorded.forwards[0]
    assert [s.stage for s in first.stages] == [
        "actor.distiller",
        "actor.executor",
        "responder",
        "context_map.distiller",
        "context_map.cartographer",
    ]
    distiller = first.stages[0]
    assert [t.turn for t in distiller.turns] == [0, 1, 2]
    discover_turn = distiller.turns[0]
    assert discover_turn.code and discover_turn.code.startswith("await discover(")
    assert [s.kind for s in discover_turn.searches] == ["discover"]
    assert [c.kind for c in discover_turn.callbacks] == ["loaded_skills"]
    assert [c.index for c in discover_turn.calls] == [0]
    assert discover_turn.calls[0].prompt_tokens > 0
    assert second.stages[0].turns[0].calls[0].index == 8
    update = first.forward.context_map_update
    assert update is not None and update.status == "updated"


def test_llm_query_sub_calls_are_recorded_and_nested(
    server: FakeOpenAIServer, config: AgentConfig, catalog: Catalog
) -> None:
    inputs = ({"document": DOCUMENT, "query": "Use llmQuery: which incident matters most?"},)
    doc = session_json(record(server, config, catalog, inputs=inputs))
    assert doc["status"] == "complete", doc["error"]
    stages = [e["stage"] for e in doc["exchanges"]]
    assert stages[:2] == ["actor.distiller", "llmQuery"]
    assert doc["exchanges"][1]["turn"] == 0  # belongs to the actor turn that asked
    (fw,) = session_timeline(reparse(doc))
    first_turn = fw.stages[0].turns[0]
    assert [c.stage for c in first_turn.calls] == ["actor.distiller", "llmQuery"]
    assert "llmQuery" not in [s.stage for s in fw.stages]
    assert "scripted sub-answer" in str(first_turn.output)
    assert sessions.replay(reparse(doc)).identical
