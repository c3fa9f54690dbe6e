"""Scenario commands (without widgets) and the scenario editor page."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QUndoStack
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from axmem_gui.core.ax.scenario import ScenarioTurn
from axmem_gui.core.ax.search import discover_ids
from axmem_gui.core.catalog import Memory
from axmem_gui.core.scenarios import ScenarioDocument, new_scenario_document
from axmem_gui.services.live_search import LiveSearch
from axmem_gui.services.scenarios import TurnLoads
from axmem_gui.services.workspace import OpenWorkspace, init_workspace, open_workspace
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.scenarios.commands import (
    create_command,
    delete_command,
    edit_command,
    rename_command,
)
from axmem_gui.ui.scenarios.models import TurnsModel, search_arg_from_lines, search_arg_text
from axmem_gui.ui.scenarios.page import NameDialog
from tests.helpers.store import raw, scenario_doc

from .conftest import views


class FakeController(QObject):
    """What a command needs: the workspace (its services announce what they wrote)."""

    changed = Signal(str)

    def __init__(self, ws: OpenWorkspace) -> None:
        super().__init__()
        self._ws = ws
        self.notified: list[str] = []
        ws.notices.subscribe(lambda change: self.notified.append(change.what))

    @property
    def workspace(self) -> OpenWorkspace:
        return self._ws


@pytest.fixture
def ctl(tmp_path: Path) -> FakeController:
    return FakeController(init_workspace(tmp_path / "c.axmem", sample=True))


def _document(ctl: FakeController, name: str) -> ScenarioDocument | None:
    found = ctl.workspace.scenarios.get(name)
    return None if found is None else found.document


def test_create_edit_merge_undo_redo(ctl: FakeController) -> None:
    ws = ctl.workspace
    stack = QUndoStack()
    errors: list[str] = []
    stack.push(create_command(ctl, new_scenario_document("Draft"), errors.append))
    assert raw(ws).scenarios.get("Draft") == new_scenario_document("Draft").to_json()
    base = _document(ctl, "Draft")
    assert base is not None and base.scenario is not None
    for text in ("d", "de", "dep"):
        before = _document(ctl, "Draft")
        assert before is not None and before.scenario is not None
        after = before.with_scenario(replace(before.scenario, task=text))
        stack.push(edit_command(ctl, before, after, "task", errors.append, merge_key="task"))
    assert stack.count() == 2  # three keystrokes, one command
    assert ws.scenarios.load("Draft").task == "dep"
    stack.undo()
    assert _document(ctl, "Draft") == base
    stack.redo()
    assert ws.scenarios.load("Draft").task == "dep"
    stack.undo()
    stack.undo()
    assert raw(ws).scenarios.get("Draft") is None
    assert errors == [] and ctl.notified.count("scenarios") >= 6


def test_rename_and_delete_are_undoable(ctl: FakeController) -> None:
    ws = ctl.workspace
    stack = QUndoStack()
    data = raw(ws).scenarios.get("Ship 2.4.0")
    document = _document(ctl, "Ship 2.4.0")
    assert data is not None and document is not None
    stack.push(rename_command(ctl, document, "Ship it", print))
    assert raw(ws).scenarios.get("Ship 2.4.0") is None
    renamed = raw(ws).scenarios.get("Ship it")
    assert renamed is not None and renamed["name"] == "Ship it"
    assert renamed["turns"] == data["turns"]
    stack.undo()
    assert _document(ctl, "Ship 2.4.0") == document
    assert raw(ws).scenarios.get("Ship it") is None
    stack.push(delete_command(ctl, document, print))
    assert "Ship 2.4.0" not in raw(ws).scenarios.list()
    stack.undo()
    assert _document(ctl, "Ship 2.4.0") == document


def test_an_unreadable_document_is_renamed_and_restored_as_it_was(ctl: FakeController) -> None:
    """A stored scenario the reader refuses is kept as it is: a rename and its undo, and a
    delete and its undo, write back exactly the JSON that was there."""
    ws = ctl.workspace
    broken = {"name": "Broken", "turns": "nope", "task": "kept"}
    raw(ws).scenarios.save("Broken", broken)
    document = _document(ctl, "Broken")
    assert document is not None and document.scenario is None
    assert "'turns' must be a list" in document.problem
    stack = QUndoStack()
    stack.push(rename_command(ctl, document, "Fixed later", print))
    assert raw(ws).scenarios.get("Fixed later") == {**broken, "name": "Fixed later"}
    stack.undo()
    assert raw(ws).scenarios.get("Broken") == broken
    stack.push(delete_command(ctl, document, print))
    stack.undo()
    assert raw(ws).scenarios.get("Broken") == broken


def test_a_scenario_changed_elsewhere_is_not_overwritten(ctl: FakeController) -> None:
    """The service compares what the command saw with what is stored: another program's
    change in between is reported and kept, and the command leaves the stack."""
    before = _document(ctl, "Ship 2.4.0")
    assert before is not None and before.scenario is not None
    elsewhere = {**before.to_json(), "task": "changed by the CLI"}
    raw(ctl.workspace).scenarios.save("Ship 2.4.0", elsewhere)
    errors: list[str] = []
    stack = QUndoStack()
    after = before.with_scenario(replace(before.scenario, task="mine"))
    stack.push(edit_command(ctl, before, after, "task", errors.append))
    assert stack.count() == 0
    assert errors == ["scenario 'Ship 2.4.0' was changed elsewhere; nothing was changed"]
    assert raw(ctl.workspace).scenarios.get("Ship 2.4.0") == elsewhere


def test_a_failing_write_is_reported_and_dropped(tmp_path: Path) -> None:
    path = tmp_path / "ro.axmem"
    init_workspace(path, sample=True).close()
    ctl = FakeController(open_workspace(path, read_only=True))
    stack = QUndoStack()
    errors: list[str] = []
    stack.push(create_command(ctl, new_scenario_document("X"), errors.append))
    assert stack.count() == 0
    assert errors and "read-only" in errors[0]


def test_turns_model(qtmodeltester: ModelTester) -> None:
    model = TurnsModel()
    model.set_turns(
        [ScenarioTurn(("a b", "c"), None), ScenarioTurn("x", ("m",))]
    )
    model.set_loads([TurnLoads(("s1",), None), TurnLoads((), ("m1",))])
    qtmodeltester.check(model)
    assert model.index(0, 1).data() == '"a b", "c"'
    assert model.index(0, 2).data() == "—"
    assert model.index(0, 1).data(Qt.ItemDataRole.EditRole) == "a b\nc"
    assert model.index(1, 3).data() == "(nothing)" and model.index(1, 4).data() == "m1"
    requests: list[tuple[int, str, object]] = []
    model.edit_requested.connect(lambda r, c, v: requests.append((r, c, v)))
    assert model.setData(model.index(1, 2), "m\n\nn\n")
    assert requests == [(1, "recall", ["m", "n"])]
    assert not model.setData(model.index(0, 1), "a b\nc")  # unchanged: nothing requested
    assert search_arg_from_lines("  \n") is None
    assert search_arg_text('say "hi"') == '"say \\"hi\\""'


def test_editing_the_task_is_one_undoable_step(rwindow: MainWindow, qtbot: QtBot) -> None:
    v = views(rwindow)
    page = v.scenarios
    rwindow.show_section("scenarios")
    page.select("Ship 2.4.0")
    ws = rwindow.controller.workspace
    before = scenario_doc(ws, "Ship 2.4.0")
    page.form.task_edit.setFocus()
    page.form.task_edit.moveCursor(page.form.task_edit.textCursor().MoveOperation.End)
    qtbot.keyClicks(page.form.task_edit, " Today")
    task = ws.scenarios.load("Ship 2.4.0").task
    assert task is not None and task.endswith(" Today")
    assert rwindow.undo_stack.count() == 1
    with qtbot.waitSignal(v.preview.updated, timeout=3000):
        pass  # the preview recomputes after the debounce
    rwindow.undo_stack.undo()
    assert raw(ws).scenarios.get("Ship 2.4.0") == before
    assert page.form.task_edit.toPlainText() == before["task"]


def test_pickers_ranking_runtime_and_turns(rwindow: MainWindow, qtbot: QtBot) -> None:
    v = views(rwindow)
    page = v.scenarios
    rwindow.show_section("scenarios")
    page.select("Leaked npm token")
    ws = rwindow.controller.workspace
    form = page.form
    form.presets.id_edit.setText("secrets-rotation")
    form.presets.add_button.click()
    doc = scenario_doc(ws, "Leaked npm token")
    skill = raw(ws).skills.get("secrets-rotation")
    assert skill is not None
    assert doc["presetSkills"][-1] == {
        "id": skill.id, "name": skill.name, "description": skill.description,
        "content": skill.content,
    }
    form.memories.id_edit.setText("secrets-last-rotation")
    form.memories.add_button.click()
    assert scenario_doc(ws, "Leaked npm token")["preloadedMemories"][-1]["id"] == (
        "secrets-last-rotation"
    )
    form.memories.id_edit.setText("no-such-memory")
    with qtbot.waitSignal(page.message) as blocker:
        form.memories.add_button.click()
    assert "no-such-memory" in blocker.args[0]

    form.ranking_combo.setCurrentIndex(form.ranking_combo.findData("off"))
    assert scenario_doc(ws, "Leaked npm token")["relevanceRanking"] is False
    form.ranking_combo.setCurrentIndex(form.ranking_combo.findData("custom"))
    form.ranking_spins["topK"].setValue(1)
    ranking = scenario_doc(ws, "Leaked npm token")["relevanceRanking"]
    assert ranking["topK"] == 1 and set(ranking) == {"topK", "minScore", "marginRatio", "minDocs"}
    form.runtime_combo.setCurrentIndex(form.runtime_combo.findData("Python"))
    assert scenario_doc(ws, "Leaked npm token")["runtime"] == "Python"

    form.add_turn_button.click()
    turns = scenario_doc(ws, "Leaked npm token")["turns"]
    assert turns[-1] == {"discover": None, "recall": None}
    index = form.turns_model.index(len(turns) - 1, 1)
    form.turns_model.setData(index, "canary deploy\nfeature flag")
    assert scenario_doc(ws, "Leaked npm token")["turns"][-1]["discover"] == [
        "canary deploy", "feature flag",
    ]
    loads = discover_ids(raw(ws).catalog().skills, ["canary deploy", "feature flag"])
    assert "canary-deploys" in loads and "feature-flags" in loads
    assert form.turns_model.index(len(turns) - 1, 3).data() == ", ".join(loads)
    # every edit above is one undo step; undoing them all restores the sample document
    sample = init_workspace(rwindow.controller.path.parent / "fresh.axmem", sample=True)
    while rwindow.undo_stack.canUndo():
        rwindow.undo_stack.undo()
    restored = ws.scenarios.get("Leaked npm token")
    original = sample.scenarios.get("Leaked npm token")
    assert restored is not None and original is not None
    assert restored.document == original.document
    sample.close()


def test_selecting_a_turn_previews_it(rwindow: MainWindow, qtbot: QtBot) -> None:
    v = views(rwindow)
    page = v.scenarios
    rwindow.show_section("scenarios")
    page.select("SEV1 on checkout")
    page.form.turns_view.selectRow(2)
    assert v.preview.scenario_name() == "SEV1 on checkout"
    assert v.preview.turn() == 2
    assert v.preview.preview is not None and v.preview.preview.turn == 2
    assert "ID: `status-page-updates`" in v.preview.section_text("loaded")
    assert rwindow.docks["previewDock"].isVisible()


def test_new_duplicate_rename_delete(
    rwindow: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    v = views(rwindow)
    page = v.scenarios
    rwindow.show_section("scenarios")
    ws = rwindow.controller.workspace
    page.list_view.setFocus()
    qtbot.keyClick(page.list_view, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert page.current_name() == "New scenario" and "New scenario" in raw(ws).scenarios.list()
    page.duplicate_current()
    assert page.current_name() == "New scenario copy"
    monkeypatch.setattr(NameDialog, "ask", classmethod(lambda cls, p, t, text: "  Renamed  "))
    page.rename_current()
    assert page.current_name() == "Renamed" and "New scenario copy" not in raw(ws).scenarios.list()
    monkeypatch.setattr(NameDialog, "ask", classmethod(lambda cls, p, t, text: "Ship 2.4.0"))
    with qtbot.waitSignal(page.message) as blocker:
        page.rename_current()
    assert "already exists" in blocker.args[0]
    page.list_view.setFocus()
    qtbot.keyClick(page.list_view, Qt.Key.Key_Delete)
    assert "Renamed" not in raw(ws).scenarios.list()
    rwindow.undo_stack.undo()
    assert "Renamed" in raw(ws).scenarios.list()


def test_empty_state_and_invalid_documents(rwindow: MainWindow, qtbot: QtBot) -> None:
    v = views(rwindow)
    page = v.scenarios
    rwindow.show_section("scenarios")
    ws = rwindow.controller.workspace
    raw(ws).scenarios.save("Broken", {"name": "Broken", "turns": "nope"})
    rwindow.controller.notify_changed("scenarios")
    page.select("Broken")
    assert page.form.errors_label.isVisible()
    assert "'turns' must be a list" in page.form.errors_label.text()
    for name in raw(ws).scenarios.list():
        raw(ws).scenarios.delete(name)
    rwindow.controller.notify_changed("scenarios")
    assert page.right.currentWidget() is page.empty
    assert "Ctrl+N" in page.empty.text()


def test_loosely_typed_ranking_options_load_as_ax_reads_them(
    rwindow: MainWindow, qtbot: QtBot
) -> None:
    """Ax accepts `relevanceRanking: {"topK": "1"}` (Number("1") is 1): so does the form."""
    v = views(rwindow)
    ws = rwindow.controller.workspace
    doc = scenario_doc(ws, "Leaked npm token")
    doc["relevanceRanking"] = {"topK": "1", "minScore": "abc", "marginRatio": None}
    raw(ws).scenarios.save("Leaked npm token", doc)
    rwindow.controller.notify_changed("scenarios")
    rwindow.show_section("scenarios")
    v.scenarios.select("Leaked npm token")
    spins = v.scenarios.form.ranking_spins
    assert spins["topK"].value() == 1
    assert spins["minScore"].value() == 0.08  # NaN cannot be shown: the default is
    assert spins["marginRatio"].value() == 0.15


def test_id_completers_are_refilled_only_when_their_catalog_changed(
    rwindow: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every id of the catalog goes into the pickers' completers (100,000 memory ids: tens
    of milliseconds on the GUI thread): once per catalog change, not per scenario shown."""
    v = views(rwindow)
    page = v.scenarios
    rwindow.show_section("scenarios")
    asked: list[str] = []
    ids = LiveSearch.ids

    def counted(live: LiveSearch, domain: str) -> list[str]:
        asked.append(domain)
        return ids(live, domain)

    monkeypatch.setattr(LiveSearch, "ids", counted)
    page.select("Leaked npm token")
    page.select("Ship 2.4.0")
    page.select("Leaked npm token")
    assert asked.count("memories") <= 1 and asked.count("skills") <= 1
    memories = page.form.memories.completion.stringList()
    assert "secrets-last-rotation" in memories
    ws = rwindow.controller.workspace
    raw(ws).memories.upsert(Memory("pear-note", "pears"))
    rwindow.controller.notify_changed("memories")
    qtbot.waitUntil(lambda: v.state.live.entry("memories", "pear-note") is not None,
                    timeout=10000)
    asked.clear()
    page.select("Ship 2.4.0")
    assert asked == ["memories"]  # the skills did not change
    assert "pear-note" in page.form.memories.completion.stringList()
