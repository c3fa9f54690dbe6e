"""What the cyclic garbage collector walks (`ui/collector.py`): a catalog's entries, a lint
report's findings and the big containers holding them are untracked (`retire`), so a full
collection on the GUI thread walks what can hold a cycle, not the catalog; and a job that
builds a big result leaves it frozen, not rescanned by the GUI thread's middle-generation
collections. Asserted by `gc.is_tracked` and by counting collections, never by timing."""

from __future__ import annotations

import gc
import threading
import time
import weakref
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from axmem_gui.core.catalog import Catalog, Memory, Skill
from axmem_gui.core.lint.model import Finding, finding
from axmem_gui.ui import collector
from axmem_gui.ui.collector import COLLECTOR, RECORD_TYPES
from axmem_gui.ui.lint.install import LINT
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.retrieval.feature import RETRIEVAL
from axmem_gui.ui.tasks import JobContext, TaskRunner
from tests.helpers.store import raw
from tests.ui.conftest import WindowFactory
from tests.ui.test_catalog_scale import MEMORIES, SKILLS, _idle, big_path  # noqa: F401


def _memories(n: int) -> list[Memory]:
    return [Memory(f"m{i}", f"content {i}", ("tag",)) for i in range(n)]


def test_retire_untracks_records_and_the_tuples_and_dicts_that_hold_only_them() -> None:
    memories = _memories(50)
    skills = [Skill(f"s{i}", f"Skill {i}", "desc") for i in range(5)]
    findings = tuple(
        finding("empty-description", "skill", s.id, "no description", "write one")
        for s in skills
    )
    held = tuple(memories)
    by_id = {m.id: m for m in memories}
    a_list = list(memories)
    assert all(map(gc.is_tracked, memories)) and gc.is_tracked(held) and gc.is_tracked(by_id)

    assert COLLECTOR.retire(held) == len(memories) + 1
    assert not any(map(gc.is_tracked, memories)) and not gc.is_tracked(held)
    # CPython keeps a dict of (untracked) instances tracked: `retire` does not.
    assert gc.is_tracked(by_id)
    assert COLLECTOR.retire(by_id) == 1 and not gc.is_tracked(by_id)
    # A list is mutable and never untracked by CPython: left as it is.
    assert COLLECTOR.retire(a_list) == 0 and gc.is_tracked(a_list)
    # Findings, and tuples of them (a report's per-entry tables).
    table = {s.id: (f,) for s, f in zip(skills, findings, strict=True)}
    COLLECTOR.retire(findings)
    assert COLLECTOR.retire(table) == len(skills) + 1
    assert not any(map(gc.is_tracked, findings)) and not gc.is_tracked(table)
    # Catalogs: entries and both tuples.
    catalog = Catalog(skills=tuple(skills), memories=tuple(_memories(3)))
    COLLECTOR.retire_catalog(catalog)
    assert not gc.is_tracked(catalog.skills) and not gc.is_tracked(catalog.memories)
    assert not any(map(gc.is_tracked, (*catalog.skills, *catalog.memories)))


def test_retire_leaves_alone_whatever_could_hold_a_cycle() -> None:
    class Other:
        pass

    other = Other()
    mixed = (Memory("a", "b"), other)
    holds_list = {"a": Memory("a", "b"), "b": [1]}
    assert COLLECTOR.retire(mixed) == 1  # the memory only
    assert gc.is_tracked(other) and gc.is_tracked(mixed)
    COLLECTOR.retire(holds_list)
    assert gc.is_tracked(holds_list) and gc.is_tracked(holds_list["b"])
    # A retired dict given a tracked value is tracked again (by CPython itself), so a
    # cycle through it is still found.
    entries = {m.id: m for m in _memories(3)}
    COLLECTOR.retire(entries)
    assert not gc.is_tracked(entries)
    cycle: list[object] = [entries]
    entries["cycle"] = cycle  # type: ignore[assignment]
    assert gc.is_tracked(entries)
    assert {Skill, Memory, Finding} == RECORD_TYPES


def test_retired_records_are_still_freed_by_reference_counting() -> None:
    class Payload:
        pass

    payload = Payload()
    gone = weakref.ref(payload)
    memory = Memory("m", "c", extra={"payload": payload})
    COLLECTOR.retire((memory,))
    assert not gc.is_tracked(memory)
    del payload, memory
    assert gone() is None  # no collection needed


def test_the_window_keeps_no_tracked_record_of_its_catalog_or_lint_report(
    make_window: WindowFactory, big_path: Path, qtbot: QtBot  # noqa: F811
) -> None:
    """At a small scale of the bench's workspace: after start-up's jobs and after an edit,
    no entry of the catalog the views show and no finding of the lint report is walked by
    the collector, and no tracked container holds many of them (on the old code: all of
    them tracked, in a dozen tracked containers)."""
    win: MainWindow = make_window(big_path)
    qtbot.waitUntil(lambda: _idle(win), timeout=60_000)
    _assert_nothing_big_tracked(win)

    # An edit: the index and lint are patched, what they keep is retired again.
    state = win.feature(RETRIEVAL).state
    linter = win.feature(LINT).linter
    before = linter.outcome
    memory = state.live.entry("memories", "mem:deploy-0")
    assert isinstance(memory, Memory)
    raw(win.controller.workspace).memories.upsert(Memory(memory.id, memory.content + " zebrafinch"))
    win.controller.notify_changed("memories")
    qtbot.waitUntil(lambda: linter.outcome is not before and _idle(win), timeout=60_000)
    live = state.live.entry("memories", memory.id)
    assert live is not None and "zebrafinch" in live.content
    _assert_nothing_big_tracked(win)


def _assert_nothing_big_tracked(win: MainWindow) -> None:
    state = win.feature(RETRIEVAL).state
    outcome = win.feature(LINT).linter.outcome
    assert outcome is not None
    catalog = state.live.catalog()
    assert len(catalog.skills) >= SKILLS and len(catalog.memories) >= MEMORIES
    findings = outcome.report.findings
    assert len(findings) > SKILLS
    ours = {id(o) for o in (*catalog.skills, *catalog.memories, *findings)}
    # Every tracked object, frozen ones included.
    gc.unfreeze()
    try:
        tracked = gc.get_objects()
    finally:
        gc.freeze()
    try:
        assert not [o for o in tracked if id(o) in ours and type(o) in RECORD_TYPES]
        holders = [
            type(o).__name__
            for o in tracked
            if isinstance(o, tuple | list | dict | set)
            and len(o) >= SKILLS
            and sum(id(v) in ours for v in (o.values() if isinstance(o, dict) else o)) >= SKILLS
        ]
        assert not holders, holders
    finally:
        del tracked


def test_a_big_middle_generation_is_frozen_not_collected_on_the_gui_thread(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A job building a big result (like lint's 100,000 findings) whose pieces survive the
    GUI thread's young collections: the middle generation they grow is frozen once it
    passes `MIDDLE_FREEZE` instead of being rescanned by a generation-1 collection; the
    young garbage of each step still dies on the GUI thread, and a major follows at idle."""
    monkeypatch.setattr(collector, "MIDDLE_FREEZE", 20_000)
    monkeypatch.setattr(collector, "MAJOR_INTERVAL_S", 0.0)
    runner = TaskRunner(collect_interval_ms=0, idle_major_delay_ms=0)
    steps, kept_per_step, cycles_per_step = 40, 4_000, 1_000
    taken = threading.Semaphore(0)
    built: list[list[object]] = []
    gui_thread = threading.get_ident()
    middle_sizes: list[int] = []  # generation 1's size at each GUI-thread gen-1 collection
    freed: list[int] = []

    class Cycle:
        pass

    def job(ctx: JobContext) -> int:
        for step in range(steps):
            built.append([[step, i] for i in range(kept_per_step)])
            for _ in range(cycles_per_step):
                cycle = Cycle()
                cycle.me = cycle  # type: ignore[attr-defined]
            ctx.partial(step)
            if not taken.acquire(timeout=30):
                raise RuntimeError("the GUI thread stopped taking reports")
        return steps

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and threading.get_ident() == gui_thread:
            if info["generation"] == 1:
                middle_sizes.append(len(gc.get_objects(1)))
        elif phase == "stop" and threading.get_ident() == gui_thread:
            freed.append(info["collected"])

    runner.partial.connect(lambda _job, _step: taken.release())
    majors = COLLECTOR.majors
    gc.collect()
    gc.callbacks.append(on_gc)
    try:
        with qtbot.waitSignal(runner.finished, timeout=120_000):
            runner.submit(job)
        rows = {id(row) for step_rows in built for row in step_rows}
        scanned = sum(id(o) in rows for o in gc.get_objects())  # (frozen ones are not)
        QCoreApplication.sendPostedEvents()
    finally:
        gc.callbacks.remove(on_gc)
    # No generation-1 collection rescanned a middle generation past the bound (one step's
    # survivors may come on top of it before the next safe point sees it).
    assert all(size < 20_000 + 3 * kept_per_step for size in middle_sizes), middle_sizes
    # What was built got frozen on the way (long-lived: but for the last steps' rows, no
    # collection scans it), the cycles died on the GUI thread.
    assert len(rows) == steps * kept_per_step
    assert scanned < 20_000 + 3 * kept_per_step, scanned
    assert sum(freed) >= steps * cycles_per_step // 2
    qtbot.waitUntil(lambda: COLLECTOR.majors > majors, timeout=10_000)


def test_a_major_collection_waits_until_the_user_pauses(
    qtbot: QtBot, make_window: WindowFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An idle point's major collection (tens of ms at 100,000 memories) would be a
    hitch in a scroll: while the user works the window it waits, and runs once they have
    left it alone for `INPUT_QUIET_S`."""
    monkeypatch.setattr(collector, "INPUT_QUIET_S", 0.3)
    monkeypatch.setattr(collector, "MAJOR_INTERVAL_S", 0.0)
    win = make_window(features=())
    qtbot.waitUntil(lambda: win._after_paint is None, timeout=10_000)  # watching its input
    quiet_at_major: list[float] = []
    major = COLLECTOR.major

    def timed_major() -> None:
        quiet_at_major.append(time.monotonic() - COLLECTOR._last_input)
        major()

    monkeypatch.setattr(COLLECTOR, "major", timed_major)
    monkeypatch.setattr(COLLECTOR, "deferred", 1)  # workers froze something: a major is due
    window = win.windowHandle()
    assert window is not None
    before = COLLECTOR._last_input
    # through the window, as the user's keys come
    QTest.keyClick(window, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    assert COLLECTOR._last_input > before
    COLLECTOR.idle_point()
    assert quiet_at_major == []  # not now: the user just typed
    qtbot.waitUntil(lambda: bool(quiet_at_major), timeout=10_000)
    assert quiet_at_major[0] >= 0.3
    # With no input for that long, an idle point collects at once.
    monkeypatch.setattr(COLLECTOR, "deferred", 1)
    COLLECTOR.idle_point()
    assert len(quiet_at_major) == 2
