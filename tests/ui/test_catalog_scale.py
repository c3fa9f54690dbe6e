"""The app's steps of bench/app_bench.py at a small scale, asserting that no work of the
catalog's size runs on the GUI thread: the catalog is read, indexed (Ax and BM25) and
linted on the task runner; after an edit only the edited entry is re-read, re-indexed and
re-linted; the entry tables page by keyset. Counted calls, never timings."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from axmem_gui.core import lint as lint_package
from axmem_gui.core.ax import render as render_module
from axmem_gui.core.ax import simulate as simulate_module
from axmem_gui.core.ax.index import SearchIndex
from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.lint import budget as budget_module
from axmem_gui.core.lint.incremental import LintSession
from axmem_gui.services import live_search
from axmem_gui.services.bench import BenchKind
from axmem_gui.services.index_worker import IndexOffload, PartJob
from axmem_gui.services.live_search import LiveSearch
from axmem_gui.services.workspace import init_workspace
from axmem_gui.store import Workspace
from axmem_gui.store.entries import MemoryRepository, SkillRepository
from axmem_gui.store.fts import Bm25Index
from axmem_gui.ui.bench.feature import BENCH
from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.lint.install import LINT
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.preview.install import PREVIEW
from axmem_gui.ui.retrieval import state as retrieval_state
from axmem_gui.ui.retrieval.feature import RETRIEVAL
from axmem_gui.ui.suites.feature import SUITES
from tests.helpers.index_state import exact_state
from tests.helpers.index_worker import NEVER_ANSWERS, started_jobs
from tests.helpers.store import raw
from tests.ui.conftest import WindowFactory, calls_on_gui_thread

SKILLS = 300
MEMORIES = 3000
WORDS = ("deploy", "rollback", "canary", "vault", "token", "audit", "triage", "outage",
         "release", "schema", "budget", "review", "incident", "ledger", "shard", "replica")


class Calls:
    """Which instrumented functions ran, and on which thread."""

    def __init__(self) -> None:
        self.gui: Counter[str] = Counter()
        self.worker: Counter[str] = Counter()

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            if name in ("extend", "extend_columns"):
                # (self, docs): an empty index (a new SearchIndex) is no work
                docs: Any = args[1] if name == "extend_columns" else list(args[1])
                args = (args[0], docs)
                if not (docs.ids if name == "extend_columns" else docs):
                    return fn(*args, **kwargs)
            on_gui = threading.current_thread() is threading.main_thread()
            (self.gui if on_gui else self.worker)[name] += 1
            return fn(*args, **kwargs)

        return counted

    def total(self, name: str) -> int:
        return self.gui[name] + self.worker[name]


def _text(i: int, n: int) -> str:
    return " ".join(WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(n))


@pytest.fixture
def big_path(tmp_path: Path) -> Path:
    path = tmp_path / "big.axmem"
    ws = init_workspace(path, sample=True)
    with raw(ws).transaction():
        for i in range(SKILLS):
            raw(ws).skills.upsert(
                Skill(f"synthetic-{i}", f"Synthetic {_text(i, 2)}", _text(i, 6), _text(i, 40))
            )
        for i in range(MEMORIES):
            raw(ws).memories.upsert(Memory(f"mem:{WORDS[i % len(WORDS)]}-{i}", _text(i, 12)))
    ws.close()
    return path


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Calls:
    counted = Calls()
    for owner, name in (
        (SearchIndex, "extend_columns"),
        (SearchIndex, "extend"),
        (Workspace, "catalog"),
        (SkillRepository, "all"),
        (MemoryRepository, "all"),
        (SkillRepository, "page"),
        (MemoryRepository, "page"),
        (LintSession, "_load"),
        (Bm25Index, "search"),
        (LiveSearch, "ids"),
    ):
        monkeypatch.setattr(owner, name, counted.wrap(name, getattr(owner, name)))
    monkeypatch.setattr(
        lint_package, "lint_catalog", counted.wrap("lint_catalog", lint_package.lint_catalog)
    )
    for module in (live_search, retrieval_state):
        monkeypatch.setattr(
            module, "build_bm25_index", counted.wrap("build_bm25", module.build_bm25_index)
        )
    render = counted.wrap("render_skills_section", render_module.render_skills_section)
    for module in (simulate_module, budget_module):
        monkeypatch.setattr(module, "render_skills_section", render)
    # Lint's token budget renders the index too (on the runner): counted apart as well.
    monkeypatch.setattr(
        budget_module, "render_skills_section", counted.wrap("budget_render", render)
    )
    return counted


@pytest.fixture
def big_window(make_window: WindowFactory, big_path: Path, calls: Calls) -> MainWindow:
    del calls  # instrumented before the window exists: its start-up counts too
    return make_window(big_path)


def _idle(win: MainWindow) -> bool:
    state = win.feature(RETRIEVAL).state
    linter = win.feature(LINT).linter
    preview = win.feature(PREVIEW).panel
    return bool(
        state.ready
        and not state.pending
        and not preview.pending
        and linter.outcome is not None
        and not linter.running
        and not win.task_runner.busy
    )


def test_no_catalog_sized_work_on_the_gui_thread(
    big_window: MainWindow, calls: Calls, qtbot: QtBot
) -> None:
    win = big_window
    linter = win.feature(LINT).linter
    preview = win.feature(PREVIEW).panel
    qtbot.waitUntil(lambda: _idle(win), timeout=60000)

    # Start-up: the catalog was read once, indexed and linted, all on the task runner
    # (lint starts from the index's snapshot of the catalog).
    assert calls.worker["catalog"] == 1
    # Indexed once: skills and memories, bulk path, by the retrieval state; lint borrows
    # that index and builds none of its own.
    assert calls.worker["extend_columns"] == 2
    assert calls.total("extend_columns") + calls.total("extend") == 2
    assert calls.worker["_load"] == 1  # one full lint
    assert preview.section_text("skills")  # the preview is filled
    # Its skills index was rendered once (the stage shown), on a worker.
    assert calls.worker["render_skills_section"] - calls.worker["budget_render"] == 1
    # No BM25 index yet: only the bench's host-search column needs one.
    assert calls.total("build_bm25") == 0

    # The retrieval bench: Ax answers at once; BM25's index is built on the runner, and
    # its calls (FTS5 scores every document a word matches) run there too.
    bench = win.feature(BENCH).panel
    searches: tuple[tuple[BenchKind, str], ...] = (
        ("recall", "deploy rollback"),
        ("discover", "canary vault"),
    )
    for kind, search in searches:
        bench.set_kind(kind)
        bench.set_searches([search])
        bench.run()
        assert bench.result is not None and bench.result.rows
        qtbot.waitUntil(lambda: not bench.bm25_pending, timeout=30000)
        assert bench.result.bm25_rows
    assert calls.worker["build_bm25"] == 2
    assert calls.worker["search"] >= 2

    # The memories table, scrolled to the bottom: keyset pages, never OFFSET.
    win.show_section("memories")
    page = win.feature(CATALOG).pages["memories"]
    page.table.scrollToBottom()  # what a drag of the scroll bar to its end asks for
    assert page.model.rowCount() == page.model.total() > MEMORIES
    assert calls.total("page") == 0
    assert page.model.rows_skipped == 0

    # The skills filter and selecting a skill.
    win.show_section("skills")
    skills = win.feature(CATALOG).pages["skills"]
    reads_before = calls.total("catalog")
    for ch in "canar":
        qtbot.keyClick(skills.filter_edit, ch)
    with qtbot.waitSignal(skills.model.filter_applied, timeout=10000):
        qtbot.keyClick(skills.filter_edit, "y")
    assert 0 < skills.model.rowCount() < win.controller.counts().skills
    with qtbot.waitSignal(skills.model.filter_applied, timeout=10000):
        skills.filter_edit.clear()
    skills.table.selectRow(3)
    entry = skills.form.entry
    assert entry is not None

    # An edit of the description: the preview shows it, lint re-checks only what it can
    # change; nothing reads, indexes or lints the whole catalog again.
    qtbot.waitUntil(lambda: _idle(win), timeout=60000)
    builds = calls.total("extend_columns") + calls.total("extend")
    renders = calls.total("render_skills_section")
    lint_outcome = linter.outcome
    skills.form.description_edit.setFocus()
    skills.form.description_edit.end(False)
    for ch in " zebrafinch":
        qtbot.keyClick(skills.form.description_edit, ch)
    qtbot.waitUntil(lambda: "zebrafinch" in preview.section_text("skills"), timeout=10000)
    qtbot.waitUntil(lambda: linter.outcome is not lint_outcome and _idle(win), timeout=60000)
    assert calls.total("catalog") == reads_before
    assert calls.total("extend_columns") + calls.total("extend") == builds
    assert calls.total("_load") == 1 and calls.total("lint_catalog") == 0
    # The index text is rendered a bounded number of times per edit (one recompute: the
    # executor and the distiller's), not once per keystroke.
    assert calls.total("render_skills_section") - renders <= 4
    # A change another program made (no ids given): the catalog is re-read and diffed on
    # the task runner, and the GUI thread patches the one entry that differs.
    ws = win.controller.workspace
    changed = Memory("mem:deploy-0", "zebrafinch nests near the canary vault")
    raw(ws).memories.upsert(changed)
    state = win.feature(RETRIEVAL).state
    reads = calls.worker["catalog"]
    win.controller.notify_changed("memories")
    qtbot.waitUntil(lambda: _idle(win) and state.live.entry("memories", changed.id) == changed,
                    timeout=60000)
    assert calls.worker["catalog"] > reads
    assert calls.total("extend_columns") + calls.total("extend") == builds

    # None of the catalog-sized functions ever ran on the GUI thread.
    sized = (
        "catalog", "all", "extend_columns", "extend", "_load", "lint_catalog", "build_bm25",
        "search", "render_skills_section",
    )
    assert {name: calls.gui[name] for name in sized if calls.gui[name]} == {}

    # The retrieval suites run over the live index on the GUI thread, in slices: they ask
    # whether an id exists, and copy no list of every id.
    suites = win.feature(SUITES).page
    assert suites.suites()
    suites.outcomes.clear()
    suites.run(record=False)
    qtbot.waitUntil(lambda: not suites.runner.running and bool(suites.outcomes), timeout=60000)
    assert calls.gui["ids"] == 0

    # A new token budget lints from scratch, still over the shared index (no build).
    linter.set_budget_tokens(linter.budget_tokens() + 7)
    qtbot.waitUntil(lambda: calls.total("_load") == 2 and _idle(win), timeout=60000)
    assert calls.total("extend_columns") + calls.total("extend") == builds
    assert calls.gui["_load"] == 0


def test_a_big_catalog_is_indexed_partly_in_another_process_off_the_gui_thread(
    make_window: WindowFactory, big_path: Path, monkeypatch: pytest.MonkeyPatch, qtbot: QtBot
) -> None:
    """With the offload's threshold lowered to this catalog's size, the memories' tail is
    indexed by a child process while the task runner indexes the rest: the live index is
    the one a single process builds, and the GUI thread neither waits for the child nor
    merges its part."""
    monkeypatch.setattr(
        retrieval_state, "IndexOffload", partial(IndexOffload, min_chars=0, cpus=2)
    )
    merges = calls_on_gui_thread(monkeypatch, SearchIndex, "merge")
    waits = calls_on_gui_thread(monkeypatch, PartJob, "result")
    win = make_window(big_path, features=(CATALOG, RETRIEVAL, PREVIEW))
    state = win.feature(RETRIEVAL).state
    qtbot.waitUntil(lambda: state.ready and not win.task_runner.busy, timeout=60000)
    away = state.live.last_offload
    assert away is not None and away.domain == "memories" and not away.fell_back
    assert away.job.error is None
    assert merges == [False] and waits == [False]
    alone = LiveSearch(state.profile, state.live.catalog())
    assert [exact_state(state.live._skills.index), exact_state(state.live._memories.index)] == [
        exact_state(alone._skills.index),
        exact_state(alone._memories.index),
    ]
    assert win.feature(PREVIEW).panel.section_text("skills")


def test_closing_the_window_stops_an_index_worker_that_does_not_answer(
    make_window: WindowFactory, big_path: Path, monkeypatch: pytest.MonkeyPatch, qtbot: QtBot
) -> None:
    """A worker stopped (SIGSTOP, a debugger) while the index builds: closing the window
    cancels the build, which stops waiting and kills the worker (quitting waited for the
    job's whole timeout, ten minutes)."""
    started = started_jobs(monkeypatch)
    offload = partial(IndexOffload, min_chars=0, cpus=2, command=NEVER_ANSWERS)
    monkeypatch.setattr(retrieval_state, "IndexOffload", offload)
    win = make_window(big_path, features=(CATALOG, RETRIEVAL))
    qtbot.waitUntil(lambda: bool(started), timeout=60000)
    win.close()
    process = started[0]._process
    assert process is not None
    qtbot.waitUntil(lambda: process.poll() is not None, timeout=60000)
    qtbot.waitUntil(lambda: not win.task_runner.busy, timeout=60000)
    assert not win.feature(RETRIEVAL).state.ready


def test_opening_another_workspace_stops_the_index_build_of_the_last_one(
    make_window: WindowFactory,
    big_path: Path,
    sample_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    qtbot: QtBot,
) -> None:
    """The build of a workspace no longer open is cancelled, and its worker killed: it
    ran to its end beside the new one (a big → small → big switch was ready 5.4 s after
    the last open instead of 2.5 s)."""
    started = started_jobs(monkeypatch)
    monkeypatch.setattr(live_search, "PART_PATIENCE_S", 3600.0)  # only a cancel ends it
    # (the sample's text is under the threshold: indexed in this process)
    offload = partial(IndexOffload, min_chars=100_000, cpus=2, command=NEVER_ANSWERS)
    monkeypatch.setattr(retrieval_state, "IndexOffload", offload)
    win = make_window(big_path, features=(CATALOG, RETRIEVAL))
    qtbot.waitUntil(lambda: bool(started), timeout=60000)
    assert win.open_path(sample_path)
    process = started[0]._process
    assert process is not None
    qtbot.waitUntil(lambda: process.poll() is not None, timeout=60000)
    state = win.feature(RETRIEVAL).state
    qtbot.waitUntil(lambda: state.ready, timeout=60000)
    assert state.live.entry("memories", "mem:deploy-0") is None  # the sample's catalog
