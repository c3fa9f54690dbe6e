"""What-if retrieval: the recorded discover/recall calls against another catalog."""

from __future__ import annotations

import dataclasses
from typing import Any

from axmem_gui.core.catalog import Catalog, Memory, Skill
from axmem_gui.core.session.model import Session
from axmem_gui.core.session.whatif import render_whatif
from axmem_gui.engine.search import AxllmBuiltinBackend, default_backend
from axmem_gui.services import sessions
from tests.helpers.session_docs import reparse


def test_same_catalog_same_backend_changes_nothing(recorded: Session) -> None:
    report = sessions.whatif(recorded)
    assert not report.changed
    assert [(c.forward, c.kind, c.turn) for c in report.calls] == [
        (0, "discover", 0),
        (0, "recall", 1),
        (1, "discover", 0),
        (1, "recall", 1),
    ]
    assert recorded.search is not None and report.backend == recorded.search.backend
    assert "retrieval unchanged" in render_whatif(report)


def test_edited_catalog_shows_what_would_load_per_turn(
    recorded: Session, catalog: Catalog
) -> None:
    first_discover = recorded.forwards[0].search_calls[0]
    dropped = first_discover.result_ids[0]
    recalled = recorded.forwards[0].search_calls[1].result_ids[0]
    edited = Catalog(
        skills=(
            *tuple(s for s in catalog.skills if s.id != dropped),
            Skill(
                "severity-matrix",
                "Severity matrix",
                "Which incident is the most severe",
                "# Severity\nSEV1 incident is the most severe; checkout owns payments.",
            ),
        ),
        memories=(
            *tuple(
                dataclasses.replace(m, content=m.content + " (updated)") if m.id == recalled else m
                for m in catalog.memories
            ),
            Memory("mem-new", "Checkout incidents page team-payments."),
        ),
    )
    report = sessions.whatif(recorded, edited)
    assert report.changed
    call = report.calls[0]
    assert call.kind == "discover" and dropped in call.removed and dropped not in call.now
    assert "severity-matrix" in call.added
    recall = report.calls[1]
    assert recalled in recall.content_changed or recalled in recall.removed
    text = render_whatif(report)
    lines = [line for line in text.splitlines() if "would no longer load" in line]
    assert lines and f"'{dropped}'" in lines[0]
    assert "forward 1 · actor.distiller · turn 1 · discover(" in text
    assert "retrieval would differ" in text
    # No model was involved: the session is untouched.
    assert recorded.forwards[0].search_calls[0].result_ids[0] == dropped


def test_whatif_with_another_backend_names_both(recorded: Session) -> None:
    report = sessions.whatif(recorded, None, AxllmBuiltinBackend())
    assert report.backend == "axllm-builtin" and report.recorded_backend == "axmem-ax"
    assert report.to_json()["backend"] == "axllm-builtin"
    assert default_backend().name == "axmem-ax"


def test_whatif_respects_the_agent_tag_filter(
    recorded_json: dict[str, Any], catalog: Catalog
) -> None:
    recorded_json["agent"]["catalog"] = {"skills": {"tags": ["release"]}, "memories": "none"}
    report = sessions.whatif(reparse(recorded_json), catalog)
    for call in report.calls:
        if call.kind == "discover":
            assert set(call.now) <= {"release-notes"}
        else:
            assert call.now == ()
