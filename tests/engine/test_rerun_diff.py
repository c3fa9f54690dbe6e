"""Rerun a recorded session on another model or catalog, and compare the two."""

from __future__ import annotations

import dataclasses
import json

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.session.compare import compare_sessions, render_comparison
from axmem_gui.core.session.model import Session
from axmem_gui.services import sessions
from tests.engine.conftest import settings_for
from tests.fakes.fake_openai_server import FakeOpenAIServer


def test_rerun_on_another_model_is_a_new_comparable_session(
    recorded: Session, server: FakeOpenAIServer
) -> None:
    rerun = sessions.rerun_session(recorded, settings_for(server, model="scripted-b"))
    assert rerun.id != recorded.id and rerun.status == "complete"
    assert rerun.origin is not None
    assert rerun.origin.to_json() == {
        "kind": "rerun",
        "source_session": recorded.id,
        "catalog": "recorded",
    }
    assert rerun.provider.model == "scripted-b"
    assert [f.inputs for f in rerun.forwards] == [f.inputs for f in recorded.forwards]
    assert rerun.forwards[0].context_map_before == recorded.forwards[0].context_map_before
    assert all(r.body["model"] == "scripted-b" for r in server.requests)

    cmp = compare_sessions(recorded, rerun)
    fw = cmp.forwards[0]
    assert fw.same_inputs and not fw.same_output
    assert isinstance(fw.b_output, dict) and "persona b" in str(fw.b_output["answer"])
    # Persona b never declares a memory used; both load the same entries.
    assert fw.sets["loaded_skills"].same and fw.sets["loaded_memories"].same
    assert fw.sets["used_memories"].only_a and not fw.sets["used_memories"].b
    by_key = {(c.key.forward, c.key.stage, c.key.turn): c for c in cmp.calls}
    first = by_key[(0, "actor.distiller", 0)]
    assert first.same_prompt and first.same_output
    executor = by_key[(0, "actor.executor", 0)]
    assert executor.same_prompt and not executor.same_output and executor.output_diff
    assert by_key[(0, "actor.executor", 1)].b_index is None  # b finished a turn earlier
    responder = by_key[(0, "responder", 0)]
    assert not responder.same_prompt and "+" in responder.prompt_diff
    assert cmp.a_totals.calls == 16 and cmp.b_totals.calls == 14
    assert cmp.first_prompt_difference is responder

    text = render_comparison(cmp)
    assert "forward 1: inputs same, output DIFFERS" in text
    assert "used_memories: a only" in text
    assert "forward 1 · actor.executor · turn 2: a only" in text
    assert "totals: calls 16→14" in text
    as_json = json.loads(json.dumps(cmp.to_json()))
    assert as_json["identical_prompts"] is False and len(as_json["calls"]) == 16


def test_rerun_after_a_catalog_edit_loads_differently(
    recorded: Session, server: FakeOpenAIServer, catalog: Catalog
) -> None:
    loaded = recorded.forwards[0].search_calls[0].result_ids
    assert "incident-triage" in loaded
    edited = dataclasses.replace(
        catalog, skills=tuple(s for s in catalog.skills if s.id != "incident-triage")
    )
    rerun = sessions.rerun_session(recorded, settings_for(server), catalog=edited)
    assert rerun.origin is not None and rerun.origin.catalog == "given"
    cmp = compare_sessions(recorded, rerun)
    skills = cmp.forwards[0].sets["loaded_skills"]
    assert "incident-triage" in skills.only_a and "incident-triage" not in skills.b
    # The edit shows up at the very first call (the skills index in the system prompt).
    assert cmp.first_prompt_difference is not None
    assert cmp.first_prompt_difference.key.stage == "actor.distiller"
    assert "-- `incident-triage` — Incident triage" in cmp.first_prompt_difference.prompt_diff


def test_a_session_compared_with_itself_is_identical(recorded: Session) -> None:
    cmp = compare_sessions(recorded, recorded)
    assert cmp.identical_prompts and cmp.first_prompt_difference is None
    assert all(c.same_output and not c.prompt_diff for c in cmp.calls)
    assert all(f.same_output and all(s.same for s in f.sets.values()) for f in cmp.forwards)
