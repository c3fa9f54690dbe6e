#!/usr/bin/env python3
"""Speed of the retrieval views (prompt preview, bench, suites) on a big catalog.

Builds a workspace with the sample plus synthetic skills (10,000 in all by default),
opens the main window offscreen with the retrieval views, and measures (ms):
- the live index build when the window opens,
- after editing one skill: the live refresh (edit hint: re-read and re-index that skill),
  and the preview update (simulate + set every section's text),
- after a change nobody announced: the refresh (re-read the catalog, diff, patch),
- the `### Available Skills` render alone (executor, warm),
- a bench run (2 search strings, Ax + BM25; the first run builds the FTS5 index),
- a suite rerun (the sample suite, 31 cases).

Targets on a 2-core machine: edit -> preview updated well under the 150 ms debounce
(refresh + preview <= 100 ms), bench <= 50 ms warm, suite rerun <= 200 ms.

    QT_QPA_PLATFORM=offscreen python bench/retrieval_views_bench.py [--skills 10000] [--json]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import QApplication

from axmem_gui.core.ax.render import StageConfig, render_skills_section
from axmem_gui.core.catalog import Skill
from axmem_gui.services.store_access import store_of
from axmem_gui.services.workspace import init_workspace, open_workspace
from axmem_gui.ui.bench.feature import BENCH
from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.controller import WorkspaceController
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.preview.install import PREVIEW
from axmem_gui.ui.retrieval.feature import RETRIEVAL
from axmem_gui.ui.scenarios.feature import SCENARIOS
from axmem_gui.ui.settings import AppSettings
from axmem_gui.ui.suites.feature import SUITES

WORDS = [
    "release", "deploy", "rollback", "incident", "checklist", "changelog", "semver", "canary",
    "flag", "migration", "database", "token", "rotate", "vault", "secrets", "status", "page",
    "customer", "outage", "triage", "escalate", "postmortem", "review", "access", "audit",
    "sdk", "npm", "pypi", "publish", "version", "approval", "window", "freeze",
]


def build_workspace(path: Path, total: int, seed: int) -> None:
    rng = random.Random(seed)
    opened = init_workspace(path, sample=True)
    ws = store_of(opened)  # generating: straight into the store
    extra = total - ws.skills.count()
    with ws.transaction():
        for i in range(max(0, extra)):
            name = " ".join(rng.choice(WORDS) for _ in range(3)).capitalize()
            description = " ".join(rng.choice(WORDS) for _ in range(8))
            content = "\n".join(
                " ".join(rng.choice(WORDS) for _ in range(12))
                for _ in range(rng.randint(3, 12))
            )
            ws.skills.upsert(Skill(f"syn-{i:05d}-{rng.choice(WORDS)}", name, description, content))
    opened.close()


def ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--skills", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    app = QApplication.instance() or QApplication(sys.argv[:1])
    folder = Path(tempfile.mkdtemp(prefix="axmem-bench-"))
    path = folder / "big.axmem"
    build_workspace(path, args.skills, args.seed)

    controller = WorkspaceController(open_workspace(path))
    window = MainWindow(
        controller, AppSettings(folder / "s.ini"), QUndoStack(), open_workspace, init_workspace
    )
    started = time.perf_counter()
    window.install((CATALOG, RETRIEVAL, PREVIEW, BENCH, SCENARIOS, SUITES))
    install_ms = ms(started)
    views = SimpleNamespace(
        state=window.feature(RETRIEVAL).state,
        preview=window.feature(PREVIEW).panel,
        bench=window.feature(BENCH).panel,
        suites=window.feature(SUITES).page,
    )
    window.resize(1400, 860)
    window.show()
    app.processEvents()
    views.preview.show_scenario("Ship 2.4.0", 1)
    out: dict[str, object] = {
        "skills": len(views.state.live.ids("skills")),
        "open_install_ms": install_ms,
        "open_index_build_ms": round(views.state.last_refresh_ms, 2),
        "skills_section_chars": views.preview.preview.section("skills").chars
        if views.preview.preview
        else 0,
    }

    ws = store_of(controller.workspace)  # an edit made elsewhere, announced by hand below
    session = window.feature(CATALOG).session
    refresh, preview, total = [], [], []
    for i in range(args.repeat):
        skill = ws.skills.get("changelog-writing")
        assert skill is not None
        ws.skills.upsert(dataclasses.replace(skill, name=f"Changelog writing {i}"))
        session.entries_changing.emit("skills", ["changelog-writing"], False)
        controller.changed.emit("skills")
        t0 = time.perf_counter()
        views.state.refresh_now()  # what the debounce timer calls; emits changed -> preview
        total.append(ms(t0))
        refresh.append(round(views.state.last_refresh_ms, 2))
        preview.append(round(views.preview.last_update_ms, 2))
        app.processEvents()
    out["edit_refresh_ms"] = statistics.median(refresh)
    out["edit_preview_update_ms"] = statistics.median(preview)
    out["edit_to_preview_total_ms"] = statistics.median(total)

    skill = ws.skills.get("style-guide")
    assert skill is not None
    ws.skills.upsert(dataclasses.replace(skill, description="Tone rules"))
    controller.changed.emit("skills")  # no hint: re-read and diff
    t0 = time.perf_counter()
    views.state.refresh_now()
    out["unannounced_change_total_ms"] = ms(t0)
    out["unannounced_refresh_ms"] = round(views.state.last_refresh_ms, 2)

    catalog = views.state.live.catalog()
    config = StageConfig(memories_mode=True, relevance_hints=True)
    render_skills_section(catalog.skills, "executor", views.state.profile, config)
    t0 = time.perf_counter()
    render_skills_section(catalog.skills, "executor", views.state.profile, config)
    out["render_available_skills_ms"] = ms(t0)

    views.bench.set_searches(["how do I ship a release", "rollback deploy"])
    views.bench.run()
    out["bench_first_run_ms"] = round(views.bench.last_run_ms, 2)
    runs = []
    for _ in range(args.repeat):
        views.bench.run()
        runs.append(views.bench.last_run_ms)
    out["bench_run_ms"] = round(statistics.median(runs), 2)

    suites = views.suites.suites()
    suite_runs = []
    for _ in range(args.repeat):
        views.suites.runner.run_now(suites)
        suite_runs.append(views.suites.runner.last_run_ms)
    out["suite_rerun_ms"] = round(statistics.median(suite_runs), 2)
    out["suite_cases"] = sum(len(s.cases) for s in suites)

    window.close()
    controller.close()
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        for key, value in out.items():
            print(f"{key:32} {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
