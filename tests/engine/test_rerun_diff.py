"""Rerun a recorded session on another model or catalog, and compare the two."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.session.compare import compare_sessions, render_comparison
from axmem_gui.core.session.model import Session
from axmem_gui.services import sessions
from tests.fakes.fake_openai_server import FakeOpenAIServer, settings_for


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


def test_diff_names_the_catalog_entries_and_agent_keys_that_differ(
    recorded: Session, server: FakeOpenAIServer, catalog: Catalog, tmp_path: Any, capsys: Any
) -> None:
    """An edited skill or instruction showed only through the prompt diffs it caused; the
    comparison now says what each agent was given (issue #29)."""
    from axmem_gui.cli.main import main
    from axmem_gui.core.catalog import Skill
    from tests.helpers.session_docs import reparse, session_json

    triage = catalog.skills[0]
    edited = dataclasses.replace(
        catalog,
        skills=(
            dataclasses.replace(triage, content=triage.content + "\n- SEV0 outranks SEV1."),
            *(s for s in catalog.skills[1:] if s.id != "release-notes"),
            Skill("postmortems", "Postmortems", "Writing a postmortem", "# Postmortems"),
        ),
        memories=tuple(m for m in catalog.memories if m.id != "mem-user-pref"),
    )
    rerun = sessions.rerun_session(recorded, settings_for(server), catalog=edited)
    doc = session_json(rerun)
    doc["agent"]["instruction"] = "Answer in one line."
    doc["agent"]["contextMap"]["maxChars"] = 2000
    other = reparse(doc)

    cmp = compare_sessions(recorded, other)
    assert cmp.catalog.added == (("skill", "postmortems"),)
    assert cmp.catalog.removed == (("skill", "release-notes"), ("memory", "mem-user-pref"))
    [changed] = cmp.catalog.changed
    assert (changed.kind, changed.id) == ("skill", "incident-triage")
    assert [f.name for f in changed.fields] == ["content"]
    assert [(c.name, c.a, c.b) for c in cmp.agent.changes] == [
        ("instruction", "Answer questions about incident notes.", "Answer in one line."),
        ("contextMap.maxChars", 1500, 2000),
    ]
    text = render_comparison(cmp)
    assert "agent: 2 config key(s) differ" in text
    assert "  ~ contextMap.maxChars: 1500 → 2000" in text
    assert "catalog: 1 added, 2 removed, 1 changed" in text
    assert "  + skill postmortems" in text and "  - memory mem-user-pref" in text
    assert "  ~ skill incident-triage" in text and "+- SEV0 outranks SEV1." in text
    same = compare_sessions(recorded, recorded)
    assert same.catalog.same and same.agent.same

    a, b = tmp_path / "a.axsession.json", tmp_path / "b.axsession.json"
    sessions.write_session_file(recorded, a)
    sessions.write_session_file(other, b)
    assert main(["diff", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "agent: 2 config key(s) differ" in out and "  + skill postmortems" in out
    assert main(["diff", str(a), str(b), "--json"]) == 0
    as_json = json.loads(capsys.readouterr().out)
    assert as_json["catalog"]["added"] == [{"kind": "skill", "id": "postmortems"}]
    assert as_json["agent"]["changes"][1] == {
        "name": "contextMap.maxChars", "status": "changed", "a": 1500, "b": 2000,
    }  # fmt: skip
