"""The undo commands against a real workspace file, with no widget at all."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import QApplication

from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.catalog_rows import Entry
from axmem_gui.core.errors import ConflictError
from axmem_gui.services.workspace import init_workspace, open_workspace
from axmem_gui.store import Workspace
from axmem_gui.ui.commands import (
    EditSession,
    RenameEntryCommand,
    Resolution,
    create_command,
    delete_command,
    edit_command,
    restore_command,
    tag_command,
)
from axmem_gui.ui.controller import WorkspaceController
from tests.helpers.present import present
from tests.helpers.store import raw


class Setup:
    def __init__(self, path: Path) -> None:
        self.controller = WorkspaceController(open_workspace(path))
        self.session = EditSession(self.controller)
        self.stack = QUndoStack()
        self.conflicts: list[ConflictError] = []
        self.errors: list[str] = []
        self.changes: list[tuple[str, list[str], bool]] = []
        self.choice = Resolution.THEIRS
        self.session.resolver = self._resolve
        self.session.error_reported.connect(self.errors.append)
        self.session.entries_changing.connect(lambda k, ids, s: self.changes.append((k, ids, s)))

    def _resolve(self, err: ConflictError) -> Resolution:
        self.conflicts.append(err)
        return self.choice

    @property
    def ws(self) -> Workspace:
        """The store behind the commands (to arrange and inspect what they wrote)."""
        return raw(self.controller.workspace)

    def skill(self, entry_id: str) -> Skill | None:
        return self.ws.skills.get(entry_id)

    def held(self, entry_id: str) -> tuple[Entry, int] | None:
        found = self.controller.workspace.catalog.get("skills", entry_id)
        return None if found is None else (found.entry, found.revision)

    def new_entry(self, kind: str) -> Entry:
        return self.controller.workspace.catalog.new_entry(kind)

    def edit(self, entry_id: str, **fields: object) -> None:
        found = self.held(entry_id)
        assert found is not None
        before, revision = found
        after = replace(before, **fields)  # type: ignore[arg-type]
        field = next(iter(fields))
        self.stack.push(edit_command(self.session, "skills", before, after, revision, field))


@pytest.fixture
def setup(qapp: QApplication, sample_path: Path) -> Iterator[Setup]:
    s = Setup(sample_path)
    yield s
    s.stack.clear()
    s.controller.close()


def test_create_undo_redo(setup: Setup) -> None:
    entry = setup.new_entry("skills")
    assert entry.id == "new-skill"
    setup.stack.push(create_command(setup.session, "skills", entry))
    assert setup.skill("new-skill") == entry
    assert setup.new_entry("skills").id == "new-skill-2"
    setup.stack.undo()
    assert setup.skill("new-skill") is None
    setup.stack.redo()
    assert setup.skill("new-skill") == entry
    assert setup.changes[0] == ("skills", ["new-skill"], True)
    assert not setup.errors


def test_keystroke_commits_merge_into_one_undo_step(setup: Setup) -> None:
    original = setup.skill("release-checklist")
    assert original is not None
    for name in ("Release checklist!", "Release checklist!!", "Release checklist!!!"):
        setup.edit("release-checklist", name=name)
        # Every commit is durable at once: a second connection sees it.
        with Workspace.open(setup.ws.path, read_only=True) as other:
            assert present(other.skills.get("release-checklist")).name == name
    assert setup.stack.count() == 1
    setup.edit("release-checklist", description="changed")  # another field: its own step
    assert setup.stack.count() == 2
    setup.stack.undo()
    setup.stack.undo()
    assert setup.skill("release-checklist") == original
    setup.stack.redo()
    assert present(setup.skill("release-checklist")).name == "Release checklist!!!"
    setup.stack.redo()
    assert present(setup.skill("release-checklist")).description == "changed"


def test_typing_back_to_the_original_leaves_nothing_to_undo(setup: Setup) -> None:
    setup.edit("release-checklist", name="Release checklistX")
    setup.edit("release-checklist", name="Release checklist")
    assert setup.stack.count() == 0
    assert present(setup.skill("release-checklist")).name == "Release checklist"


def test_bulk_delete_and_undo_restore_values(setup: Setup) -> None:
    ids = ["release-checklist", setup.ws.skills.ids()[0], setup.ws.skills.ids()[1]]
    before = {i: setup.skill(i) for i in ids}
    total = setup.ws.skills.count()
    cmd = delete_command(setup.session, "skills", [*ids, "no-such-id"])
    assert cmd is not None
    setup.stack.push(cmd)
    assert setup.ws.skills.count() == total - len(set(ids))
    batch = setup.ws.skills.history(ids[1])[-1].batch
    assert batch is not None and len(setup.ws.revisions.batch(batch)) == len(set(ids))
    setup.stack.undo()
    assert setup.ws.skills.count() == total
    assert {i: setup.skill(i) for i in ids} == before
    assert delete_command(setup.session, "skills", ["no-such-id"]) is None


def test_bulk_tag_add_and_remove(setup: Setup) -> None:
    ids = setup.ws.skills.ids()[:4]
    already = setup.skill(ids[0])
    assert already is not None
    setup.ws.skills.upsert(replace(already, tags=(*already.tags, "hot")))
    cmd = tag_command(setup.session, "skills", ids, "hot", add=True)
    assert cmd is not None and len(cmd.changes) == 3  # the first had it already
    setup.stack.push(cmd)
    assert all("hot" in present(setup.skill(i)).tags for i in ids)
    remove = tag_command(setup.session, "skills", ids, "hot", add=False)
    assert remove is not None and len(remove.changes) == 4
    setup.stack.push(remove)
    assert all("hot" not in present(setup.skill(i)).tags for i in ids)
    setup.stack.undo()
    setup.stack.undo()
    assert "hot" in present(setup.skill(ids[0])).tags
    assert all("hot" not in present(setup.skill(i)).tags for i in ids[1:])
    assert tag_command(setup.session, "skills", ids[1:], "hot", add=False) is None


def test_rename_and_undo(setup: Setup) -> None:
    value = setup.skill("release-checklist")
    setup.stack.push(RenameEntryCommand(setup.session, "skills", "release-checklist", "ship-it"))
    assert setup.skill("release-checklist") is None
    assert setup.skill("ship-it") == replace(value, id="ship-it")  # type: ignore[type-var]
    assert setup.ws.skills.history("ship-it")[-1].op == "rename"
    setup.stack.undo()
    assert setup.skill("release-checklist") == value
    assert setup.skill("ship-it") is None


def test_rename_onto_existing_id_is_refused_and_dropped(setup: Setup) -> None:
    other = setup.ws.skills.ids()[0]
    setup.stack.push(RenameEntryCommand(setup.session, "skills", "release-checklist", other))
    assert setup.stack.count() == 0
    assert setup.errors and "already exists" in setup.errors[0]
    assert setup.skill("release-checklist") is not None


def test_restore_from_history_is_undoable(setup: Setup) -> None:
    setup.edit("release-checklist", content="v2")
    setup.stack.clear()  # a fresh step, not merged with the edit
    setup.edit("release-checklist", content="v3")
    history = setup.ws.skills.history("release-checklist")
    first = history[0]
    assert first.after is not None
    value = first.after
    setup.stack.push(restore_command(setup.session, "skills", value, "revision 1"))
    assert setup.skill("release-checklist") == value
    assert setup.ws.skills.history("release-checklist")[-1].op == "restore"
    setup.stack.undo()
    assert present(setup.skill("release-checklist")).content == "v3"


def test_restore_a_deleted_entry_and_undo_deletes_it_again(setup: Setup) -> None:
    setup.ws.skills.delete("release-checklist")
    last = setup.ws.skills.history("release-checklist")[-1]
    assert last.op == "delete" and last.before is not None
    value = last.before
    setup.stack.push(restore_command(setup.session, "skills", value, "before delete"))
    assert setup.skill("release-checklist") == value
    setup.stack.undo()
    assert setup.skill("release-checklist") is None


def _edit_elsewhere(path: Path, entry_id: str, name: str) -> None:
    with Workspace.open(path) as other:
        entry = other.skills.get(entry_id)
        assert entry is not None
        other.skills.upsert(replace(entry, name=name))


def test_conflict_keep_theirs_drops_the_edit(setup: Setup) -> None:
    found = setup.held("release-checklist")
    assert found is not None
    before, revision = found
    assert isinstance(before, Skill)
    _edit_elsewhere(setup.ws.path, "release-checklist", "Theirs")
    setup.choice = Resolution.THEIRS
    setup.stack.push(
        edit_command(
            setup.session, "skills", before, replace(before, name="Mine"), revision, "name"
        )
    )
    assert len(setup.conflicts) == 1 and setup.conflicts[0].actual == revision + 1
    assert setup.stack.count() == 0
    assert present(setup.skill("release-checklist")).name == "Theirs"


def test_conflict_overwrite_with_mine(setup: Setup) -> None:
    found = setup.held("release-checklist")
    assert found is not None
    before, revision = found
    assert isinstance(before, Skill)
    _edit_elsewhere(setup.ws.path, "release-checklist", "Theirs")
    setup.choice = Resolution.MINE
    setup.stack.push(
        edit_command(
            setup.session, "skills", before, replace(before, name="Mine"), revision, "name"
        )
    )
    assert setup.stack.count() == 1
    assert present(setup.skill("release-checklist")).name == "Mine"
    setup.stack.undo()
    assert present(setup.skill("release-checklist")).name == "Release checklist"


def test_conflict_on_undo_keep_theirs_removes_the_step(setup: Setup) -> None:
    setup.edit("release-checklist", name="Mine")
    _edit_elsewhere(setup.ws.path, "release-checklist", "Theirs")
    setup.choice = Resolution.THEIRS
    setup.stack.undo()
    assert setup.conflicts
    assert setup.stack.count() == 0
    assert present(setup.skill("release-checklist")).name == "Theirs"


def test_memories_and_read_only(setup: Setup, tmp_path: Path) -> None:
    mem = Memory("m-new", "a fact", ("x",))
    setup.stack.push(create_command(setup.session, "memories", mem))
    assert setup.ws.memories.get("m-new") == mem
    path = tmp_path / "ro.axmem"
    init_workspace(path).close()
    controller = WorkspaceController(open_workspace(path, read_only=True))
    session = EditSession(controller)
    errors: list[str] = []
    session.error_reported.connect(errors.append)
    stack = QUndoStack()
    stack.push(create_command(session, "skills", Skill("x", "X")))
    assert stack.count() == 0 and errors and "read-only" in errors[0]
    controller.close()
