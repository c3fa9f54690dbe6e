"""Issue #30: the files of a SKILL.md folder (`reference.md`, scripts) are listed per
skill and can be viewed, added, replaced and deleted, each change an undo step and a
revision in the skill's history. Before, `reference.md` round-tripped byte for byte but
could not be seen or edited."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.core.formats.extra import skill_resources
from axmem_gui.services.transfer import export_workspace, import_paths
from axmem_gui.services.workspace import init_workspace
from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.editor.skill_files import FileChoice, FileViewDialog, SkillFilesDialog
from axmem_gui.ui.history import entry_lines
from axmem_gui.ui.main_window import MainWindow
from tests.helpers.present import present
from tests.helpers.store import raw
from tests.ui.conftest import WindowFactory

REFERENCE = b"# Reference\n\nThe long details, loaded on demand.\n"
SCRIPT = b"#!/bin/sh\necho rotate\n"


@pytest.fixture
def folder_workspace(tmp_path: Path) -> Path:
    """A workspace holding a skill imported from a folder with two more files."""
    folder = tmp_path / "skills" / "secrets-audit"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: Secrets audit\ndescription: Check who can read which secret\n---\n"
        "# Secrets audit\n\nSee reference.md.\n",
        encoding="utf-8",
    )
    (folder / "reference.md").write_bytes(REFERENCE)
    (folder / "scripts" / "run.sh").write_bytes(SCRIPT)
    os.chmod(folder / "scripts" / "run.sh", 0o755)
    path = tmp_path / "w.axmem"
    with init_workspace(path) as ws:
        plan, result = import_paths(ws, [tmp_path / "skills"])
        assert plan.ok and result is not None
    return path


def _files(window: MainWindow) -> dict[str, tuple[bytes, bool]]:
    skill = raw(window.controller.workspace).skills.get("secrets-audit")
    assert skill is not None
    return {f.path: (f.data, f.executable) for f in skill_resources(skill)}


@pytest.fixture
def opened(
    monkeypatch: pytest.MonkeyPatch, qtbot: Any
) -> list[SkillFilesDialog]:
    """Files… opens the real dialog, left open (not modal) for the test to drive."""
    dialogs: list[SkillFilesDialog] = []

    def show_for(cls: type, parent: Any, skill_id: str, current: Any, apply: Any, ro: bool) -> None:
        dialog = SkillFilesDialog(skill_id, current, apply, ro, parent)
        qtbot.addWidget(dialog)
        dialog.show()
        dialogs.append(dialog)

    monkeypatch.setattr(SkillFilesDialog, "show_for", classmethod(show_for))
    return dialogs


def test_the_folders_files_are_listed_viewed_and_edited_with_undo(
    make_window: WindowFactory,
    folder_workspace: Path,
    opened: list[SkillFilesDialog],
    monkeypatch: pytest.MonkeyPatch,
    qtbot: Any,
    tmp_path: Path,
) -> None:
    window = make_window(folder_workspace)
    page = window.feature(CATALOG).pages["skills"]
    assert page.select_id("secrets-audit")
    form = page.form
    assert form.files_row.isVisible()
    assert form.files_label.full_text() == "reference.md, scripts/run.sh"
    original = _files(window)
    assert original == {"reference.md": (REFERENCE, False), "scripts/run.sh": (SCRIPT, True)}

    form.files_button.click()  # Files…
    [dialog] = opened
    assert [f.path for f in dialog.model.files] == ["reference.md", "scripts/run.sh"]
    viewer = FileViewDialog(dialog.model.files[0])  # View
    qtbot.addWidget(viewer)
    assert viewer.text is not None and viewer.text.toPlainText() == REFERENCE.decode()

    # Add a file from this computer, under references/.
    source = tmp_path / "extra.md"
    source.write_bytes(b"more")
    monkeypatch.setattr(FileChoice, "ask_source", classmethod(lambda cls, p, t: source))
    monkeypatch.setattr(FileChoice, "ask_path", classmethod(lambda cls, p, s: "references/x.md"))
    dialog.add_button.click()
    assert _files(window)["references/x.md"] == (b"more", False)
    assert form.files_label.full_text() == "reference.md, scripts/run.sh, references/x.md"
    # Replace reference.md; delete the script.
    dialog.table.selectRow(0)
    source.write_bytes(b"# Reference v2\n")
    dialog.replace_button.click()
    assert _files(window)["reference.md"] == (b"# Reference v2\n", False)
    dialog.table.selectRow(1)
    assert present(dialog.selected()).path == "scripts/run.sh"
    dialog.delete_button.click()
    assert "scripts/run.sh" not in _files(window)
    assert [f.path for f in dialog.model.files] == ["reference.md", "references/x.md"]

    # Each change is a revision the history diff shows, and an undo step.
    history = window.controller.workspace.catalog.history("skills", "secrets-audit")
    newest = entry_lines(history[-1].value)
    assert any(line.startswith("file references/x.md: 4 bytes") for line in newest)
    assert not any(line.startswith("file scripts/run.sh") for line in newest)
    for _ in range(3):
        window.undo_stack.undo()
    assert _files(window) == original
    window.undo_stack.redo()
    assert "references/x.md" in _files(window)

    # What a skills-folder export writes, byte for byte.
    window.undo_stack.undo()
    out = tmp_path / "out"
    export_workspace(window.controller.workspace, "skills-dir", out)
    assert (out / "secrets-audit" / "reference.md").read_bytes() == REFERENCE
    assert os.access(out / "secrets-audit" / "scripts" / "run.sh", os.X_OK)


def test_a_bad_path_or_an_unreadable_file_changes_nothing(
    make_window: WindowFactory,
    folder_workspace: Path,
    opened: list[SkillFilesDialog],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    window = make_window(folder_workspace)
    page = window.feature(CATALOG).pages["skills"]
    assert page.select_id("secrets-audit")
    page.form.files_button.click()
    [dialog] = opened
    before = _files(window)
    source = tmp_path / "x.md"
    source.write_bytes(b"x")
    monkeypatch.setattr(FileChoice, "ask_source", classmethod(lambda cls, p, t: source))
    for path, why in (
        ("../escape.md", "not a relative path"),
        ("SKILL.md", "cannot be named SKILL.md"),
        (".env", "hidden"),
        ("reference.md", "already has a file"),
    ):
        monkeypatch.setattr(FileChoice, "ask_path", classmethod(lambda cls, p, s, v=path: v))
        dialog.add_button.click()
        assert why in dialog.problem.text(), (path, dialog.problem.text())
    monkeypatch.setattr(FileChoice, "ask_source", classmethod(lambda cls, p, t: tmp_path))
    dialog.add_button.click()
    assert "is a folder" in dialog.problem.text() and str(tmp_path) in dialog.problem.text()
    assert _files(window) == before and window.undo_stack.count() == 0


def test_a_read_only_workspace_shows_the_files_only(
    make_window: WindowFactory, folder_workspace: Path, opened: list[SkillFilesDialog]
) -> None:
    window = make_window(folder_workspace, read_only=True)
    page = window.feature(CATALOG).pages["skills"]
    assert page.select_id("secrets-audit")
    page.form.files_button.click()
    [dialog] = opened
    assert dialog.view_button.isEnabled()
    assert not (dialog.add_button.isEnabled() or dialog.delete_button.isEnabled())
