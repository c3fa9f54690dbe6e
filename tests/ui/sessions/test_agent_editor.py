"""The agent config editor: validation names the field; saving goes through the agents
service (an undoable command) and the run dialog picks the new agent's inputs up."""

from __future__ import annotations

from typing import Any

import pytest

from axmem_gui.core.session.agent_config import CatalogFilter, agent_config_from_json
from axmem_gui.services.agents import AgentService
from axmem_gui.store import Workspace
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.sessions.agent_editor import AgentConfigDialog
from axmem_gui.ui.sessions.controller import SessionsFeature
from tests.helpers.store import raw
from tests.ui.conftest import calls_on_gui_thread
from tests.ui.sessions.conftest import new_run_dialog


def test_editor_round_trips_and_validates(window: MainWindow, qtbot: Any) -> None:
    agents = AgentService(raw(window.controller.workspace))
    stored = agents.get("ops-assistant")
    dialog = AgentConfigDialog(stored.config, agents.names())
    qtbot.addWidget(dialog)
    assert dialog.validate() == stored.config
    dialog.signature.setText("request:string ->")
    assert dialog.validate() is None and "signature" in dialog.error.text()
    dialog.signature.setText("context:string -> answer:string")
    assert dialog.validate() is None and "'context' is not allowed" in dialog.error.text()
    dialog.signature.setText("request:string -> answer:string")
    dialog.skills.set_value(CatalogFilter("tags", ("release",)))
    dialog.map_group.setChecked(True)
    dialog.infinite.setChecked(False)
    dialog.evolve_steps.setValue(3)
    dialog.max_steps.setValue(4)
    result = dialog.validate()
    assert result is not None
    value = result.to_json()
    assert value["catalog"] == {"skills": {"tags": ["release"]}, "memories": "all"}
    assert value["contextMap"] == {"maxChars": 1600, "infiniteEvolve": False, "evolveSteps": 3}
    assert value["maxActorSteps"] == 4


def test_new_agent_from_the_run_dialog(
    window: MainWindow, feature: SessionsFeature, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    new = {
        "name": "triage",
        "signature": "document:string, query:string -> answer:string",
        "instruction": "Answer questions about incident notes.",
        "contextFields": ["document"],
        "catalog": {"skills": {"tags": ["incident"]}, "memories": "none"},
        "contextMap": None,
    }
    monkeypatch.setattr(
        AgentConfigDialog,
        "ask",
        classmethod(lambda cls, *a, **k: agent_config_from_json(new, "test")),
    )
    # The catalog is read and counted on the task runner (100,000 memories: most of a
    # second to read), never on the GUI thread.
    read = Workspace.catalog  # (reads by the test itself are not counted)
    reads_on_gui = calls_on_gui_thread(monkeypatch, Workspace, "catalog")
    changed: list[str] = []
    window.controller.changed.connect(changed.append)
    dialog = new_run_dialog(feature)
    qtbot.addWidget(dialog)
    dialog.agents_changed.connect(lambda: window.controller.notify_changed("agents"))
    dialog.new_agent.click()
    assert raw(window.controller.workspace).agents.get("triage") == (
        agent_config_from_json(new, "test").to_json()
    )
    assert "agents" in changed
    assert dialog.agent.currentText() == "triage"
    assert list(dialog.input_edits) == ["document", "query"]
    assert "no context map" in dialog.agent_summary.text()
    catalog = read(raw(window.controller.workspace))
    incident = sum("incident" in s.tags for s in catalog.skills)
    assert incident
    qtbot.waitUntil(
        lambda: f"{incident} skills, 0 memories" in dialog.agent_summary.text(), timeout=10000
    )
    assert reads_on_gui and True not in reads_on_gui
    # The name clash check keeps two agents from sharing a name.
    clash = AgentConfigDialog(None, ["triage"])
    qtbot.addWidget(clash)
    clash.name.setText("triage")
    assert clash.validate() is None and "already exists" in clash.error.text()


def test_agent_configs_are_reachable_from_the_run_menu(
    window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from axmem_gui.ui.sessions.agents_dialog import AgentConfigsDialog

    ws = window.controller.workspace
    [item] = [a for a in window.run_menu.actions() if a.text() == "Agent Configs…"]
    shown: list[AgentConfigsDialog] = []

    def exec_(self: AgentConfigsDialog) -> int:
        shown.append(self)
        assert self.current() == "ops-assistant"

        # Edit: the real editor dialog, validated, renaming the agent.
        def ask(cls: type, /, parent: Any, value: Any, taken: list[str], **_: Any) -> Any:
            editor = AgentConfigDialog(value, taken)
            qtbot.addWidget(editor)
            editor.name.setText("ops-renamed")
            return editor.validate()

        monkeypatch.setattr(AgentConfigDialog, "ask", classmethod(ask))
        self.edit()
        assert raw(ws).agents.list() == ["ops-renamed"] and self.current() == "ops-renamed"
        self.delete()
        assert raw(ws).agents.list() == []
        return 0

    monkeypatch.setattr(AgentConfigsDialog, "exec", exec_)
    item.trigger()
    assert len(shown) == 1 and shown[0].changed
    # Delete is an edit like the others: Ctrl+Z brings the config back, Ctrl+Shift+Z again.
    assert window.undo_stack.undoText() == "Delete agent 'ops-renamed'"
    window.undo_stack.undo()
    assert raw(ws).agents.list() == ["ops-renamed"]
    window.undo_stack.redo()
    assert raw(ws).agents.list() == []


def test_the_signature_is_checked_against_both_runtimes(window: MainWindow, qtbot: Any) -> None:
    """What @ax-llm/ax refuses shows under the signature (the studio still runs it); what
    axllm refuses keeps the dialog open."""
    import os

    agents = window.controller.workspace.agents
    dialog = AgentConfigDialog(agents.get("ops-assistant").config, agents.names())
    qtbot.addWidget(dialog)
    dialog.signature.setText("request:string -> answer:string")
    note = dialog.signature_note
    assert not note.isHidden()
    assert note.text().startswith(
        '@ax-llm/ax 24.0.21 refuses this signature: Invalid Signature: Field name "request" '
        "is too generic"
    )
    assert dialog.validate() is not None  # a TypeScript refusal does not block saving
    if os.environ.get("AXMEM_SCREENSHOTS"):
        dialog.show()
        dialog.grab().save(os.path.join(os.environ["AXMEM_SCREENSHOTS"], "agent-editor.png"))
    dialog.signature.setText("userRequest:string -> answer:string")
    assert note.isHidden() and note.text() == ""
    dialog.signature.setText("userRequest:string -> answer:string, answer:string")
    assert "axllm 25.4.6 refuses this signature" in note.text()
    assert dialog.validate() is None
    assert "Signature: axllm 25.4.6 refuses" in dialog.error.text()
