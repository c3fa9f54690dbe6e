"""Running retrieval suites in the GUI thread without freezing it.

Cases run against the window's live index (no index build per run: a 10,000-skill catalog
is searched in about a millisecond a call), in slices of at most `SLICE_MS`, with the event
loop running between slices. Starting a run cancels the one in progress, so reruns after
quick successive edits never pile up. Each suite's result is compared with its baseline:
the last recorded run, or, for a suite never recorded, the first run of this session.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import replace

from PySide6.QtCore import QObject, QTimer, Signal

from axmem_gui.core.errors import AxmemError
from axmem_gui.core.suites import (
    CaseResult,
    Suite,
    SuiteRunResult,
    ax_engine_label,
    compare_runs,
    evaluate_case,
)
from axmem_gui.services.suites import SuiteOutcome
from axmem_gui.ui.retrieval.state import RetrievalState

#: Longest stretch of work between two turns of the event loop.
SLICE_MS = 15.0


class SuiteRunner(QObject):
    progressed = Signal(int, int)  # done, total
    finished = Signal(list)  # list[SuiteOutcome]
    cancelled = Signal()

    def __init__(self, state: RetrievalState, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self._work: Iterator[None] | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._step)
        self.session_baselines: dict[str, SuiteRunResult] = {}
        self.last_run_ms = 0.0
        self.record_error = ""
        self._started = 0.0

    @property
    def running(self) -> bool:
        return self._work is not None

    def cancel(self) -> None:
        if self._work is not None:
            self._work = None
            self._timer.stop()
            self.cancelled.emit()

    def start(self, suites: Sequence[Suite], *, record: bool = False) -> None:
        """Run `suites` over the live catalog; with `record`, store the runs (they become
        the baselines of later runs)."""
        self.cancel()
        self._started = time.perf_counter()
        self._work = self._run(list(suites), record)
        self._timer.start()

    def run_now(self, suites: Sequence[Suite], *, record: bool = False) -> None:
        """Run to the end before returning (CLI-like use, tests)."""
        self.start(suites, record=record)
        while self._work is not None:
            self._step()

    def _step(self) -> None:
        work = self._work
        if work is None:
            return
        if not self.state.usable():
            self.cancel()
            return
        deadline = time.perf_counter() + SLICE_MS / 1000
        try:
            while time.perf_counter() < deadline:
                next(work)
        except StopIteration:
            return
        if self._work is work:
            self._timer.start()

    def _search(self, case_kind: str, searches: Sequence[str], loaded: Sequence[str]) -> list[str]:
        live = self.state.live
        if case_kind == "discover":
            return list(live.skill_search().discover(list(searches))[0].result_ids)
        already = [i.strip() for i in loaded]
        return list(live.memory_search().recall(list(searches), already)[0].result_ids)

    def _recorded(self, name: str) -> SuiteRunResult | None:
        try:
            return self.state.controller.workspace.suites.previous_run(name)
        except AxmemError:
            return None  # an unreadable old run: compare with this session's first run

    def _run(self, suites: list[Suite], record: bool) -> Iterator[None]:
        suites_service = self.state.controller.workspace.suites
        live = self.state.live
        known = {"discover": live.has_ids("skills"), "recall": live.has_ids("memories")}
        total = sum(len(s.cases) for s in suites)
        done = 0
        outcomes: list[SuiteOutcome] = []
        for suite in suites:
            results: list[CaseResult] = []
            for case in suite.cases:
                started = time.perf_counter()
                returned = self._search(case.kind, case.searches, case.loaded)
                result = evaluate_case(case, returned, known[case.kind])
                results.append(replace(result, seconds=round(time.perf_counter() - started, 6)))
                done += 1
                self.progressed.emit(done, total)
                yield
            run = SuiteRunResult(suite.name, tuple(results), ax_engine_label())
            baseline = self._recorded(suite.name) or self.session_baselines.get(suite.name)
            comparison = None if baseline is None else compare_runs(baseline, run)
            if baseline is None:
                self.session_baselines[suite.name] = run
            outcomes.append(SuiteOutcome(run, comparison))
        self.record_error = ""
        if record:
            try:
                suites_service.record_runs(outcomes)
            except AxmemError as exc:
                self.record_error = f"The run was not recorded: {exc}"
        self.last_run_ms = (time.perf_counter() - self._started) * 1000
        self._work = None
        self.finished.emit(outcomes)
