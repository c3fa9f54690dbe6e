"""Issue #30: undo steps follow typing as in a text editor. Three paragraphs typed with
pauses were one undo step, so one Ctrl+Z wiped them all; now a pause (`UNDO_PAUSE_S`)
or a word boundary (a space or line break after a word) starts a new step, and the store
still gets one write per commit. The clock is injected: no test waits seconds."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from axmem_gui.store import Workspace
from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.editor.form import UNDO_PAUSE_S, EntryForm
from axmem_gui.ui.main_window import MainWindow

CTRL = Qt.KeyboardModifier.ControlModifier


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def pause(self, seconds: float) -> None:
        self.now += seconds


def _form(window: MainWindow, qtbot: Any, clock: Clock) -> EntryForm:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    page = window.feature(CATALOG).pages["skills"]
    assert page.select_id("style-guide")
    form = page.form
    form.clock = clock
    return form


def _stored(window: MainWindow, field: str) -> str:
    with Workspace.open(window.controller.path, read_only=True) as other:
        skill = other.skills.get("style-guide")
        assert skill is not None
        return str(getattr(skill, field))


def _type_and_commit(qtbot: Any, form: EntryForm, widget: Any, text: str) -> None:
    """Keys into `widget`, then the pause that commits them (the commit timer fires)."""
    with qtbot.waitSignal(form.edit_committed):
        for char in text:
            if char == "\n":
                qtbot.keyClick(widget, Qt.Key.Key_Return)
            else:
                qtbot.keyClicks(widget, char)


def test_paragraphs_typed_with_pauses_undo_one_at_a_time(window: MainWindow, qtbot: Any) -> None:
    clock = Clock()
    form = _form(window, qtbot, clock)
    edit = form.content.edit
    edit.setFocus()
    edit.moveCursor(edit.textCursor().MoveOperation.End)
    original = form.content.text()
    paragraphs = ["\n\nFirst", "\n\nSecond", "\n\nThird"]
    for paragraph in paragraphs:
        clock.pause(UNDO_PAUSE_S * 2)  # the writer stops to think
        _type_and_commit(qtbot, form, edit, paragraph)
    assert _stored(window, "content") == original + "".join(paragraphs)

    qtbot.keyClick(edit, Qt.Key.Key_Z, CTRL)
    assert _stored(window, "content") == original + "\n\nFirst\n\nSecond"
    assert form.content.text() == original + "\n\nFirst\n\nSecond"
    qtbot.keyClick(edit, Qt.Key.Key_Z, CTRL)
    assert _stored(window, "content") == original + "\n\nFirst"
    qtbot.keyClick(edit, Qt.Key.Key_Z, CTRL)
    assert _stored(window, "content") == original
    window.undo_stack.redo()
    assert _stored(window, "content") == original + "\n\nFirst"


def test_a_word_boundary_starts_a_step_without_any_pause(window: MainWindow, qtbot: Any) -> None:
    clock = Clock()
    form = _form(window, qtbot, clock)
    edit = form.description_edit
    edit.setFocus()
    edit.end(False)
    original = edit.text()
    writes = len(window.controller.workspace.catalog.history("skills", "style-guide"))
    _type_and_commit(qtbot, form, edit, " for release notes")  # one burst, no pause
    assert _stored(window, "description") == original + " for release notes"
    # one write for the burst, however many steps it holds
    assert len(window.controller.workspace.catalog.history("skills", "style-guide")) == writes + 1

    undone = []
    for _ in range(3):
        qtbot.keyClick(edit, Qt.Key.Key_Z, CTRL)
        undone.append(_stored(window, "description"))
    assert undone == [original + " for release", original + " for", original]
    assert edit.text() == original
    for _ in range(3):
        window.undo_stack.redo()
    assert _stored(window, "description") == original + " for release notes"


def test_a_short_pause_inside_a_word_stays_one_step(window: MainWindow, qtbot: Any) -> None:
    clock = Clock()
    form = _form(window, qtbot, clock)
    edit = form.name_edit
    edit.setFocus()
    edit.end(False)
    original = edit.text()
    _type_and_commit(qtbot, form, edit, " draf")
    clock.pause(UNDO_PAUSE_S / 3)  # committed (the commit delay passed), not a pause
    _type_and_commit(qtbot, form, edit, "ted")
    assert _stored(window, "name") == original + " drafted"
    qtbot.keyClick(edit, Qt.Key.Key_Z, CTRL)
    assert _stored(window, "name") == original


def test_a_failed_write_takes_its_steps_with_it(window: MainWindow, qtbot: Any) -> None:
    """Another program changed the entry: the burst's write is refused (theirs kept),
    and no step of that burst stays on the stack to undo into a value never stored."""
    from axmem_gui.ui.commands import Resolution

    clock = Clock()
    form = _form(window, qtbot, clock)
    window.feature(CATALOG).session.resolver = lambda _error: Resolution.THEIRS
    edit = form.description_edit
    edit.setFocus()
    edit.end(False)
    with Workspace.open(window.controller.path) as other:
        skill = other.skills.get("style-guide")
        assert skill is not None
        from dataclasses import replace

        other.skills.upsert(replace(skill, description="theirs"))
    _type_and_commit(qtbot, form, edit, " one two")
    assert _stored(window, "description") == "theirs"
    qtbot.waitUntil(lambda: edit.text() == "theirs")
    count = window.undo_stack.count()
    for _ in range(count):
        window.undo_stack.undo()
    assert _stored(window, "description") == "theirs"
