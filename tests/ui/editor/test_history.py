"""History helpers: side-by-side diff rows, histories joined across renames, the models."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from axmem_gui.core.catalog import Skill
from axmem_gui.services.catalog import CatalogService
from axmem_gui.store import Workspace
from axmem_gui.ui.history import (
    DiffModel,
    HistoryDialog,
    RevisionListModel,
    diff_rows,
    entry_lines,
)
from tests.helpers.store import raw


def test_diff_rows_pair_changes_and_keep_line_numbers() -> None:
    rows = diff_rows(["a", "b", "c", "d"], ["a", "B", "c", "e", "f"])
    assert [(r.left_no, r.left, r.right_no, r.right, r.tag) for r in rows] == [
        (1, "a", 1, "a", "equal"),
        (2, "b", 2, "B", "changed"),
        (3, "c", 3, "c", "equal"),
        (4, "d", 4, "e", "changed"),
        (None, "", 5, "f", "added"),
    ]
    removed = diff_rows(["x", "y"], ["x"])
    assert [(r.left, r.right, r.tag) for r in removed] == [
        ("x", "x", "equal"),
        ("y", "", "removed"),
    ]
    assert diff_rows([], entry_lines(None)) == []


def test_entry_lines_show_fields_then_content() -> None:
    lines = entry_lines(Skill("s", "S", "", "l1\nl2", ("a", "b")))
    assert lines == ["id: s", "name: S", "description: ", "tags: a, b", "content:", "l1", "l2"]


def test_full_history_follows_renames(tmp_path: Path, qapp: QApplication) -> None:
    with Workspace.open(tmp_path / "h.axmem", create=True) as ws:
        raw(ws).skills.upsert(Skill("a", "A"))
        raw(ws).skills.upsert(Skill("a", "A2"))
        raw(ws).skills.rename("a", "b")
        raw(ws).skills.upsert(Skill("b", "B3"))
        revisions = CatalogService(ws).lineage("skills", "b")
        assert [(r.entry_id, r.op, r.revision) for r in revisions] == [
            ("a", "create", 1),
            ("a", "update", 2),
            ("b", "rename", 3),
            ("b", "update", 4),
        ]
        model = RevisionListModel(revisions)
        assert model.index(0, 0).data() == "4"  # newest first
        assert model.index(1, 2).data() == "rename a → b"
        raw(ws).skills.delete("b")
        last = raw(ws).skills.history("b")[-1]
        assert last.op == "delete" and last.value == last.before == Skill("b", "B3")


def test_models_are_consistent(qtmodeltester: ModelTester, qtbot: QtBot, tmp_path: Path) -> None:
    with Workspace.open(tmp_path / "m.axmem", create=True) as ws:
        raw(ws).skills.upsert(Skill("a", "A", content="one\ntwo"))
        raw(ws).skills.upsert(Skill("a", "A", content="one\n2\nthree"))
        revisions = raw(ws).skills.history("a")
    qtmodeltester.check(RevisionListModel(revisions))
    dialog = HistoryDialog(None, "skill", "a", revisions, revisions[-1].after)
    qtbot.addWidget(dialog)
    assert dialog.select_revision(1)
    assert isinstance(dialog.diff, DiffModel) and dialog.diff.rowCount() > 0
    qtmodeltester.check(dialog.diff)
    assert "differs from current" in dialog.caption.text()
