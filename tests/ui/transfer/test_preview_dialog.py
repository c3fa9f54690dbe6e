"""The import preview dialog and its model, over plans of real files."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt, QTimer
from PySide6.QtWidgets import QApplication, QComboBox, QStyleOptionViewItem
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.services.aggregates import WorkspaceAddress
from axmem_gui.services.catalog import CatalogReader
from axmem_gui.services.workspace import init_workspace
from axmem_gui.store import Workspace
from axmem_gui.ui.tasks import JobContext
from axmem_gui.ui.transfer.jobs import ImportPreview, plan_job
from axmem_gui.ui.transfer.plan_model import (
    ImportPlanModel,
    PlanColumn,
    PlanFilterModel,
    PlanRole,
)
from axmem_gui.ui.transfer.preview_dialog import (
    NOTHING_TEXT,
    ImportPreviewDialog,
    PolicyDelegate,
)
from tests.helpers.store import raw
from tests.ui.transfer.conftest import write_source

DEPLOY = Skill("deploy", "Deploy", "How to deploy", "old steps")
TZ = Memory("tz", "UTC")


@pytest.fixture
def ws_path(tmp_path: Path) -> Path:
    path = tmp_path / "w.axmem"
    with init_workspace(path) as ws, raw(ws).transaction():
        raw(ws).skills.upsert(DEPLOY)
        raw(ws).skills.upsert(Skill("review", "Review", "Code review", "same"))
        raw(ws).memories.upsert(TZ)
    return path


def preview_of(ws_path: Path, paths: list[Path]) -> ImportPreview:
    # The planning job, run right here (it is a plain function of plain data).
    result = plan_job(CatalogReader(WorkspaceAddress(ws_path)), paths)(JobContext(1))
    assert isinstance(result, ImportPreview)
    return result


@pytest.fixture
def mixed(ws_path: Path, tmp_path: Path) -> ImportPreview:
    """Two conflicts, one add, one unchanged entry, and a file with an error."""
    good = write_source(
        "ax-json",
        tmp_path / "in",
        [
            replace(DEPLOY, content="new steps"),
            Skill("review", "Review", "Code review", "same"),
            Skill("lint", "Lint", "Run linters", "ruff"),
        ],
        [replace(TZ, content="Europe/Paris")],
    )
    bad = tmp_path / "in" / "notes.jsonl"
    bad.write_text(
        json.dumps({"id": "ok", "content": "fine"}) + "\n" + json.dumps({"id": "m2"}) + "\n",
        encoding="utf-8",
    )
    return preview_of(ws_path, [good, bad])


def rows_where(model: ImportPlanModel, role: PlanRole, value: object) -> list[int]:
    return [r for r in range(model.rowCount()) if model.index(r, 0).data(role) == value]


def text(model: ImportPlanModel, row: int, column: PlanColumn) -> str:
    return str(model.index(row, column).data())


def test_preview_lists_problems_first_with_file_entry_and_field(
    qtbot: QtBot, mixed: ImportPreview
) -> None:
    dialog = ImportPreviewDialog(mixed, "skip")
    qtbot.addWidget(dialog)
    model = dialog.model
    assert model.index(0, 0).data(PlanRole.Category) == "error"
    assert text(model, 0, PlanColumn.File) == "notes.jsonl"
    assert text(model, 0, PlanColumn.Entry) == "line 2 'm2'"
    assert text(model, 0, PlanColumn.Field) == "content"
    assert "missing" in text(model, 0, PlanColumn.Details)
    assert rows_where(model, PlanRole.Category, "error") == [0]
    summary = dialog.summary_label.text()
    assert "1 error" in summary and "2 conflicts" in summary and "2 to add" in summary
    # Any error blocks the import, and the dialog says why.
    assert not dialog.import_button.isEnabled()
    assert dialog.blocked_label.isVisibleTo(dialog)
    assert "nothing is imported while a file has errors" in dialog.blocked_label.text().lower()


def test_preview_marks_conflicts_and_the_global_policy_replans(
    qtbot: QtBot, mixed: ImportPreview
) -> None:
    dialog = ImportPreviewDialog(mixed, "skip")
    qtbot.addWidget(dialog)
    model = dialog.model
    conflicts = rows_where(model, PlanRole.Conflict, True)
    assert [model.index(r, 0).data(PlanRole.SourceId) for r in conflicts] == ["deploy", "tz"]
    assert [text(model, r, PlanColumn.Result) for r in conflicts] == ["skip", "skip"]
    assert [text(model, r, PlanColumn.Policy) for r in conflicts] == ["skip", "skip"]
    assert "content" in text(model, conflicts[0], PlanColumn.Details)
    unchanged = rows_where(model, PlanRole.Category, "unchanged")
    assert [model.index(r, 0).data(PlanRole.SourceId) for r in unchanged] == ["review"]
    rows_before = model.rowCount()

    with qtbot.waitSignal(model.dataChanged):
        dialog.policy_combo.setCurrentIndex(dialog.policy_combo.findData("overwrite"))
    assert dialog.plan.policy == "overwrite"
    assert model.rowCount() == rows_before  # re-planned in place
    assert [text(model, r, PlanColumn.Result) for r in conflicts] == ["update", "update"]
    assert [i.target_id for i in dialog.plan.updates] == ["deploy", "tz"]


def test_one_conflict_can_get_its_own_policy(qtbot: QtBot, ws_path: Path, tmp_path: Path) -> None:
    source = write_source(
        "ax-json", tmp_path, [replace(DEPLOY, content="new")], [replace(TZ, content="CET")]
    )
    dialog = ImportPreviewDialog(preview_of(ws_path, [source]), "skip")
    qtbot.addWidget(dialog)
    model = dialog.model
    deploy_row = rows_where(model, PlanRole.SourceId, "deploy")[0]
    index = dialog.proxy.mapFromSource(model.index(deploy_row, PlanColumn.Policy))
    assert dialog.proxy.flags(index) & Qt.ItemFlag.ItemIsEditable

    # Through the delegate's combo box, as a double-click would.
    delegate = dialog.table.itemDelegateForColumn(PlanColumn.Policy)
    assert isinstance(delegate, PolicyDelegate)
    editor = delegate.createEditor(dialog.table.viewport(), QStyleOptionViewItem(), index)
    delegate.setEditorData(editor, index)
    assert isinstance(editor, QComboBox) and editor.currentData() == "skip"
    editor.setCurrentIndex(editor.findData("keep-both"))
    delegate.setModelData(editor, dialog.proxy, index)
    editor.deleteLater()

    assert dialog.overrides == {("skill", "deploy"): "keep-both"}
    assert [(i.source_id, i.target_id) for i in dialog.plan.kept_both] == [("deploy", "deploy-2")]
    assert text(model, deploy_row, PlanColumn.Id) == "deploy → deploy-2"
    assert model.index(deploy_row, PlanColumn.Policy).data(PlanRole.Overridden) is True
    assert model.index(deploy_row, PlanColumn.Policy).data(Qt.ItemDataRole.FontRole).bold()
    tz_row = rows_where(model, PlanRole.SourceId, "tz")[0]
    assert text(model, tz_row, PlanColumn.Result) == "skip"
    # The global policy leaves the entry's own choice alone...
    dialog.set_policy("overwrite")
    assert text(model, deploy_row, PlanColumn.Result) == "keep both"
    assert text(model, tz_row, PlanColumn.Result) == "update"
    # ...until the entry goes back to it.
    assert model.setData(model.index(deploy_row, PlanColumn.Policy), "")
    assert text(model, deploy_row, PlanColumn.Result) == "update"
    assert dialog.import_button.isEnabled()
    assert dialog.import_button.text() == "Import 2 entries"
    # Other cells are not editable.
    assert not model.setData(model.index(deploy_row, PlanColumn.Id), "x")


def test_bulk_policy_for_selected_conflicts(qtbot: QtBot, ws_path: Path, tmp_path: Path) -> None:
    source = write_source(
        "ax-json", tmp_path, [replace(DEPLOY, content="new")], [replace(TZ, content="CET")]
    )
    dialog = ImportPreviewDialog(preview_of(ws_path, [source]), "skip")
    qtbot.addWidget(dialog)
    dialog.table.selectAll()
    keys = dialog._selected_conflicts()
    assert keys == [("skill", "deploy"), ("memory", "tz")]
    dialog.set_policies(keys, "overwrite")
    assert dialog.plan.summary()["update"] == 2
    dialog.set_policies(keys, None)
    assert dialog.plan.summary()["skip"] == 2


def test_show_filter(qtbot: QtBot, mixed: ImportPreview) -> None:
    dialog = ImportPreviewDialog(mixed, "skip")
    qtbot.addWidget(dialog)
    proxy = dialog.proxy
    counts = {}
    for label in ("Problems", "Conflicts", "Changes", "Unchanged and skipped", "All rows"):
        dialog.show_combo.setCurrentText(label)
        counts[label] = proxy.rowCount()
    plan = dialog.plan
    assert counts == {
        "Problems": len(plan.problems),
        "Conflicts": len(plan.conflicts),
        "Changes": len(plan.writes),
        "Unchanged and skipped": len(plan.unchanged) + len(plan.skipped),
        "All rows": len(plan.problems) + len(plan.items),
    }


def test_nothing_to_import_says_so(qtbot: QtBot, ws_path: Path, tmp_path: Path) -> None:
    source = write_source("ax-json", tmp_path, [DEPLOY], [TZ])
    dialog = ImportPreviewDialog(preview_of(ws_path, [source]), "overwrite")
    qtbot.addWidget(dialog)
    assert dialog.plan.summary()["unchanged"] == 2
    assert not dialog.import_button.isEnabled()
    assert dialog.reason_label.text() == NOTHING_TEXT
    assert not dialog.blocked_label.isVisibleTo(dialog)


def test_ask_returns_the_plan_the_user_imports(qtbot: QtBot, ws_path: Path, tmp_path: Path) -> None:
    source = write_source("ax-json", tmp_path, [replace(DEPLOY, content="new")], [])
    preview = preview_of(ws_path, [source])

    def choose_and_import() -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, ImportPreviewDialog)
        dialog.policy_combo.setCurrentIndex(dialog.policy_combo.findData("keep-both"))
        dialog.import_button.click()

    QTimer.singleShot(0, choose_and_import)
    plan = ImportPreviewDialog.ask(None, preview, "skip")
    assert plan is not None and plan.policy == "keep-both"
    assert [i.target_id for i in plan.writes] == ["deploy-2"]
    with Workspace.open(ws_path, read_only=True) as ws:
        assert raw(ws).skills.get("deploy") == DEPLOY  # the dialog itself writes nothing


def test_plan_models_pass_the_model_tester(
    qtmodeltester: ModelTester, mixed: ImportPreview
) -> None:
    model = ImportPlanModel(mixed.plan("keep-both"))
    qtmodeltester.check(model)
    proxy = PlanFilterModel()
    proxy.setSourceModel(model)
    proxy.set_show("Conflicts")
    qtmodeltester.check(proxy)
    assert model.rowCount(model.index(0, 0)) == 0
    assert model.data(QModelIndex()) is None
