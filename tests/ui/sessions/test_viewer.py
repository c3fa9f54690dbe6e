"""The Sessions page on the sample workspace: list, opening the sample session, and the
detail tabs showing exactly the recorded text."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QTextOption

from axmem_gui.core.session.analytics import session_totals
from axmem_gui.core.session.payloads import message_text, response_text
from axmem_gui.core.session.replay_cursor import request_as_text
from axmem_gui.services import sessions
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.sessions.controller import SessionsFeature
from axmem_gui.ui.sessions.details import TAB_LOADED
from axmem_gui.ui.sessions.list_model import NAME, STATUS, TOKENS
from axmem_gui.ui.sessions.page import EMPTY_TEXT
from axmem_gui.ui.sessions.viewer import SessionViewer
from tests.helpers.session_docs import reparse, session_json, stored_json, stored_session
from tests.helpers.store import raw
from tests.ui.sessions.conftest import SAMPLE_ID, import_files


def _message(request: dict[str, Any], role: str) -> str:
    [found] = [m for m in request["chat_prompt"] if m["role"] == role]
    return message_text(found["content"])


def test_list_shows_the_sample_session_with_totals(
    window: MainWindow, feature: SessionsFeature, qtbot: Any
) -> None:
    page = feature.page
    assert window.stack.currentWidget() is page
    assert page.list_stack.currentWidget() is page.table
    # The sample ships two sessions: the same requests on scripted models A and B.
    assert page.model.rowCount() == 2
    session = stored_session(window.controller.workspace, SAMPLE_ID)
    row = page.model.row_of(SAMPLE_ID)
    assert page.model.index(row, NAME).data() == session.name
    assert page.model.index(row, STATUS).data() == "complete"
    qtbot.waitUntil(lambda: page.model.index(row, TOKENS).data() != "…", timeout=10_000)
    assert page.model.index(row, TOKENS).data() == f"{session_totals(session).tokens:,}"


def test_open_the_sample_and_read_each_tab(
    window: MainWindow, feature: SessionsFeature, qtbot: Any
) -> None:
    page = feature.page
    page.select_ids([SAMPLE_ID])
    qtbot.keyClick(page.table, Qt.Key.Key_Return)
    viewer = page.tabs.currentWidget()
    assert isinstance(viewer, SessionViewer) and viewer.session_id == SAMPLE_ID
    doc = stored_json(window.controller.workspace, SAMPLE_ID)
    details = viewer.details
    # An executor call: prompts, reply, code and runtime output as recorded.
    [turn] = [t for t in doc["forwards"][0]["turns"] if t["call_index"] == 4]
    assert viewer.select_call(4)
    ex = doc["exchanges"][4]
    assert details.system.text() == _message(ex["request"], "system")
    assert details.user.text() == _message(ex["request"], "user")
    # The request, then what decided the call: its params and the settings as sent.
    request_tab = details.request.text()
    assert request_tab.startswith('=== params (what decided the call) ===\n{\n  "max_tokens"')
    assert '"temperature": 0' in request_tab
    assert "=== sent to the provider (the HTTP body without the prompt) ===" in request_tab
    assert request_tab.endswith(request_as_text(ex["request"]))
    assert details.response.text() == response_text(ex["response"])
    assert details.code.text() == turn["code"]
    assert details.output.text() == (turn["output"] or "")
    assert f"{ex['usage']['prompt_tokens']:,} + {ex['usage']['completion_tokens']:,}" in (
        details.header.text()
    )
    assert f"prompt tokens:      {ex['usage']['prompt_tokens']:,}" in details.details.text()
    assert "ms" in details.details.text() and ex["digest"] in details.details.text()
    # The responder runs no code: the code tab says so instead of showing something else.
    assert viewer.select_call(5)
    assert details.code.text() == "" and "actor turns" in details.code.edit.placeholderText()
    # Context map before/after of the forward.
    fw = doc["forwards"][0]
    assert details.map_before.text() == fw["context_map_before"]["text"]
    assert details.map_after.text() == fw["context_map_after"]["text"]
    assert "diagnosis:" in details.map_update.text()
    assert fw["context_map_update"]["diagnosis"] in details.map_update.text()


def test_loaded_used_chips(window: MainWindow, feature: SessionsFeature) -> None:
    viewer = feature.open_session(SAMPLE_ID)
    assert viewer is not None
    session = viewer.session
    viewer.select_call(0)
    viewer.details.tabs.setCurrentIndex(TAB_LOADED)
    kinds = viewer.details.loaded.kinds()
    first = session.forwards[0]
    loaded = first.callback_ids("loaded_skills") + first.callback_ids("loaded_memories")
    used = set(first.callback_ids("used_skills") + first.callback_ids("used_memories"))
    assert set(kinds) == set(loaded) and used
    for entry_id in loaded:
        assert kinds[entry_id] == ("used" if entry_id in used else "loaded")
    # The discover call of the first turn, with what it found.
    search = session_json(session)["forwards"][0]["searches"][0]
    assert search["kind"] == "discover"
    text = viewer.details.loaded.searches.text()
    assert text.startswith("discover(") and search["searches"][0] in text
    assert all(r["id"] in text for r in search["results"])


def test_whitespace_toggle_and_copy(window: MainWindow, feature: SessionsFeature) -> None:
    viewer = feature.open_session(SAMPLE_ID)
    assert viewer is not None
    system = viewer.details.system
    flags = system.edit.document().defaultTextOption().flags()
    assert not flags & QTextOption.Flag.ShowTabsAndSpaces
    system.whitespace_button.click()
    for view in viewer.details.views:  # one toggle shows whitespace everywhere...
        assert view.edit.document().defaultTextOption().flags() & QTextOption.Flag.ShowTabsAndSpaces
    assert window.settings.show_whitespace()  # ...and is remembered
    other = feature.open_session(SAMPLE_ID)
    assert other is viewer  # already open: focused, not opened twice
    system.copy_button.click()
    assert QGuiApplication.clipboard().text() == system.text() != ""


def test_delete_is_undoable_and_the_empty_state_says_what_to_do(
    window: MainWindow, feature: SessionsFeature
) -> None:
    page = feature.page
    feature.open_session(SAMPLE_ID)
    page.show_list()
    page.table.selectAll()
    feature.delete_action.trigger()
    assert raw(window.controller.workspace).sessions.count() == 0
    assert page.list_stack.currentWidget() is page.empty
    assert page.empty.text() == EMPTY_TEXT and "import a .axsession.json" in EMPTY_TEXT
    assert feature.viewers == {}  # its tab closed with it
    window.undo_stack.undo()
    assert raw(window.controller.workspace).sessions.get(SAMPLE_ID) is not None
    assert page.list_stack.currentWidget() is page.table
    assert page.model.rowCount() == 2


def test_a_session_with_huge_strings_opens_with_bounded_labels(
    window: MainWindow, feature: SessionsFeature, tmp_path: Any, qtbot: Any
) -> None:
    """A stranger's session with a 5,000,000-character name and a 2,000,000-character
    warning froze the window for half a minute on opening: the title label measured and
    elided the whole name on every paint, the banner wrapped the whole warning. What Qt is
    given is bounded now; the full name stays the label's text."""
    from axmem_gui.ui.elided import SHOWN_CHARS
    from axmem_gui.ui.sessions.viewer import BANNER_WARNING_CHARS, BANNER_WARNINGS

    doc = stored_json(window.controller.workspace, SAMPLE_ID)
    doc["id"] = "huge-strings"
    doc["name"] = "N" * 5_000_000
    doc["warnings"] = ["W" * 2_000_000] + [f"warning {i}" for i in range(50)]
    path = tmp_path / "huge.axsession.json"
    sessions.write_session_file(reparse(doc), path)
    assert import_files(qtbot, feature, [path]) == ["huge-strings"]
    viewer = feature.open_session("huge-strings")
    assert isinstance(viewer, SessionViewer)
    assert viewer.title.full_text() == doc["name"]
    assert len(viewer.title.text()) <= SHOWN_CHARS + 1
    assert len(viewer.title.toolTip()) <= SHOWN_CHARS + 1
    banner = viewer.banner.text()
    assert len(banner) < (BANNER_WARNINGS + 2) * (BANNER_WARNING_CHARS + 100)
    assert "2,000,000 characters" in banner and "41 more" in banner
    # its 500-character word does not widen the window past a 1366-pixel screen
    assert viewer.minimumSizeHint().width() < 1366
    assert window.minimumSizeHint().width() <= 1366
