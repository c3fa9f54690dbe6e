"""The prompt preview dock shows exactly the engine's strings and follows edits."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QTextOption
from pytestqt.qtbot import QtBot

from axmem_gui.core.ax.profile import load_profile
from axmem_gui.core.ax.render import StageConfig, render_skills_section, user_turn_field
from axmem_gui.core.ax.simulate import Simulation
from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.services.scenarios import simulate_scenario
from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.commands import EditSession
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.preview.section_view import lists_may_interrupt, rendered_source
from axmem_gui.ui.tasks import Job
from tests.helpers.store import raw
from tests.ui.conftest import WindowFactory, calls_on_gui_thread

from .conftest import views

PROFILE = load_profile()


def _engine(window: MainWindow, name: str) -> Simulation:
    ws = window.controller.workspace
    return simulate_scenario(raw(ws).catalog(), ws.scenarios.load(name), PROFILE)


def test_every_section_equals_the_engine_output(rwindow: MainWindow, qtbot: QtBot) -> None:
    preview = views(rwindow).preview
    for name in ("Ship 2.4.0", "SEV1 on checkout"):
        sim = _engine(rwindow, name)
        for turn, view in enumerate(sim.turns):
            preview.show_scenario(name, turn)
            for stage in ("executor", "distiller"):
                preview.set_stage(stage)
                preview.recompute_now()
                section = sim.executor_section if stage == "executor" else sim.distiller_section
                assert section is not None
                assert preview.section_text("skills") == section.text
                assert preview.section_text("loaded") == (
                    user_turn_field("Loaded Skills", view.loaded_skills) or ""
                )
                assert preview.section_text("memories") == (
                    user_turn_field("Memories", view.memories) or ""
                )
                assert preview.section_text("hints") == (
                    user_turn_field("Relevance Hints", view.relevance_hints) or ""
                )
    total = preview.preview
    assert total is not None
    assert f"Total {total.chars:,} chars" in preview.total_label.text().replace("\u00a0", " ")


def test_runtime_and_catalog_only_preview(rwindow: MainWindow) -> None:
    preview = views(rwindow).preview
    preview.show_scenario(None)
    preview.set_runtime("Python")
    preview.recompute_now()
    catalog = raw(rwindow.controller.workspace).catalog()
    config = StageConfig(runtime_language="Python", memories_mode=True, relevance_hints=True)
    section = render_skills_section(catalog.skills, "executor", PROFILE, config)
    assert section is not None
    assert preview.section_text("skills") == section.text
    preview.set_runtime("JavaScript")
    preview.recompute_now()
    assert preview.section_text("skills") != section.text  # the runtime changes the text
    assert preview.section_text("loaded") == ""
    assert preview.views["loaded"].stats.text() == "not shown to the model"
    assert "omitted" in preview.views["loaded"].note.text()


def test_preview_follows_a_catalog_edit_debounced(rwindow: MainWindow, qtbot: QtBot) -> None:
    v = views(rwindow)
    v.preview.show_scenario("Ship 2.4.0", 0)
    ws = rwindow.controller.workspace
    skill = raw(ws).skills.get("changelog-writing")
    assert skill is not None
    renamed = dataclasses.replace(skill, name="Release notes craft")
    session: EditSession = rwindow.feature(CATALOG).session
    with qtbot.waitSignal(v.preview.updated, timeout=3000):
        raw(ws).skills.upsert(renamed)
        session.entries_changed("skills", ["changelog-writing"], False)
        assert v.state.pending  # debounced: nothing recomputed yet
    assert "`changelog-writing` — Release notes craft" in v.preview.section_text("skills")
    executor = _engine(rwindow, "Ship 2.4.0").executor_section
    assert executor is not None and v.preview.section_text("skills") == executor.text
    # a change nobody announced (another program, an import) is diffed in as well
    raw(ws).skills.delete("changelog-writing")
    with qtbot.waitSignal(v.preview.updated, timeout=3000):
        rwindow.controller.notify_changed("skills")
    assert "changelog-writing" not in v.preview.section_text("skills")


def test_scenario_edits_are_previewed(rwindow: MainWindow, qtbot: QtBot) -> None:
    v = views(rwindow)
    v.preview.show_scenario("Leaked npm token", 1)
    ws = rwindow.controller.workspace
    doc = raw(ws).scenarios.get("Leaked npm token")
    assert doc is not None
    doc["turns"][0]["discover"] = ["changelog"]
    with qtbot.waitSignal(v.preview.updated, timeout=3000):
        raw(ws).scenarios.save("Leaked npm token", doc)
        rwindow.controller.notify_changed("scenarios")
    assert v.preview.turn() == 1
    assert "ID: `changelog-writing`" in v.preview.section_text("loaded")


def test_whitespace_toggle_copy_and_rendered_view(rwindow: MainWindow, qtbot: QtBot) -> None:
    preview = views(rwindow).preview
    preview.show_scenario("Ship 2.4.0", 1)
    raw = preview.views["skills"].raw
    preview.whitespace_button.click()
    assert raw.document().defaultTextOption().flags() & QTextOption.Flag.ShowTabsAndSpaces
    preview.whitespace_button.click()
    assert not raw.document().defaultTextOption().flags() & QTextOption.Flag.ShowTabsAndSpaces

    preview.show_section("loaded")
    QGuiApplication.clipboard().clear()
    preview.copy_button.click()
    assert QGuiApplication.clipboard().text() == preview.section_text("loaded")
    # Ctrl+C in the text without a selection copies the whole section
    loaded = preview.views["loaded"].raw
    loaded.setFocus()
    QGuiApplication.clipboard().clear()
    qtbot.keyClick(loaded, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == preview.section_text("loaded")

    preview.rendered_button.click()
    view = preview.views["loaded"]
    assert view.showing_rendered
    assert "Changelog writing" in view.rendered.toPlainText()
    assert "```" not in view.rendered.toPlainText()  # markdown, not source
    preview.raw_button.click()
    assert not view.showing_rendered


def test_rendered_source_is_capped_and_lets_lists_interrupt() -> None:
    assert lists_may_interrupt("Skills:\n- a\n- b\nMemories:\n- c") == (
        "Skills:\n\n- a\n- b\nMemories:\n\n- c"
    )
    assert lists_may_interrupt("```\nx\n- y\n```") == "```\nx\n- y\n```"
    text = "\n".join(f"- line {i}" for i in range(10_000))
    source, cut = rendered_source(text, limit=1000)
    assert cut and len(source) <= 1000 and source.endswith(tuple("0123456789"))
    assert rendered_source("short", 1000) == ("short", False)


def test_preview_with_an_empty_catalog(rwindow: MainWindow, qtbot: QtBot) -> None:
    v = views(rwindow)
    ws = rwindow.controller.workspace
    with raw(ws).transaction():
        for skill in raw(ws).skills.all():
            raw(ws).skills.delete(skill.id)
    # Changes without a list of ids: the catalog is re-read on the task runner.
    rwindow.controller.notify_changed("*")
    qtbot.waitUntil(lambda: v.preview.section_text("skills") == "", timeout=10000)
    assert "no skills catalog" in v.preview.views["skills"].note.text()
    raw(ws).skills.upsert(Skill("only", "Only one", "", "text"))
    rwindow.controller.notify_changed("skills")
    qtbot.waitUntil(
        lambda: "- `only` — Only one" in v.preview.section_text("skills"), timeout=10000
    )


def test_raw_preview_wraps_and_the_toggle_unwraps(rwindow: MainWindow) -> None:
    from PySide6.QtWidgets import QPlainTextEdit

    preview = views(rwindow).preview
    mode = QPlainTextEdit.LineWrapMode
    assert preview.wrap_button.isChecked()
    assert all(v.raw.lineWrapMode() == mode.WidgetWidth for v in preview.views.values())
    preview.wrap_button.click()
    assert all(v.raw.lineWrapMode() == mode.NoWrap for v in preview.views.values())


def test_bench_headers_are_never_cut(rwindow: MainWindow) -> None:
    from PySide6.QtCore import Qt

    bench = views(rwindow).bench
    for table in (bench.ax_table, bench.bm25_table):
        model, metrics = table.model(), table.fontMetrics()
        for column in range(model.columnCount() - 1):  # the last one stretches
            title = str(model.headerData(column, Qt.Orientation.Horizontal))
            assert table.columnWidth(column) >= metrics.horizontalAdvance(title), title
def test_half_an_emoji_cut_by_ax_shows_as_replacement_character(
    rwindow: MainWindow, qtbot: QtBot
) -> None:
    """Ax's snippet ends in the emoji's high surrogate; Qt would drop it silently, the
    preview and its copy show U+FFFD (the text rule, docs/ax-text.md)."""
    v = views(rwindow)
    ws = rwindow.controller.workspace
    raw(ws).memories.upsert(Memory("pear-note", "x" * 79 + "\U0001f350 pear"))
    raw(ws).scenarios.save("Pear", {"task": "pear", "turns": []})
    rwindow.controller.notify_changed("*")  # re-read on the task runner
    qtbot.waitUntil(
        lambda: v.state.live.entry("memories", "pear-note") is not None, timeout=10000
    )
    v.preview.show_scenario("Pear", 0)
    v.preview.recompute_now()
    hints = v.preview.section_text("hints")
    assert "- `pear-note` — " + "x" * 79 + "\ufffd" in hints
    v.preview.show_section("hints")
    QGuiApplication.clipboard().clear()
    v.preview.copy_button.click()
    assert QGuiApplication.clipboard().text() == hints


def test_an_empty_task_is_axs_required_input_error(rwindow: MainWindow, qtbot: QtBot) -> None:
    v = views(rwindow)
    ws = rwindow.controller.workspace
    raw(ws).scenarios.save("Empty task", {"task": "", "turns": [{"discover": ["release"]}]})
    with qtbot.waitSignal(v.preview.updated, timeout=3000):
        rwindow.controller.notify_changed("scenarios")
    v.preview.show_scenario("Empty task", 0)
    v.preview.recompute_now()
    assert v.preview.section_text("skills") == ""
    note = v.preview.views["skills"].note.text()
    assert note == "Value for input field 'query' is required."
    assert v.preview.error_label.text() == (
        "Ax refuses this run: Value for input field 'query' is required."
    )


def test_a_big_skills_index_is_rendered_once_off_the_gui_thread(
    rwindow: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Above `RENDER_HERE_MAX_SKILLS` the shown stage's index is rendered on a worker,
    once per change (it was rendered twice, executor and distiller, on the GUI thread),
    and the preview shows exactly the engine's text when it lands."""
    from axmem_gui.core.ax import simulate as simulate_module
    from axmem_gui.ui.preview import rendering

    on_gui_thread = calls_on_gui_thread(monkeypatch, simulate_module, "render_skills_section")
    monkeypatch.setattr(rendering, "RENDER_HERE_MAX_SKILLS", 0)  # the sample is "big"
    v = views(rwindow)
    preview = v.preview
    preview.show_scenario("Ship 2.4.0", 0)
    on_gui_thread.clear()  # shown before (rendered here, below the limit then)
    preview.set_runtime("Python")  # another text: rendered again
    preview.recompute_now()
    assert preview.pending  # rendering on the worker
    qtbot.waitUntil(lambda: not preview.pending, timeout=10000)
    assert on_gui_thread == [False]
    ws = rwindow.controller.workspace
    scenario = dataclasses.replace(ws.scenarios.load("Ship 2.4.0"), runtime="Python")
    engine = simulate_scenario(raw(ws).catalog(), scenario, PROFILE)  # renders here: not counted
    on_gui_thread.clear()
    executor, distiller = engine.executor_section, engine.distiller_section
    assert executor is not None and distiller is not None
    assert preview.section_text("skills") == executor.text

    preview.set_stage("distiller")
    qtbot.waitUntil(lambda: not preview.pending and preview.stage() == "distiller", timeout=10000)
    qtbot.waitUntil(
        lambda: preview.section_text("skills") == distiller.text, timeout=10000
    )
    assert on_gui_thread == [False]

    # An edit while a render is under way: the preview ends with the edit in.
    skill = raw(ws).skills.get("changelog-writing")
    assert skill is not None
    raw(ws).skills.upsert(dataclasses.replace(skill, name="Release notes craft"))
    rwindow.controller.notify_changed("skills")
    v.state.refresh_now()
    raw(ws).skills.upsert(dataclasses.replace(skill, name="Release notes zebrafinch"))
    rwindow.controller.notify_changed("skills")
    v.state.refresh_now()
    qtbot.waitUntil(
        lambda: not preview.pending and "zebrafinch" in preview.section_text("skills"),
        timeout=10000,
    )
    assert on_gui_thread and not any(on_gui_thread)
    edited = simulate_scenario(raw(ws).catalog(), scenario, PROFILE).distiller_section
    assert edited is not None and preview.section_text("skills") == edited.text
def test_many_changes_made_elsewhere_are_indexed_afresh_on_the_task_runner(
    rwindow: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A re-read catalog that differs in more entries than `MAX_PATCH` gets a new index
    built on the task runner, as at start-up, not patched entry by entry on the GUI
    thread; one that differs in a few is patched."""
    from axmem_gui.ui.retrieval import state as state_module

    v = views(rwindow)
    ws = rwindow.controller.workspace
    monkeypatch.setattr(state_module, "MAX_PATCH", 2)
    first = v.state.live
    few = [Memory(f"note-{i}", f"about pears {i}") for i in range(2)]
    with raw(ws).transaction():
        for memory in few:
            raw(ws).memories.upsert(memory)
    rwindow.controller.notify_changed("memories")
    qtbot.waitUntil(lambda: v.state.live.entry("memories", "note-1") == few[1], timeout=10000)
    assert v.state.live is first  # patched
    many = [Memory(f"note-{i}", f"about plums {i}") for i in range(5)]
    with raw(ws).transaction():
        for memory in many:
            raw(ws).memories.upsert(memory)
    rwindow.controller.notify_changed("memories")
    qtbot.waitUntil(
        lambda: v.state.ready and v.state.live.entry("memories", "note-4") == many[4],
        timeout=10000,
    )
    assert v.state.live is not first  # a new index
    assert [v.state.live.entry("memories", m.id) for m in many] == many


def test_a_big_skills_index_is_rendered_while_the_search_index_is_built(
    qtbot: QtBot, make_window: WindowFactory, sample_ws_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The skills section needs no search index: it is rendered from the catalog as soon
    as the index job has read it, so the preview fills when the index lands (it was
    rendered only after, seconds later at 100,000 memories), and not rendered again then."""
    from axmem_gui.ui import tasks
    from axmem_gui.ui.preview import rendering

    from .conftest import RETRIEVAL_FEATURES

    monkeypatch.setattr(rendering, "RENDER_HERE_MAX_SKILLS", 0)  # the sample is "big"
    ready_at_render: list[bool] = []
    windows: list[MainWindow] = []
    original = tasks.TaskRunner.submit

    def recording(self: tasks.TaskRunner, job: Job) -> int:

        if getattr(job, "__qualname__", "").startswith("PreviewRendering._skills_section"):
            ready_at_render.append(views(windows[0]).state.ready)
        return original(self, job)

    monkeypatch.setattr(tasks.TaskRunner, "submit", recording)
    win = make_window(sample_ws_path, features=RETRIEVAL_FEATURES, show=False)
    windows.append(win)
    win.show()
    v = views(win)
    qtbot.waitUntil(lambda: v.state.ready and not v.preview.pending, timeout=10000)
    qtbot.waitUntil(lambda: bool(v.preview.section_text("skills")), timeout=10000)
    assert ready_at_render == [False]  # once, before the index landed
    ws = win.controller.workspace
    name = v.preview.scenario_name()
    assert name is not None and v.preview.stage() == "executor"
    engine = simulate_scenario(raw(ws).catalog(), ws.scenarios.load(name), PROFILE)
    assert engine.executor_section is not None
    assert v.preview.section_text("skills") == engine.executor_section.text
    v.suites.runner.cancel()
