"""The viewer shows every actor call with what came of it (issue #29): a turn whose code the
runtime refused (two fenced blocks: the [POLICY] message), and a reply cut off as invalid
JSON at the token cap (invalid output, retry 1, the parse error), each with what the model
is shown about it on its next call. On the old code both looked like turns that did
nothing: "turn 2" and "The code printed nothing."."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from axmem_gui.core.session.agent_config import agent_config_from_json
from axmem_gui.core.session.model import Session
from axmem_gui.services import sessions
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.sessions.controller import SessionsFeature
from axmem_gui.ui.sessions.details import TAB_OUTPUT, TAB_REQUEST
from axmem_gui.ui.sessions.timeline_model import NodeKind
from axmem_gui.ui.sessions.viewer import SessionViewer
from tests.engine.conftest import AGENT_JSON, INPUTS, make_catalog
from tests.fakes.fake_openai_server import FakeOpenAIServer, settings_for

POLICY = (
    "[POLICY] Javascript Code must contain at most one fenced code block. "
    "No code from the previous turn was executed."
)


def _record_misbehaving_run(server: FakeOpenAIServer) -> Session:
    # Call 2 (the distiller's second turn) answers in two fenced blocks; call 4 (the
    # executor's first) is cut off in the middle of its JSON at the token cap.
    server.state.faults = {2: "two-fences", 4: "cut-json"}
    config = agent_config_from_json(copy.deepcopy(AGENT_JSON), "test agent")
    return sessions.run_agent(config, make_catalog(), [INPUTS[0]], settings_for(server))


def _turn_label(feature: SessionsFeature, call: int) -> str:
    viewer = feature.page.tabs.currentWidget()
    assert isinstance(viewer, SessionViewer)
    index = viewer.model.index_of_call(call)
    item = viewer.model.item(index.parent())
    assert item is not None and item.kind == NodeKind.Turn
    return str(item.label())


def test_the_viewer_shows_a_refused_turn_and_an_invalid_json_retry(
    window: MainWindow,
    feature: SessionsFeature,
    server: FakeOpenAIServer,
    qtbot: Any,
    tmp_path: Path,
) -> None:
    session = _record_misbehaving_run(server)
    assert session.complete
    feature.sessions().save(session)
    feature.reload()
    viewer = feature.open_session(session.id)
    assert viewer is not None
    details = viewer.details
    window.resize(1400, 860)
    viewer.details.tabs.setCurrentIndex(TAB_OUTPUT)

    # The refused turn: named in the timeline, the policy message as its runtime output,
    # and the Action Log entry the model reads on its next turn.
    assert viewer.select_call(1)
    assert _turn_label(feature, 1) == "turn 2 · refused by policy"
    assert "refused by policy" in details.header.text()
    assert details.output.text() == POLICY
    assert "at most one fenced code block" in details.next_view.text()
    assert details.next_view.text().startswith("```javascript\n```js\n")
    window.grab().save(str(tmp_path / "refused.png"))

    # The invalid JSON: which retry it caused, the parse error, and the correction sent.
    assert viewer.select_call(3)
    assert _turn_label(feature, 3) == "turn 1 · invalid output (retry 1)"
    assert details.output.text() == "Unterminated string starting at: line 1 column 20 (char 19)"
    assert details.next_view.text().endswith(
        "Invalid Field: Unterminated string starting at: line 1 column 20 (char 19)"
    )
    assert details.code.text() == ""
    window.grab().save(str(tmp_path / "invalid.png"))
    # Cut off at the token cap: the finish reason says so; the Request tab shows what
    # decided the call (temperature 0 was on the wire, nowhere in the old file).
    assert "finish reason:      length" in details.details.text()
    details.tabs.setCurrentIndex(TAB_REQUEST)
    assert '"temperature": 0' in details.request.text()
    window.grab().save(str(tmp_path / "request.png"))
    details.tabs.setCurrentIndex(TAB_OUTPUT)
    # The retry that followed ran its code.
    assert viewer.select_call(4)
    assert _turn_label(feature, 4) == "turn 2"


def test_an_old_file_gets_its_outcomes_derived_where_it_is_read(
    window: MainWindow, feature: SessionsFeature, server: FakeOpenAIServer
) -> None:
    """A version 1 file lists only the turns whose code ran; the viewer derives the others
    from its trace and calls, as version 2 stores them."""
    from tests.helpers.session_docs import reparse, session_json

    doc = session_json(_record_misbehaving_run(server))
    doc["version"] = 1
    for fw in doc["forwards"]:
        fw["turns"] = [
            {k: v for k, v in t.items() if k not in ("outcome", "retry", "message", "next_view")}
            for t in fw["turns"]
            if t["outcome"] == "ran"
        ]
    old = reparse(doc)
    feature.sessions().save(old)
    feature.reload()
    viewer = feature.open_session(old.id)
    assert viewer is not None
    assert viewer.select_call(1)
    assert _turn_label(feature, 1) == "turn 2 · refused by policy"
    assert viewer.details.output.text() == POLICY
