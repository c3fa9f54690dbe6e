"""Offscreen screenshots of the import preview (with conflicts and an error) and of the
skills view with the lint panel and the Lint dock.

    QT_QPA_PLATFORM=offscreen .venv/bin/python -m tools.transfer_screenshots OUT_DIR
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QEventLoop, Qt, QTimer
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import QApplication

from axmem_gui.core.catalog import Skill
from axmem_gui.services.workspace import OpenWorkspace, init_workspace, open_workspace
from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.controller import WorkspaceController
from axmem_gui.ui.lint.install import LINT
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.settings import AppSettings
from axmem_gui.ui.tasks import JobContext
from axmem_gui.ui.theme import apply_theme
from axmem_gui.ui.transfer.jobs import ImportPreview, plan_job
from axmem_gui.ui.transfer.preview_dialog import ImportPreviewDialog
from axmem_gui.ui.wiring import install_features
from tests.ui.transfer.conftest import write_source

SIZE = (1400, 860)


def wait(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def sources(work: Path, ws: OpenWorkspace) -> list[Path]:
    catalog = ws.catalog.snapshot()
    skills, memories = list(catalog.skills), list(catalog.memories)
    changed = [
        replace(skills[0], description=skills[0].description + " (v2)"),
        replace(skills[3], content="# Rollback\n\nNew procedure.\n"),
        Skill("api-versioning", "API versioning", "When and how to version the public API", "…"),
        Skill("load-testing", "Load testing", "Plan and run a load test before launch", "…"),
    ]
    team = write_source("ax-json", work / "team", changed, [replace(memories[0], content="x")])
    folder = write_source(
        "skills-dir",
        work / "vendor",
        [Skill("pdf-forms", "PDF forms", "Fill in PDF forms from data", "Steps.\n")],
        [],
    )
    bad = work / "team" / "notes.jsonl"
    bad.write_text(
        json.dumps({"id": "oncall-rota", "content": "Rota lives in PagerDuty"})
        + "\n"
        + json.dumps({"id": "vpn", "content": 42})
        + "\n",
        encoding="utf-8",
    )
    return [team, bad, folder]


def main(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication(["screenshots"])
    assert isinstance(app, QApplication)
    apply_theme(app, "light")
    work = Path(tempfile.mkdtemp(prefix="axmem-shots-"))
    path = work / "ops.axmem"
    init_workspace(path, sample=True).close()
    controller = WorkspaceController(open_workspace(path))
    window = MainWindow(
        controller, AppSettings(work / "s.ini"), QUndoStack(), open_workspace, init_workspace
    )
    install_features(window)
    window.resize(*SIZE)
    window.show()

    workspace = controller.workspace
    preview = plan_job(workspace.catalog.reader(), sources(work, workspace))(JobContext(1))
    assert isinstance(preview, ImportPreview)
    dialog = ImportPreviewDialog(preview, "skip", window)
    dialog.set_entry_policy("skill", workspace.catalog.snapshot().skills[3].id, "keep-both")
    dialog.resize(*SIZE)
    dialog.show()
    wait(300)
    shot = out / "import-preview.png"
    dialog.grab().save(str(shot))
    print(shot)
    dialog.close()

    window.show_section("skills")
    window.feature(CATALOG).pages["skills"].select_id("postmortemTemplate")
    lint = window.feature(LINT)
    lint.show_dock()
    window.resizeDocks([window.docks["lintDock"]], [200], Qt.Orientation.Vertical)
    for _ in range(100):
        wait(50)
        if lint.linter.outcome is not None and not lint.linter.running:
            break
    wait(200)
    shot = out / "skills-lint.png"
    window.grab().save(str(shot))
    print(shot)
    window.close()
    controller.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/axmem-shots")))
