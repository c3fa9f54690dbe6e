"""File > Import through the real window: plan and apply on the task runner, policies
against the store, all or nothing, cancel, one undo step, drag and drop."""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.formats import FormatName, ImportPlan, Policy, fileio
from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.transfer.jobs import ImportPreview
from tests.helpers.store import raw
from tests.ui.transfer.conftest import Recorder, stored, transfer, wait_idle, write_source

FORMATS_WITH_SKILLS = {"ax-json", "ts", "skills-dir"}
FORMATS_WITH_MEMORIES = {"ax-json", "ts", "jsonl"}


def _conflicting(window: MainWindow) -> tuple[Skill, Memory]:
    """An existing skill and memory, each changed so importing it is a conflict."""
    ws = window.controller.workspace
    skill = raw(ws).skills.all()[1]
    memory = raw(ws).memories.all()[1]
    return (
        replace(skill, description="Changed by the import", content="# New\n\nNew body.\n"),
        replace(memory, content="Changed by the import."),
    )


def plain(entry: Skill | Memory) -> Skill | Memory:
    """The entry without what a SKILL.md folder carries beyond Ax's fields (its layout)."""
    return replace(entry, extra={}) if isinstance(entry, Skill) else entry


NEW_SKILL = Skill("imported-skill", "Imported skill", "Brought in from a file", "Body.\n")
NEW_MEMORY = Memory("imported-memory", "A fact from a file.", ("imported",))


@pytest.mark.parametrize("policy", ["skip", "overwrite", "keep-both"])
@pytest.mark.parametrize("fmt", ["ax-json", "ts", "skills-dir", "jsonl"])
def test_import_each_format_with_each_policy(
    window: MainWindow,
    qtbot: QtBot,
    dialogs: Recorder,
    tmp_path: Path,
    fmt: FormatName,
    policy: Policy,
) -> None:
    old_skills, old_memories, _ = stored(window)
    skill, memory = _conflicting(window)
    skills = [skill, NEW_SKILL] if fmt in FORMATS_WITH_SKILLS else []
    memories = [memory, NEW_MEMORY] if fmt in FORMATS_WITH_MEMORIES else []
    source = write_source(fmt, tmp_path / "in", skills, memories)
    dialogs.answer = policy

    transfer(window).import_paths([source])
    wait_idle(qtbot, window)

    assert dialogs.errors == []
    assert len(dialogs.previews) == 1
    plan = dialogs.previews[0].plan(policy)
    assert len(plan.conflicts) == len(skills) // 2 + len(memories) // 2
    skills_now = {s.id: s for s in stored(window)[0]}
    memories_now = {m.id: m for m in stored(window)[1]}
    before_skills = {s.id: s for s in old_skills}
    before_memories = {m.id: m for m in old_memories}
    for new, now, before in (
        (skills, skills_now, before_skills),
        (memories, memories_now, before_memories),
    ):
        if not new:
            assert now == before
            continue
        conflict, added = new
        assert plain(now[added.id]) == added
        if policy == "skip":
            assert now[conflict.id] == before[conflict.id]
            assert set(now) == set(before) | {added.id}
        elif policy == "overwrite":
            assert plain(now[conflict.id]) == plain(conflict)
            assert set(now) == set(before) | {added.id}
        else:
            assert now[conflict.id] == before[conflict.id]
            assert plain(now[f"{conflict.id}-2"]) == plain(replace(conflict, id=f"{conflict.id}-2"))
            assert set(now) == set(before) | {added.id, f"{conflict.id}-2"}
    # One undo step for the whole import, named by its size.
    written = len(plan.writes)
    assert window.undo_stack.count() == 1
    noun = "entry" if written == 1 else "entries"
    assert window.undo_stack.undoText() == f"Import {written} {noun}"
    # The window shows what the import wrote.
    assert window.controller.counts().skills == len(skills_now)
    assert "Ctrl+Z" in window.statusBar().currentMessage()


def test_undo_removes_an_import_and_redo_applies_it_again(
    window: MainWindow, qtbot: QtBot, dialogs: Recorder, tmp_path: Path
) -> None:
    before = stored(window)
    skill, memory = _conflicting(window)
    source = write_source("ax-json", tmp_path, [skill, NEW_SKILL], [memory, NEW_MEMORY])
    dialogs.answer = "overwrite"
    transfer(window).import_paths([source])
    wait_idle(qtbot, window)
    after = stored(window)
    assert {s.id: s for s in after[0]}[skill.id] == skill
    assert window.undo_stack.undoText() == "Import 4 entries"

    window.undo_stack.undo()
    undone = stored(window)
    assert undone[:2] == before[:2]
    assert window.feature(CATALOG).pages["skills"].model.total() == len(before[0])
    assert window.undo_stack.redoText() == "Import 4 entries"

    window.undo_stack.redo()
    redone = stored(window)
    assert redone[:2] == after[:2]
    assert window.feature(CATALOG).pages["memories"].model.total() == len(after[1])
    window.undo_stack.undo()
    assert stored(window)[:2] == before[:2]


def test_preview_cancel_writes_nothing(
    window: MainWindow, qtbot: QtBot, dialogs: Recorder, tmp_path: Path
) -> None:
    before = stored(window)
    source = write_source("ax-json", tmp_path, [NEW_SKILL], [NEW_MEMORY])
    dialogs.answer = None
    transfer(window).import_paths([source])
    wait_idle(qtbot, window)
    assert len(dialogs.previews) == 1
    assert stored(window) == before
    assert window.undo_stack.count() == 0
    assert "nothing was changed" in window.statusBar().currentMessage()


def test_a_bad_file_blocks_the_import_and_nothing_is_written(
    window: MainWindow, qtbot: QtBot, dialogs: Recorder, tmp_path: Path
) -> None:
    good = write_source("ax-json", tmp_path / "good", [NEW_SKILL], [NEW_MEMORY])
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps({"skillsCatalog": [{"id": "broken", "name": 7, "content": ""}]}),
        encoding="utf-8",
    )
    before = stored(window)

    def user_tries_to_import(preview: ImportPreview) -> ImportPlan | None:
        from axmem_gui.ui.transfer.preview_dialog import ImportPreviewDialog

        dialog = ImportPreviewDialog(preview, "overwrite", window)
        qtbot.addWidget(dialog)
        assert not dialog.import_button.isEnabled()
        assert "nothing is imported while a file has errors" in dialog.reason_label.text().lower()
        # Even a plan with errors handed to apply is refused.
        return dialog.plan

    dialogs.answer = user_tries_to_import
    transfer(window).import_paths([good, bad])
    wait_idle(qtbot, window)
    plan = dialogs.previews[0].plan("overwrite")
    assert [str(p) for p in plan.errors] == [
        f"{bad}: skillsCatalog[0] 'broken': field 'name' must be a string, got a number"
    ]
    assert stored(window) == before
    assert window.undo_stack.count() == 0
    assert transfer(window).last_result is None


def test_unreadable_paths_are_named_in_the_preview(
    window: MainWindow, qtbot: QtBot, dialogs: Recorder, tmp_path: Path
) -> None:
    missing = tmp_path / "nowhere.json"
    unknown = tmp_path / "notes.txt"
    unknown.write_text("hello", encoding="utf-8")
    before = stored(window)
    dialogs.answer = "skip"
    transfer(window).import_paths([missing, unknown])
    wait_idle(qtbot, window)
    errors = dialogs.previews[0].plan().errors
    assert {e.file for e in errors} == {str(missing), str(unknown)}
    assert all("Traceback" not in e.message for e in errors)
    assert stored(window) == before


def test_cancel_during_the_import_leaves_nothing(
    window: MainWindow, qtbot: QtBot, dialogs: Recorder, tmp_path: Path
) -> None:
    many = [Skill(f"bulk-{i:05d}", f"Bulk {i}", "Bulk skill", f"Body {i}.") for i in range(5000)]
    source = write_source("ax-json", tmp_path, many, [])
    before = stored(window)
    actions = transfer(window)
    dialogs.answer = "skip"
    seen: list[float] = []

    def on_progress(job_id: int, fraction: float, message: str) -> None:
        running = actions.current
        if running is not None and running.stage == "apply" and running.job_id == job_id:
            if not seen:
                running.progress.cancel_button.click()
            seen.append(fraction)

    actions.runner.progressed.connect(on_progress)
    with qtbot.waitSignal(actions.runner.cancelled, timeout=20_000):
        actions.import_paths([source])
    wait_idle(qtbot, window)
    actions.runner.progressed.disconnect(on_progress)
    assert seen and seen[0] < 1.0  # cancelled while writing
    assert stored(window) == before
    assert window.undo_stack.count() == 0
    assert actions.last_result is None
    assert window.statusBar().currentMessage() == "Import cancelled; nothing was changed."


def test_cancel_while_reading_shows_no_preview(
    window: MainWindow, qtbot: QtBot, dialogs: Recorder, tmp_path: Path
) -> None:
    many = [Skill(f"read-{i:05d}", f"Read {i}", "Skill", f"Body {i}.") for i in range(20_000)]
    source = write_source("ax-json", tmp_path, many, [])
    before = stored(window)
    actions = transfer(window)
    with qtbot.waitSignal(actions.runner.cancelled, timeout=20_000):
        actions.import_paths([source])
        assert actions.current is not None and actions.current.stage == "plan"
        actions.current.progress.cancel_button.click()
    wait_idle(qtbot, window)
    assert dialogs.previews == []
    assert stored(window) == before
    assert window.statusBar().currentMessage() == "Import cancelled; nothing was changed."


def test_a_stale_plan_is_refused_with_a_message(
    window: MainWindow, qtbot: QtBot, dialogs: Recorder, tmp_path: Path
) -> None:
    skill, _ = _conflicting(window)
    source = write_source("ax-json", tmp_path, [skill], [])

    def edit_meanwhile(preview: ImportPreview) -> ImportPlan:
        ws = window.controller.workspace
        stored = raw(ws).skills.get(skill.id)
        assert stored is not None
        raw(ws).skills.upsert(replace(stored, name="Edited meanwhile"))

        return preview.plan("overwrite")

    dialogs.answer = edit_meanwhile
    transfer(window).import_paths([source])
    wait_idle(qtbot, window)
    assert len(dialogs.errors) == 1
    title, message = dialogs.errors[0]
    assert title == "Import failed"
    assert f"skill '{skill.id}' changed since the import was planned" in message
    assert "Traceback" not in message
    assert {s.id: s for s in stored(window)[0]}[skill.id].name == "Edited meanwhile"


def _drop_event_pair(paths: list[Path]) -> tuple[QDragEnterEvent, QDropEvent, QMimeData]:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    actions = Qt.DropAction.CopyAction
    buttons = Qt.MouseButton.LeftButton
    mods = Qt.KeyboardModifier.NoModifier
    enter = QDragEnterEvent(QPoint(300, 300), actions, mime, buttons, mods)
    drop = QDropEvent(QPointF(300, 300), actions, mime, buttons, mods)
    return enter, drop, mime


def test_dropping_files_and_folders_imports_them(
    window: MainWindow, qtbot: QtBot, dialogs: Recorder, tmp_path: Path
) -> None:
    folder = write_source("skills-dir", tmp_path / "a", [NEW_SKILL], [])
    jsonl = write_source("jsonl", tmp_path / "b", [], [NEW_MEMORY])
    enter, drop, _mime = _drop_event_pair([folder, jsonl])
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    QApplication.sendEvent(window, drop)
    assert drop.isAccepted()
    wait_idle(qtbot, window)
    assert dialogs.previews[0].paths == (str(folder), str(jsonl))
    skills, memories, _ = stored(window)
    assert NEW_SKILL in [plain(s) for s in skills] and NEW_MEMORY in memories
    assert window.undo_stack.undoText() == "Import 2 entries"


def test_dragging_text_is_not_taken_for_an_import(window: MainWindow) -> None:
    mime = QMimeData()
    mime.setText("just some text")
    enter = QDragEnterEvent(
        QPoint(300, 300),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    enter.ignore()
    QApplication.sendEvent(window, enter)
    assert not enter.isAccepted()
    assert not transfer(window).busy


def test_file_menu_offers_import_and_export(window: MainWindow) -> None:
    actions = transfer(window)
    texts = [a.text() for a in window.file_menu.actions()]
    assert "&Import…" in texts and "&Export…" in texts
    assert actions.import_action.shortcut().toString() == "Ctrl+I"
    quit_index = next(i for i, t in enumerate(texts) if t == "&Quit")
    assert texts.index("&Import…") < quit_index


def test_a_file_over_the_size_limit_is_named_with_the_limit(
    window: MainWindow, qtbot: QtBot, dialogs: Recorder, tmp_path: Path
) -> None:
    from axmem_gui.core.formats.fileio import ReadLimits, human_size

    limit = ReadLimits().max_file_bytes
    assert human_size(limit) == "1 GiB"
    big = tmp_path / "big.json"
    with big.open("wb") as fh:  # sparse: takes no disk space
        fh.truncate(limit + 1)
    dialogs.answer = "skip"
    transfer(window).import_paths([big])
    wait_idle(qtbot, window)
    [error] = dialogs.previews[0].plan().errors
    assert error.file == str(big) and "the limit is 1 GiB" in error.message
    readme = (Path(__file__).parents[3] / "README.md").read_text(encoding="utf-8")
    assert human_size(limit) in readme and "import" in readme


def test_a_big_file_shows_how_much_was_read_and_cancel_stops_it(
    window: MainWindow,
    qtbot: QtBot,
    dialogs: Recorder,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Files of up to 1 GiB are imported (issue 25), read a few MiB at a time: the
    progress dialog says how much, and Cancel stops the read between two chunks."""
    # The read waits after each chunk until Cancel was clicked: on a quiet machine it
    # could otherwise finish all 40 MiB before the GUI thread showed the first progress.
    clicked = threading.Event()
    read = fileio._read_limited

    def paced(path: Path, limit: int, follow: bool, expect: Any, progress: Any) -> bytearray:
        def step(done: int, size: int) -> None:
            progress(done, size)
            clicked.wait(30)

        return read(path, limit, follow, expect, step if progress is not None else None)

    monkeypatch.setattr(fileio, "_read_limited", paced)
    source = tmp_path / "big.json"
    body = "x" * (40 * 1024 * 1024)
    source.write_text(f'{{"skills": [{{"id": "big", "name": "Big", "content": "{body}"}}]}}')
    before = stored(window)
    actions = transfer(window)
    messages: list[str] = []

    def on_progress(job_id: int, fraction: float, message: str) -> None:
        running = actions.current
        if running is not None and running.stage == "plan" and "MiB of" in message:
            messages.append(message)
            running.progress.cancel_button.click()
            clicked.set()

    actions.runner.progressed.connect(on_progress)
    with qtbot.waitSignal(actions.runner.cancelled, timeout=60_000):
        actions.import_paths([source])
    wait_idle(qtbot, window)
    actions.runner.progressed.disconnect(on_progress)
    assert messages and "MiB of 40.0 MiB" in messages[0]
    assert dialogs.previews == [] and stored(window) == before
    assert window.statusBar().currentMessage() == "Import cancelled; nothing was changed."
