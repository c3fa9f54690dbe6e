"""File > Export through the real window, then import what was written into an empty
workspace and compare."""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel, QWidget
from pytestqt.qtbot import QtBot

from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.formats.model import FormatName
from axmem_gui.services.workspace import init_workspace
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.transfer.export_dialog import (
    DEFAULT_NAMES,
    ClashFinder,
    ExportDialog,
    ExportRequest,
    check_target,
    export_details,
    export_summary,
)
from tests.ui.conftest import WindowFactory
from tests.ui.transfer.conftest import Recorder, stored, transfer, wait_idle

TARGETS = {"ax-json": "out.json", "ts": "out.ts", "skills-dir": "skills", "jsonl": "out.jsonl"}


def _plain(skills: list[Skill]) -> list[Skill]:
    return [replace(s, extra={}) for s in skills]


def _export(
    window: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, request: ExportRequest
) -> None:
    monkeypatch.setattr(ExportDialog, "ask", classmethod(lambda cls, *a, **k: request))
    transfer(window).export()
    wait_idle(qtbot, window)


@pytest.mark.parametrize("fmt", ["ax-json", "ts", "skills-dir", "jsonl"])
def test_export_each_format_then_reimport_gives_the_same_catalog(
    window: MainWindow,
    qtbot: QtBot,
    dialogs: Recorder,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    fmt: FormatName,
) -> None:
    skills, memories, _ = stored(window)
    out = tmp_path / "export" / TARGETS[fmt]
    out.parent.mkdir()
    _export(window, qtbot, monkeypatch, ExportRequest(fmt, out))
    assert dialogs.errors == []
    [result] = dialogs.exports
    assert out.exists()
    assert set(result.files) <= {out} | set(out.iterdir() if out.is_dir() else [])
    assert window.statusBar().currentMessage() == export_summary(result)
    if fmt == "jsonl":
        assert any("skill(s) not exported" in w for w in result.warnings)
        assert "Warnings:" in export_details(result)

    empty = init_workspace(tmp_path / "empty.axmem")
    empty.close()
    assert window.open_path(tmp_path / "empty.axmem")
    dialogs.answer = "skip"
    transfer(window).import_paths([out])
    wait_idle(qtbot, window)
    assert dialogs.errors == []
    again_skills, again_memories, _ = stored(window)
    if fmt in ("ax-json", "ts"):
        assert _plain(again_skills) == _plain(skills)
        assert again_memories == memories
    elif fmt == "skills-dir":
        by_id = sorted(_plain(skills), key=lambda s: s.id)
        assert sorted(_plain(again_skills), key=lambda s: s.id) == by_id
        assert again_memories == memories  # in memories.jsonl beside the skill folders
    else:
        assert again_skills == []
        assert again_memories == memories


def test_skills_dir_export_refuses_to_replace_folders_unless_asked(
    window: MainWindow,
    qtbot: QtBot,
    dialogs: Recorder,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    out = tmp_path / "skills"
    _export(window, qtbot, monkeypatch, ExportRequest("skills-dir", out))
    first = stored(window)[0][0]
    marker = out / first.id / "SKILL.md"
    marker.write_text("---\nname: stale\n---\nold\n", encoding="utf-8")

    _export(window, qtbot, monkeypatch, ExportRequest("skills-dir", out))
    assert len(dialogs.errors) == 1
    title, message = dialogs.errors[0]
    assert title == "Export failed" and "already holds" in message
    assert marker.read_text(encoding="utf-8").startswith("---\nname: stale")

    _export(window, qtbot, monkeypatch, ExportRequest("skills-dir", out, force=True))
    assert len(dialogs.errors) == 1
    assert "name: stale" not in marker.read_text(encoding="utf-8")


def test_export_dialog_checks_the_target(qtbot: QtBot, tmp_path: Path) -> None:
    dialog = ExportDialog(tmp_path, "ax-json", None, (3, 4))
    qtbot.addWidget(dialog)
    assert dialog.path_edit.text() == str(tmp_path / DEFAULT_NAMES["ax-json"])
    dialog.format_combo.setCurrentIndex(dialog.format_combo.findData("skills-dir"))
    assert dialog.path_edit.text() == str(tmp_path / "skills")
    assert dialog.force_check.isVisibleTo(dialog)
    dialog.force_check.setChecked(True)
    assert dialog.request() == ExportRequest("skills-dir", tmp_path / "skills", True)
    dialog.format_combo.setCurrentIndex(dialog.format_combo.findData("jsonl"))
    assert dialog.request() == ExportRequest("jsonl", tmp_path / "memories.jsonl", False)
    assert "Skills are not written" in dialog.note_label.text()

    dialog.path_edit.setText(str(tmp_path / "missing" / "x.jsonl"))
    dialog.export_button.click()
    assert dialog.result() == 0 and "folder not found" in dialog.problem_label.text()
    dialog.path_edit.setText(str(tmp_path))
    dialog.export_button.click()
    assert "is a folder" in dialog.problem_label.text()
    assert check_target("skills-dir", "") == "Choose where to write the export."
    (tmp_path / "file.txt").write_text("x", encoding="utf-8")
    assert "not a folder" in check_target("skills-dir", str(tmp_path / "file.txt"))
    assert check_target("ts", str(tmp_path / "ok.ts")) == ""


def test_read_only_workspace_can_export_but_not_import(
    make_window: WindowFactory, tmp_path: Path, dialogs: Recorder
) -> None:
    win = make_window(read_only=True, show=False)
    actions = transfer(win)
    assert not actions.import_action.isEnabled()
    assert actions.export_action.isEnabled()
    assert actions.import_paths([tmp_path]) is None
    assert dialogs.errors and "read-only" in dialogs.errors[0][1]


def test_memory_only_export_summary() -> None:
    from axmem_gui.services.transfer import ExportResult

    result = ExportResult("jsonl", Path("/x/m.jsonl"), (Path("/x/m.jsonl"),), 0, 2, ())
    assert export_summary(result) == "Exported 2 memories as JSON Lines to /x/m.jsonl"
    assert Memory("a", "b") != Memory("a", "c")  # sanity: memories compare by value


def _shown_whole(label: QLabel) -> bool:
    return label.height() >= label.heightForWidth(label.width())


def test_export_note_is_shown_whole(qtbot: QtBot, tmp_path: Path) -> None:
    dialog = ExportDialog(tmp_path, "ax-json", None, (3, 4))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    for fmt in ("ax-json", "ts", "skills-dir", "jsonl"):
        dialog.format_combo.setCurrentIndex(dialog.format_combo.findData(fmt))
        note = dialog.note_label
        qtbot.waitUntil(functools.partial(_shown_whole, note))
        lines = note.heightForWidth(note.width()) // note.fontMetrics().lineSpacing()
        assert note.height() >= lines * note.fontMetrics().lineSpacing(), fmt


def test_skills_dir_clash_is_caught_in_the_dialog_in_its_own_words(
    window: MainWindow,
    qtbot: QtBot,
    dialogs: Recorder,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    from axmem_gui.ui.transfer.export_dialog import REPLACE_LABEL

    out = tmp_path / "skills"
    _export(window, qtbot, monkeypatch, ExportRequest("skills-dir", out))
    asked: list[object] = []

    def ask(
        cls: object,
        parent: QWidget | None,
        start_dir: Path,
        fmt: FormatName = "ax-json",
        counts: tuple[int, int] = (0, 0),
        clashes: ClashFinder | None = None,
    ) -> ExportRequest | None:
        dialog = ExportDialog(start_dir, "skills-dir", parent, counts, clashes)
        qtbot.addWidget(dialog)
        dialog.path_edit.setText(str(out))
        dialog.export_button.click()
        asked.append(dialog.problem_label.text())
        assert dialog.result() == 0  # still open: the user can tick the box
        dialog.force_check.setChecked(True)
        dialog.export_button.click()
        assert dialog.result() == 1
        return dialog.request()

    monkeypatch.setattr(ExportDialog, "ask", classmethod(ask))
    transfer(window).export()
    wait_idle(qtbot, window)
    [problem] = asked
    assert isinstance(problem, str)
    assert "already holds" in problem and REPLACE_LABEL in problem and "--force" not in problem
    assert dialogs.errors == []

    # Written there after the dialog checked: the failure still speaks the GUI's language.
    _export(window, qtbot, monkeypatch, ExportRequest("skills-dir", out))
    [(title, message)] = dialogs.errors
    assert title == "Export failed" and REPLACE_LABEL in message and "--force" not in message
