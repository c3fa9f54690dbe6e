"""Draft commands driven without widgets: edits make a new draft, history is never
rewritten, undo/redo are exact, saving stores one new snapshot."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QUndoStack
from pytestqt.qtbot import QtBot

from axmem_gui.services import contextmaps as svc
from axmem_gui.services.workspace import init_workspace
from axmem_gui.ui.contextmap.editing import DRAFT_KEY, MapEditor, save_draft
from tests.helpers.store import raw
from tests.ui.contextmap.maps import AGENT, store_history


def test_edit_undo_redo_and_save(qtbot: QtBot, tmp_path: Path) -> None:
    ws = init_workspace(tmp_path / "c.axmem")
    stored = store_history(ws)
    entries = svc.timeline(ws, AGENT)
    base = entries[2]
    editor = MapEditor()
    stack = QUndoStack()
    focus: list[str] = []
    editor.draft_changed.connect(focus.append)

    first = svc.edit_item_text(base.stored, "cu-00001", "Requests are about releases")
    stack.push(editor.edit(base, first, "edited cu-00001"))
    assert editor.draft is not None and editor.draft.stored == first
    assert editor.draft.base is base and focus[-1] == DRAFT_KEY

    second = svc.set_score(first, "ep-00003", 4)
    stack.push(editor.edit(editor.draft, second, "scored ep-00003"))
    assert editor.draft.stored == second
    assert editor.draft.edits == ("edited cu-00001", "scored ep-00003")
    assert editor.draft.base is base  # still based on the stored snapshot

    stack.undo()
    assert editor.draft.stored == first
    stack.undo()
    assert editor.draft is None and focus[-1] == base.key
    stack.redo()
    stack.redo()
    assert editor.draft.stored == second
    assert raw(ws).contextmaps.count() == len(stored)  # nothing written while editing

    command = save_draft(editor, lambda d: svc.save_edited(ws, d.agent, d.stored, d.base, d.edits))
    assert command is not None
    stack.push(command)
    assert editor.draft is None and focus[-1] == svc.snapshot_key(command.pk)
    saved = raw(ws).contextmaps.get(command.pk)
    assert saved is not None and saved.label == svc.EDITED_LABEL
    assert svc.timeline(ws, AGENT)[-1].stored.state == second.state
    assert saved.update_info is not None
    assert saved.update_info["edits"] == ["edited cu-00001", "scored ep-00003"]
    # The snapshots it came from are untouched.
    assert [s.state for s in raw(ws).contextmaps.list(AGENT)[:3]] == [
        e.stored.to_json_value() for e in entries
    ]

    stack.undo()  # undo the save: the draft is back, history keeps the snapshot
    assert editor.draft is not None and editor.draft.stored == second
    assert raw(ws).contextmaps.count() == len(stored) + 1
    stack.redo()
    assert editor.draft is None and raw(ws).contextmaps.count() == len(stored) + 1

    discard = editor.discard()
    assert discard is None  # nothing to discard
    ws.close()


def test_discard_is_undoable(qtbot: QtBot, tmp_path: Path) -> None:
    with init_workspace(tmp_path / "d.axmem") as ws:
        store_history(ws)
        base = svc.timeline(ws, AGENT)[1]
    editor = MapEditor()
    stack = QUndoStack()
    edited = svc.delete_item(base.stored, "rr-00002")
    stack.push(editor.edit(base, edited, "deleted rr-00002"))
    command = editor.discard()
    assert command is not None
    stack.push(command)
    assert editor.draft is None
    stack.undo()
    assert editor.draft is not None and editor.draft.stored == edited
