#!/usr/bin/env python3
"""Catalog authoring speed (issue: catalog authoring). Runs headless (offscreen Qt).

- import of N SKILL.md folders through the import service (target: 10,000 in <= 10 s),
- opening a workspace of N memories to the first painted page of the memories view
  (target: 100,000 in <= 1 s),
- keystroke handling in the content editor with N skills in the workspace
  (target: <= 16 ms per key at 10,000 skills; the preview is debounced).

    python bench/catalog_bench.py [--json] [--folders 10000] [--memories 100000]
        [--skills 10000] [--keys 200]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("AXMEM_SETTINGS_DIR", tempfile.mkdtemp(prefix="axmem-bench-settings-"))

from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.services.transfer import import_paths
from axmem_gui.services.workspace import init_workspace, open_workspace
from axmem_gui.store import Workspace
from axmem_gui.ui.catalog.feature import CATALOG

GUIDE = (
    "## When to use\n\nBefore every production change.\n\n## Steps\n\n"
    "1. Check the deploy window.\n2. Run the smoke tests.\n3. Announce in #releases.\n"
)


def bench_import(folders: int, tmp: Path) -> dict[str, Any]:
    root = tmp / "skills"
    root.mkdir()
    for i in range(folders):
        folder = root / f"skill-{i:05d}"
        folder.mkdir()
        (folder / "SKILL.md").write_text(
            f"---\nname: Skill {i}\ndescription: Guide number {i} for the release team\n"
            f"license: Apache-2.0\n---\n\n# Skill {i}\n\n{GUIDE}",
            encoding="utf-8",
        )
    ws = init_workspace(tmp / "import.axmem")
    started = time.perf_counter()
    plan, result = import_paths(ws, [root], "skip")
    seconds = time.perf_counter() - started
    assert result is not None, plan.summary()
    count = ws.catalog.count("skills")
    ws.close()
    assert count == folders, (count, folders)
    return {"folders": folders, "seconds": round(seconds, 2), "target_s": 10.0}


def _fill(path: Path, skills: int, memories: int) -> None:
    with Workspace.open(path, create=True) as ws, ws.transaction():
        for i in range(skills):
            ws.skills.upsert(Skill(f"skill-{i:05d}", f"Skill {i}", f"Guide {i}", GUIDE))
        for i in range(memories):
            ws.memories.upsert(Memory(f"mem-{i:06d}", f"Fact number {i} about the service."))


def _window(path: Path) -> Any:
    from PySide6.QtGui import QUndoStack

    from axmem_gui.ui.controller import WorkspaceController
    from axmem_gui.ui.main_window import MainWindow
    from axmem_gui.ui.settings import AppSettings
    from axmem_gui.ui.wiring import install_features

    controller = WorkspaceController(open_workspace(path))
    window = MainWindow(controller, AppSettings(), QUndoStack(), open_workspace, init_workspace)
    install_features(window)
    return window, controller


def bench_open(memories: int, tmp: Path) -> dict[str, Any]:
    from PySide6.QtWidgets import QApplication

    path = tmp / "open.axmem"
    _fill(path, 0, memories)
    app = QApplication.instance() or QApplication([])
    started = time.perf_counter()
    window, controller = _window(path)
    window.show_section("memories")
    window.show()
    app.processEvents()
    window.grab()  # the first painted page
    seconds = time.perf_counter() - started
    rows = window.feature(CATALOG).pages["memories"].model.rowCount()
    window.close()
    controller.close()
    return {"memories": memories, "seconds": round(seconds, 3), "rows_loaded": rows,
            "target_s": 1.0}


def bench_keys(skills: int, keys: int, tmp: Path) -> dict[str, Any]:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    path = tmp / "keys.axmem"
    _fill(path, skills, 0)
    app = QApplication.instance() or QApplication([])
    window, controller = _window(path)
    window.show_section("skills")
    window.show()
    page = window.feature(CATALOG).pages["skills"]
    page.select_id(f"skill-{skills // 2:05d}")
    app.processEvents()
    editor = page.form.content.edit
    editor.setFocus()
    editor.moveCursor(editor.textCursor().MoveOperation.End)
    times = []
    for i in range(keys):
        key = Qt.Key.Key_A + (i % 26)
        started = time.perf_counter()
        QTest.keyClick(editor, key)
        app.processEvents()
        times.append((time.perf_counter() - started) * 1000)
    QTest.qWait(600)  # let the debounced commit and preview run once, outside the timing
    window.close()
    controller.close()
    times.sort()
    return {
        "skills": skills,
        "keys": keys,
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(times[int(len(times) * 0.95) - 1], 2),
        "max_ms": round(times[-1], 2),
        "target_ms": 16.0,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folders", type=int, default=10_000)
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--skills", type=int, default=10_000)
    parser.add_argument("--keys", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="axmem-bench-") as tmp:
        report = {
            "import_skill_folders": bench_import(args.folders, Path(tmp)),
            "open_to_first_page": bench_open(args.memories, Path(tmp)),
            "editor_keystroke": bench_keys(args.skills, args.keys, Path(tmp)),
        }
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        print()
    else:
        for name, figures in report.items():
            print(f"{name}: {figures}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
