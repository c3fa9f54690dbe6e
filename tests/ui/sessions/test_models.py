"""The sessions Qt models, checked by pytest-qt's model tester and against the session
document they adapt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QModelIndex
from pytestqt.modeltest import ModelTester

from axmem_gui.core.formats import catalog_from_json_value
from axmem_gui.core.session.analytics import session_totals, usage_from_sessions
from axmem_gui.core.session.compare import compare_sessions
from axmem_gui.core.session.whatif import whatif_retrieval
from axmem_gui.engine.search import backend_named
from axmem_gui.services.sessions import SessionRow
from axmem_gui.ui.sessions.analytics_view import UsageModel
from axmem_gui.ui.sessions.compare_view import CallPairModel
from axmem_gui.ui.sessions.list_model import STATUS, TOKENS, SessionListModel, SessionRole
from axmem_gui.ui.sessions.timeline_model import (
    MS,
    NodeKind,
    TimelineModel,
    TimelineRole,
)
from axmem_gui.ui.sessions.whatif_model import WhatIfModel
from tests.helpers.session_docs import reparse

SAMPLE = (
    Path(__file__).resolve().parents[3]
    / "axmem_gui"
    / "sample"
    / ("session-ops-assistant.axsession.json")
)


@pytest.fixture
def doc() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(SAMPLE.read_text(encoding="utf-8"))
    return doc


def _children(model: TimelineModel, parent: QModelIndex) -> list[QModelIndex]:
    return [model.index(r, 0, parent) for r in range(model.rowCount(parent))]


def test_timeline_model_passes_the_model_tester(
    qtmodeltester: ModelTester, doc: dict[str, Any]
) -> None:
    model = TimelineModel()
    model.set_session(reparse(doc))
    qtmodeltester.check(model)
    model.set_session(None)
    qtmodeltester.check(model)


def test_timeline_is_forward_stage_turn_call(doc: dict[str, Any]) -> None:
    session = reparse(doc)
    model = TimelineModel()
    model.set_session(session)
    forwards = _children(model, QModelIndex())
    assert len(forwards) == len(doc["forwards"])
    seen_calls: list[int] = []
    for fw in forwards:
        assert fw.data(TimelineRole.Kind) == NodeKind.Forward
        for stage in _children(model, fw):
            assert stage.data(TimelineRole.Kind) == NodeKind.Stage
            assert model.parent(stage) == fw
            for turn in _children(model, stage):
                assert turn.data(TimelineRole.Kind) == NodeKind.Turn
                for call in _children(model, turn):
                    assert call.data(TimelineRole.Kind) == NodeKind.Call
                    assert model.rowCount(call) == 0
                    index = call.data(TimelineRole.CallIndex)
                    ex = doc["exchanges"][index]
                    assert ex["forward"] == fw.data(TimelineRole.Forward)
                    assert stage.data().startswith(ex["stage"])
                    tokens = sum(session.exchanges[index].tokens)
                    assert call.siblingAtColumn(1).data() == f"{tokens:,}"
                    seen_calls.append(index)
    # Every model call appears exactly once, in recorded order.
    assert seen_calls == list(range(len(doc["exchanges"])))
    total = sum(sum(e.tokens) for e in session.exchanges_of(0))
    assert forwards[0].siblingAtColumn(1).data() == f"{total:,}"
    assert forwards[0].siblingAtColumn(MS).data() != ""
    assert model.index_of_call(5).data(TimelineRole.CallIndex) == 5
    assert not model.index_of_call(999).isValid()


def test_a_failed_call_is_marked(doc: dict[str, Any]) -> None:
    doc["exchanges"][3]["error"] = {
        "kind": "http_status",
        "type": "ProviderFailure",
        "message": "HTTP 500: boom",
    }
    doc["forwards"][0]["status"] = "failed"
    model = TimelineModel()
    model.set_session(reparse(doc))
    call = model.index_of_call(3)
    assert "failed" in call.data()
    assert call.data(9) is not None  # ForegroundRole: tinted
    assert "HTTP 500: boom" in call.data(3)  # ToolTipRole
    assert "failed" in model.index(0, 0).data()


def _summary(doc: dict[str, Any], **kw: Any) -> SessionRow:
    values = dict(
        id=doc["id"], name=doc["name"], agent="ops-assistant", provider="openai-compatible",
        model="scripted-a", status="complete", created_at=doc["created_at"],
        exchanges=len(doc["exchanges"]),
    )  # fmt: skip
    values.update(kw)
    return SessionRow(**values)


def test_session_list_model(qtmodeltester: ModelTester, doc: dict[str, Any]) -> None:
    model = SessionListModel()
    model.set_sessions([_summary(doc), _summary(doc, id="b", status="incomplete")])
    qtmodeltester.check(model)
    assert model.index(0, TOKENS).data() == "…"
    assert model.missing_totals() == [doc["id"], "b"]
    totals = session_totals(reparse(doc))
    model.set_totals({doc["id"]: totals})
    assert model.index(0, TOKENS).data() == f"{totals.tokens:,}"
    assert model.missing_totals() == ["b"]
    assert model.index(1, STATUS).data() == "⚠ incomplete"
    assert model.index(1, STATUS).data(SessionRole.Status) == "incomplete"
    assert model.index(0, STATUS).data() == "complete"
    qtmodeltester.check(model)


def test_whatif_compare_and_usage_models(qtmodeltester: ModelTester, doc: dict[str, Any]) -> None:
    catalog = catalog_from_json_value(doc["catalog"], "sample")
    session = reparse(doc)
    whatif = WhatIfModel()
    whatif.set_report(whatif_retrieval(session, catalog, backend_named(None)))
    qtmodeltester.check(whatif)
    assert whatif.rowCount() == sum(len(f["searches"]) for f in doc["forwards"])
    pairs = CallPairModel()
    pairs.set_pairs(compare_sessions(session, session).calls)
    qtmodeltester.check(pairs)
    assert pairs.rowCount() == len(doc["exchanges"])
    assert {pairs.index(r, 3).data() for r in range(pairs.rowCount())} == {"same"}
    usage = UsageModel()
    usage.set_report(usage_from_sessions([session], catalog))
    qtmodeltester.check(usage)
    assert usage.rowCount() == len(catalog.skills) + len(catalog.memories)
