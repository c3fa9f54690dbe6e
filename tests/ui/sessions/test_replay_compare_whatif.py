"""Replay, rerun, compare and what-if from the session viewer, each through the task
runner (a real rerun against the fake server on 127.0.0.1)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.services import sessions
from axmem_gui.store import Workspace
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.sessions.compare_view import CompareView
from axmem_gui.ui.sessions.controller import SessionsFeature
from axmem_gui.ui.sessions.dialogs import ChooseSessionDialog
from axmem_gui.ui.sessions.jobs import RerunOrder
from axmem_gui.ui.sessions.run_dialog import RerunDialog
from axmem_gui.ui.sessions.textdiff import line_marks
from tests.fakes.fake_openai_server import FakeOpenAIServer, settings_for
from tests.helpers.present import present
from tests.helpers.session_docs import reparse, stored_json
from tests.helpers.store import raw
from tests.ui.conftest import calls_on_gui_thread
from tests.ui.sessions.conftest import SAMPLE_ID, wait_idle


def test_replay_of_the_sample_is_identical(feature: SessionsFeature, qtbot: Any) -> None:
    viewer = feature.open_session(SAMPLE_ID)
    assert viewer is not None and viewer.replay_action.isEnabled()
    viewer.replay_action.trigger()
    assert feature.jobs and not viewer.replay_action.isEnabled()  # busy while it runs
    wait_idle(qtbot, feature)
    assert viewer.banner.text().startswith("Replay identical: 16 of 16 model calls")
    assert viewer.banner.property("level") == "ok"
    assert viewer.details.tabs.currentWidget() is viewer.replay_view
    assert viewer.replay_view.text().startswith("identical:")
    assert viewer.replay_action.isEnabled()


def test_replay_shows_the_first_divergence_as_a_diff(
    window: MainWindow, feature: SessionsFeature, qtbot: Any
) -> None:
    ws = window.controller.workspace
    doc = stored_json(ws, SAMPLE_ID)
    tampered = copy.deepcopy(doc)
    tampered["id"] = "tampered"
    # The recorded agent config says something else than what the prompts were built from.
    tampered["agent"]["instruction"] += " A sentence the recording never saw."
    sessions.save_session(raw(ws), reparse(tampered))
    viewer = feature.open_session("tampered")
    assert viewer is not None
    viewer.replay_action.trigger()
    wait_idle(qtbot, feature)
    assert viewer.banner.text().startswith("Replay differs: call #")
    assert viewer.banner.property("level") == "error"
    text = viewer.replay_view.text()
    assert "--- recorded call" in text and "+++ replayed call" in text
    assert "A sentence the recording never saw." in text
    plus = [line for line in text.splitlines() if line.startswith("+") and "never saw" in line]
    assert plus and viewer.replay_view.edit.extraSelections()  # the diff lines are tinted


def test_replay_refused_for_another_axllm_names_the_versions(
    window: MainWindow, feature: SessionsFeature
) -> None:
    ws = window.controller.workspace
    doc = stored_json(ws, SAMPLE_ID)
    doc["id"], doc["versions"]["axllm"] = "old", "0.0.1"
    sessions.save_session(raw(ws), reparse(doc))
    viewer = feature.open_session("old")
    assert viewer is not None
    assert not viewer.replay_action.isEnabled()
    assert "axllm 0.0.1" in viewer.replay_action.toolTip()


@pytest.fixture
def rerun_without_a_skill(
    window: MainWindow,
    feature: SessionsFeature,
    server: FakeOpenAIServer,
    qtbot: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> dict[str, Any]:
    """Delete a loaded skill, then rerun the sample on today's catalog (via Rerun…)."""
    ws = window.controller.workspace
    assert raw(ws).skills.delete("feature-flags")
    viewer = feature.open_session(SAMPLE_ID)
    assert viewer is not None

    def ask(cls: type, parent: Any, doc: Any, runner: Any, current: Any) -> RerunOrder:
        return RerunOrder(doc, settings_for(server, "scripted-b"), current, "after edit")

    monkeypatch.setattr(RerunDialog, "ask", classmethod(ask))
    before = raw(ws).sessions.count()
    viewer.rerun_action.trigger()
    wait_idle(qtbot, feature)
    assert raw(ws).sessions.count() == before + 1
    [new] = [s for s in raw(ws).sessions.list() if s.name == "after edit"]
    doc = stored_json(ws, new.id)
    assert doc["origin"] == {"kind": "rerun", "source_session": SAMPLE_ID, "catalog": "given"}
    assert "feature-flags" not in {s["id"] for s in doc["catalog"]["skills"]}
    assert present(feature.current_viewer()).session_id == new.id
    return doc


def test_compare_shows_the_difference(
    feature: SessionsFeature,
    rerun_without_a_skill: dict[str, Any],
    qtbot: Any,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    new_id = rerun_without_a_skill["id"]
    viewer = feature.open_session(SAMPLE_ID)
    assert viewer is not None
    monkeypatch.setattr(ChooseSessionDialog, "ask", classmethod(lambda cls, *a: new_id))
    viewer.compare_action.trigger()
    wait_idle(qtbot, feature)
    view = feature.page.tabs.currentWidget()
    assert isinstance(view, CompareView)
    first = view.comparison.first_prompt_difference
    assert first is not None
    assert "aligned calls differ" in view.banner.text()
    assert first.key.label() in view.banner.text()
    # The first differing pair is selected: both prompts shown, differing lines tinted.
    row = view.comparison.calls.index(first)
    assert view.table.currentIndex().row() == row
    assert view.model.index(row, 3).data() == "differs"
    a_text, b_text = view.prompts.a.text(), view.prompts.b.text()
    assert a_text and b_text and a_text != b_text
    marks = line_marks(a_text, b_text)
    assert not marks.same
    assert len(view.prompts.a.edit.extraSelections()) == len(marks.left)
    assert len(view.prompts.b.edit.extraSelections()) == len(marks.right)
    # Loaded skills: feature-flags only in A (the rerun's catalog no longer has it).
    loaded = view.forwards.rows[(0, "loaded_skills")].kinds()
    assert loaded["feature-flags"] == "removed"
    assert "tokens" in view.totals.text()
    # What each agent was given: the deleted skill named at once (issue #29).
    assert "were given a different catalog (see Agent · catalog)" in view.banner.text()
    view.tabs.setCurrentWidget(view.given)
    assert view.tabs.tabText(view.tabs.currentIndex()) == "Agent · catalog"
    given = view.given.text()
    assert given.startswith("agent: the same config\n\ncatalog: 0 added, 1 removed, 0 changed")
    assert "  - skill feature-flags" in given
    view.window().resize(1400, 860)
    view.window().grab().save(str(tmp_path / "compare-given.png"))


def test_compare_two_selected_sessions_from_the_list(
    window: MainWindow, feature: SessionsFeature, qtbot: Any
) -> None:
    ws = window.controller.workspace
    doc = stored_json(ws, SAMPLE_ID)
    other = copy.deepcopy(doc)
    other["id"], other["name"] = "copy", "copy"
    other["exchanges"][5]["response"]["results"][0]["content"] = "Answer: something else"
    sessions.save_session(raw(ws), reparse(other))
    window.controller.notify_changed("sessions")
    page = feature.page
    page.show_list()
    page.select_ids([SAMPLE_ID, "copy"])
    assert feature.compare_action.isEnabled()
    feature.compare_action.trigger()
    wait_idle(qtbot, feature)
    view = page.tabs.currentWidget()
    assert isinstance(view, CompareView)
    assert view.comparison.identical_prompts  # same prompts, one reply differs
    outputs = [view.model.index(r, 4).data() for r in range(view.model.rowCount())]
    assert outputs.count("differs") == 1
    view.show_pair(outputs.index("differs"))
    assert "something else" in view.outputs.a.text() + view.outputs.b.text()


def test_whatif_after_deleting_a_skill_shows_the_change(
    window: MainWindow, feature: SessionsFeature, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The catalog is read by the job: 100,000 memories take most of a second to read.
    reads_on_gui = calls_on_gui_thread(monkeypatch, Workspace, "catalog")
    viewer = feature.open_session(SAMPLE_ID)
    assert viewer is not None
    viewer.whatif_action.trigger()
    wait_idle(qtbot, feature)
    assert "same entries" in viewer.banner.text()  # nothing edited yet
    assert reads_on_gui and True not in reads_on_gui
    assert not viewer.whatif_panel.model.call(0).added
    raw(window.controller.workspace).skills.delete("feature-flags")
    window.controller.notify_changed("skills")
    viewer.whatif_action.trigger()
    wait_idle(qtbot, feature)
    assert "would differ" in viewer.banner.text()
    assert viewer.details.tabs.currentWidget() is viewer.whatif_panel
    changed = [
        viewer.whatif_panel.model.call(r)
        for r in range(viewer.whatif_panel.model.rowCount())
        if not viewer.whatif_panel.model.call(r).same
    ]
    assert changed and all(c.kind == "discover" for c in changed)
    assert "feature-flags" in changed[0].removed
    row = [
        viewer.whatif_panel.model.call(r) for r in range(viewer.whatif_panel.model.rowCount())
    ].index(changed[0])
    assert "feature-flags" in viewer.whatif_panel.model.index(row, 5).data()
    assert "would no longer load: ['feature-flags']" in viewer.whatif_panel.text.text()


def test_rerun_of_the_sample_works_at_once_with_the_scripted_model(
    window: MainWindow, feature: SessionsFeature, qtbot: Any, monkeypatch: pytest.MonkeyPatch,
    errors: list[tuple[str, str]],
) -> None:  # fmt: skip
    """A new user's first Rerun… of the sample, with what the dialog offers: no server, no
    key, no failed session left behind."""
    ws = window.controller.workspace
    viewer = feature.open_session(SAMPLE_ID)
    assert viewer is not None
    offered: list[RerunDialog] = []

    def ask(cls: type, parent: Any, doc: Any, runner: Any, current: Any) -> RerunOrder:
        dialog = RerunDialog(doc, runner, current, parent)
        qtbot.addWidget(dialog)
        offered.append(dialog)
        return dialog.build_order()

    monkeypatch.setattr(RerunDialog, "ask", classmethod(ask))
    before = {s.id for s in raw(ws).sessions.list()}
    viewer.rerun_action.trigger()
    wait_idle(qtbot, feature)
    [dialog] = offered
    assert dialog.scripted and dialog.provider.provider_name() == "scripted"
    assert errors == []
    [new] = [s for s in raw(ws).sessions.list() if s.id not in before]
    doc = stored_json(ws, new.id)
    assert doc["status"] == "complete" and len(doc["forwards"]) == 2
    assert sessions.replay(reparse(doc)).identical


def test_compare_picker_names_session_a_by_its_name(
    window: MainWindow, feature: SessionsFeature, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    monkeypatch.setattr(
        ChooseSessionDialog, "ask", classmethod(lambda cls, p, others, prompt: asked.append(prompt))
    )
    viewer = feature.open_session(SAMPLE_ID)
    assert viewer is not None
    viewer.compare_action.trigger()
    name = stored_json(window.controller.workspace, SAMPLE_ID)["name"]
    assert asked == [f"Compare “{name}” (A) with which session (B)?"]
