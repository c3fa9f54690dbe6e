"""Agent edits in the GUI are commands on the main undo stack, guarded by revisions."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from axmem_gui.core.session.agent_config import agent_config_from_json
from axmem_gui.services.agents import AgentService
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.sessions.agent_editor import AgentConfigDialog
from axmem_gui.ui.sessions.controller import SessionsFeature
from tests.helpers.store import agent_doc, raw
from tests.ui.sessions.conftest import new_run_dialog

CONFIG = agent_config_from_json(
    {
        "name": "undo-me",
        "signature": "request:string -> answer:string",
        "instruction": "Answer briefly.",
        "catalog": {"skills": "all", "memories": "all"},
        "contextMap": None,
    },
    "test agent",
)


def test_new_and_edited_agents_undo_and_redo(
    window: MainWindow,
    feature: SessionsFeature,
    monkeypatch: pytest.MonkeyPatch,
    qtbot: Any,
    errors: list[tuple[str, str]],
) -> None:
    ws = window.controller.workspace
    stack = window.undo_stack
    start = stack.count()
    # Through the Run dialog's New… button, as a user does it.
    monkeypatch.setattr(AgentConfigDialog, "ask", classmethod(lambda *a, **k: CONFIG))
    dialog = new_run_dialog(feature)
    qtbot.addWidget(dialog)
    dialog._edit_agent(new=True)
    assert raw(ws).agents.get("undo-me") is not None and stack.count() == start + 1
    assert stack.undoText() == "New agent 'undo-me'"

    shown = AgentService(raw(ws)).get("undo-me")
    assert shown.config is not None
    edited = dataclasses.replace(shown.config, instruction="Answer in detail.")
    feature.save_agent(shown, edited)
    assert agent_doc(ws, "undo-me")["instruction"] == "Answer in detail."

    stack.undo()
    assert not errors
    assert agent_doc(ws, "undo-me")["instruction"] == "Answer briefly."
    stack.undo()
    assert raw(ws).agents.get("undo-me") is None
    stack.redo()
    stack.redo()
    assert agent_doc(ws, "undo-me")["instruction"] == "Answer in detail."


def test_undo_never_overwrites_a_change_made_elsewhere(
    window: MainWindow, feature: SessionsFeature, errors: list[tuple[str, str]]
) -> None:
    ws = window.controller.workspace
    feature.save_agent(None, CONFIG)
    # Changed meanwhile, e.g. with `axmem agents edit` in a terminal.
    AgentService(raw(ws)).edit("undo-me", dataclasses.replace(CONFIG, instruction="CLI"), None)
    window.undo_stack.undo()
    assert agent_doc(ws, "undo-me")["instruction"] == "CLI"  # kept
    assert errors and "changed outside this window" in errors[-1][1]


def test_a_taken_name_is_refused_without_a_command(
    window: MainWindow, feature: SessionsFeature
) -> None:
    feature.save_agent(None, CONFIG)
    count = window.undo_stack.count()
    with pytest.raises(Exception, match="already exists"):
        feature.save_agent(None, CONFIG)
    assert window.undo_stack.count() == count
