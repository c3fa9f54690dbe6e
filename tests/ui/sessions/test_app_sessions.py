"""Sessions recorded by apps in the desktop app: the TypeScript example's session (recorded
on the real @ax-llm/ax 24.0.21 by @axmem/ax-recorder) and the Python example's, imported
on the Sessions page, opened in the viewer (function calls and their results, searches,
the map), with Replay and Rerun pointing to the app's own tests, and on the Context Map
page's timeline."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from axmem_gui.core.session.payloads import map_text
from axmem_gui.ui.contextmap import ContextMapPage
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.sessions.controller import SessionsFeature
from axmem_gui.ui.sessions.details import TAB_FUNCTIONS
from axmem_gui.ui.sessions.viewer import SessionViewer
from tests.helpers.session_docs import stored_session
from tests.recorder.example_app.triage_agent import SESSION as PY_SESSION
from tests.ui.sessions.conftest import import_files

REPO = Path(__file__).resolve().parents[3]
TS_SESSION = REPO / "recorders" / "ax-ts" / "example" / "sessions" / "triage.axsession.json"


def _open(feature: SessionsFeature, qtbot: Any, session_id: str) -> SessionViewer:
    page = feature.page
    page.select_ids([session_id])
    qtbot.keyClick(page.table, Qt.Key.Key_Return)
    viewer = page.tabs.currentWidget()
    assert isinstance(viewer, SessionViewer) and viewer.session_id == session_id
    return viewer


def test_a_typescript_session_opens_with_its_function_calls_and_map(
    window: MainWindow, feature: SessionsFeature, qtbot: Any, tmp_path: Path
) -> None:
    assert import_files(qtbot, feature, [TS_SESSION]) == ["ts-triage-example"]
    viewer = _open(feature, qtbot, "ts-triage-example")
    session = stored_session(window.controller.workspace, "ts-triage-example")
    details = viewer.details

    assert "@ax-llm/ax 24.0.21" in viewer.meta.text()
    assert viewer.banner.text().startswith("Recorded by your app (typescript, @ax-llm/ax 24.0.21)")
    assert not viewer.replay_action.isEnabled() and not viewer.rerun_action.isEnabled()
    assert "AxSessionReplayer from @axmem/ax-recorder" in viewer.replay_action.toolTip()
    assert "the studio cannot rerun it" in viewer.rerun_action.toolTip()

    # The executor call whose code called the tool: the call, its arguments and result.
    assert viewer.select_call(3)
    details.tabs.setCurrentIndex(TAB_FUNCTIONS)
    text = details.functions.text()
    assert text.startswith(
        'utils.lookupOwner({"service": "checkout"})   after call #3 (actor.executor turn 1)'
    )
    assert '"team": "team-payments"' in text and '"oncall": "dana"' in text
    turn = (session.forwards[0].turns or ())[3]
    assert details.code.text() == turn.code
    assert details.output.text() == turn.output
    # A call whose code called no tool, and its searches.
    assert viewer.select_call(0)
    assert details.functions.text() == ""
    assert "discover(Who owns the checkout incident?)" in details.loaded.searches.text()
    assert "→ incident-triage" in details.loaded.searches.text()
    # The map before and after the forward, and the update read from the map calls.
    fw = session.forwards[0]
    assert details.map_before.text() == map_text(fw.context_map_before)
    assert details.map_after.text() == map_text(fw.context_map_after)
    assert "cu-00001" in details.map_after.text()
    # the update a TypeScript recording leaves to readers, read from the map calls
    assert details.map_update.text().startswith("update: updated (step 1)")

    if os.environ.get("AXMEM_SCREENSHOTS"):
        assert viewer.select_call(3)
        details.tabs.setCurrentIndex(TAB_FUNCTIONS)
        window.resize(1400, 860)
        window.grab().save(str(Path(os.environ["AXMEM_SCREENSHOTS"]) / "app-session.png"))


@pytest.mark.parametrize(
    ("path", "session_id"),
    [(TS_SESSION, "ts-triage-example"), (PY_SESSION, "py-triage-example")],
    ids=["typescript", "python"],
)
def test_the_context_map_timeline_shows_an_app_sessions_maps(
    window: MainWindow, feature: SessionsFeature, qtbot: Any, path: Path, session_id: str
) -> None:
    assert import_files(qtbot, feature, [path]) == [session_id]
    page = window.pages["contextmaps"]
    assert isinstance(page, ContextMapPage)
    window.show_section("contextmaps")
    page.select_agent("triage")
    entries = page.timeline_model.entries()
    assert [(e.session_id, e.label, e.step) for e in entries] == [
        (session_id, "before forward 1", 0),
        (session_id, "after forward 1", 1),
        (session_id, "after forward 2", 2),
    ]
    assert [(e.update or {}).get("status") for e in entries[1:]] == ["updated", "updated"]
    assert "Diagnosis:" in page.details.toPlainText()
    if os.environ.get("AXMEM_SCREENSHOTS"):
        window.resize(1400, 860)
        window.grab().save(str(Path(os.environ["AXMEM_SCREENSHOTS"]) / "app-session-map.png"))


@pytest.mark.parametrize("path", [PY_SESSION], ids=["python"])
def test_a_python_session_opens_and_points_to_the_fixture(
    feature: SessionsFeature, qtbot: Any, path: Path
) -> None:
    assert import_files(qtbot, feature, [path]) == ["py-triage-example"]
    viewer = _open(feature, qtbot, "py-triage-example")
    assert viewer.banner.text().startswith("Recorded by your app (python, axllm 25.4.6)")
    assert "axsession_replay pytest fixture" in viewer.replay_action.toolTip()
    assert viewer.select_call(3)
    assert viewer.details.functions.text().startswith('utils.lookupOwner({"service": "checkout"})')
