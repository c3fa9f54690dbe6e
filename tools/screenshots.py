"""Regenerate the screenshots in docs/screenshots/ (offscreen, on a fresh sample workspace,
at 1366×768 less a laptop's panel and title bar): the main window, a recorded session, the
context map and the Evals page with two runs of the sample set on the offline scripted
models (through the evals service, as `axmem eval run --provider scripted` does). With
`--dark`, the same in the dark theme too (`*-dark.png`). `make screenshots` runs it.

    QT_QPA_PLATFORM=offscreen .venv/bin/python -m tools.screenshots [--dark] [OUT_DIR]
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

#: The window of a 1366×768 laptop (what the issue measured: 1350×693).
SIZE = (1350, 693)


def _until(app: object, done: Callable[[], bool], what: str, limit_s: float = 120.0) -> None:
    """Run the event loop until `done` (a tool, not a test: a limit names what hung)."""
    from PySide6.QtWidgets import QApplication

    assert isinstance(app, QApplication)
    end = time.monotonic() + limit_s
    while not done():
        if time.monotonic() > end:
            raise SystemExit(f"screenshots: gave up waiting for {what}")
        app.processEvents()
        time.sleep(0.01)
    for _ in range(20):  # the last layout and paint
        app.processEvents()


def _shoot(app: Any, window: Any, out: Path, suffix: str) -> None:
    """Every picture of one theme."""
    from axmem_gui.ui.bench.panel import BenchPanel
    from axmem_gui.ui.catalog.feature import CATALOG
    from axmem_gui.ui.evals import EVALS
    from axmem_gui.ui.sessions.controller import SESSIONS

    window.show_section("skills")
    window.feature(CATALOG).pages["skills"].select_id("release-checklist")
    bench = window.docks["benchDock"].widget()
    assert isinstance(bench, BenchPanel)
    bench.set_searches(["how do I ship a release", "rollback a bad deploy"])
    _until(app, lambda: bench.state.ready, "the search index")
    bench.run()
    # (and its BM25 column: the picture showed "BM25: indexing…" beside an empty table)
    _until(app, lambda: bench.result is not None and not bench.bm25_pending, "the bench's result")
    window.grab().save(str(out / f"main-window{suffix}.png"))

    # The sessions and context map pages show no docks (they belong to the catalog pages).
    window.show_section("sessions")
    viewer = window.feature(SESSIONS).open_session("sample-ops-assistant")
    _until(app, lambda: viewer is not None and viewer.isVisible(), "the session viewer")
    window.grab().save(str(out / f"session-viewer{suffix}.png"))
    window.show_section("contextmaps")
    _until(app, lambda: window.pages.built("contextmaps"), "the context map page")
    window.grab().save(str(out / f"context-map{suffix}.png"))
    window.show_section("evals")
    evals = window.feature(EVALS)
    _until(app, lambda: evals.page.matrix_model.rowCount() == 2, "the eval runs")
    window.grab().save(str(out / f"evals{suffix}.png"))


def main(argv: list[str]) -> int:
    dark = "--dark" in argv
    args = [a for a in argv if a != "--dark"]
    out = Path(args[0]) if args else Path("docs/screenshots")
    out.mkdir(parents=True, exist_ok=True)
    data = Path(tempfile.mkdtemp(prefix="axmem-shots-"))
    os.environ["AXMEM_DATA_DIR"] = str(data)
    os.environ["AXMEM_SETTINGS_DIR"] = str(data / "settings")

    from PySide6.QtGui import QUndoStack
    from PySide6.QtWidgets import QApplication

    from axmem_gui.core.providers import ProviderSettings
    from axmem_gui.services.workspace import init_workspace, open_workspace
    from axmem_gui.ui.controller import WorkspaceController
    from axmem_gui.ui.main_window import MainWindow
    from axmem_gui.ui.settings import AppSettings
    from axmem_gui.ui.theme import apply_theme
    from axmem_gui.ui.wiring import install_features

    path = data / "sample.axmem"
    init_workspace(path, sample=True).close()
    ws = open_workspace(path)
    for model in ("scripted-a", "scripted-b"):  # the matrix's two rows
        ws.evals.run(ws.evals.get_set("ops-triggers"), ProviderSettings("scripted", model))
    ws.close()

    app = QApplication.instance() or QApplication(["axmem-gui"])
    assert isinstance(app, QApplication)
    controller = WorkspaceController(open_workspace(path))
    settings = AppSettings()
    settings.set_welcome_dismissed(True)
    window = MainWindow(controller, settings, QUndoStack(), open_workspace, open_workspace)
    install_features(window)
    window.resize(*SIZE)
    window.show()

    for theme in ("light", "dark") if dark else ("light",):
        apply_theme(app, theme)
        _shoot(app, window, out, "" if theme == "light" else "-dark")
    window.close()
    controller.close()
    print(f"screenshots written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
