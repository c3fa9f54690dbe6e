"""Live lint of the open workspace.

Linting is not cheap (≈0.1 s for the 16-skill sample, ≈7 s for 10,000 skills with the
competing-skills check), so it always runs on the task runner, a short pause after the
catalog changes. One lint job at a time: changes during a run mark the report dirty and
start one more run when it ends. A workspace switch forgets the running job, and results
of jobs the linter no longer waits for are dropped by job id.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from axmem_gui.core.errors import AxmemError
from axmem_gui.core.lint import (
    DEFAULT_BUDGET_TOKENS,
    Finding,
    LintOptions,
    LintReport,
    lint_catalog,
)
from axmem_gui.services.workspace import Workspace
from axmem_gui.ui.controller import WorkspaceController
from axmem_gui.ui.tasks import Job, JobContext, TaskRunner

#: Pause after the last change before linting again.
LINT_DELAY_MS = 300
#: Workspace setting: the token budget of the `### Available Skills` index.
BUDGET_KEY = "lint.budgetTokens"
BUDGET_RANGE = (50, 1_000_000)
#: Catalog changes that can change findings (scenario or session edits cannot).
LINTED_KINDS = frozenset({"*", "skills", "memories"})


@dataclass(frozen=True)
class LintOutcome:
    """A finished lint run: which workspace it read, the report, how long it took."""

    path: Path
    report: LintReport
    seconds: float
    by_entry: Mapping[tuple[str, str], tuple[Finding, ...]] = field(default_factory=dict)

    def for_entry(self, kind: str, entry_id: str) -> tuple[Finding, ...]:
        return self.by_entry.get((kind, entry_id), ())

    def errors_by_kind(self) -> Counter[str]:
        return Counter(f.kind for f in self.report.findings if f.severity == "error")


def _index(report: LintReport) -> dict[tuple[str, str], tuple[Finding, ...]]:
    grouped: dict[tuple[str, str], list[Finding]] = {}
    for f in report.findings:
        if f.entry_id is not None:
            grouped.setdefault((f.kind, f.entry_id), []).append(f)
    return {k: tuple(v) for k, v in grouped.items()}


def lint_job(path: Path, options: LintOptions) -> Job:
    def job(ctx: JobContext) -> LintOutcome:
        start = time.perf_counter()
        with Workspace.open(path, read_only=True) as ws:
            catalog = ws.catalog()
        ctx.check()
        report = lint_catalog(catalog, options)
        return LintOutcome(path, report, time.perf_counter() - start, _index(report))

    return job


def clamp_budget(value: object) -> int:
    """A usable budget from a stored setting (anything odd falls back to the default)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return DEFAULT_BUDGET_TOKENS
    try:
        number = int(value)
    except ValueError:
        return DEFAULT_BUDGET_TOKENS
    low, high = BUDGET_RANGE
    return min(max(number, low), high)


class LiveLinter(QObject):
    #: The newest LintOutcome, or None (no report yet for this workspace).
    outcome_changed = Signal(object)
    running_changed = Signal(bool)
    failed = Signal(str)

    def __init__(
        self,
        controller: WorkspaceController,
        runner: TaskRunner,
        delay_ms: int = LINT_DELAY_MS,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.controller = controller
        self.runner = runner
        self.outcome: LintOutcome | None = None
        self._job: int | None = None
        self._dirty = False
        self._budget_override: int | None = None
        self._stopped = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(delay_ms)
        self._timer.timeout.connect(self.run_now)
        controller.changed.connect(self._on_changed)
        controller.opened.connect(self._on_opened)
        runner.finished.connect(self._on_finished)
        runner.failed.connect(self._on_failed)
        runner.cancelled.connect(self._on_cancelled)

    # settings -----------------------------------------------------------------------
    def budget_tokens(self) -> int:
        if self._budget_override is not None:
            return self._budget_override
        ws = self.controller.workspace
        return clamp_budget(ws.settings.get(BUDGET_KEY, DEFAULT_BUDGET_TOKENS))

    def set_budget_tokens(self, tokens: int) -> None:
        tokens = clamp_budget(tokens)
        if tokens == self.budget_tokens():
            return
        ws = self.controller.workspace
        if ws.read_only:
            # Still lint with it; it just cannot be kept in a read-only file.
            self._budget_override = tokens
        else:
            try:
                ws.settings.set(BUDGET_KEY, tokens)
            except AxmemError as exc:
                self._budget_override = tokens
                self.failed.emit(f"Cannot save the token budget: {exc}")
        self.run_now()

    def options(self) -> LintOptions:
        return LintOptions(budget_tokens=self.budget_tokens())

    # running ------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._job is not None

    def schedule(self) -> None:
        self._timer.start()

    def stop(self) -> None:
        """No more runs (the window is closing; its workspace is about to close)."""
        self._stopped = True
        self._timer.stop()
        self._job = None

    def run_now(self) -> None:
        self._timer.stop()
        if self._stopped:
            return
        if self._job is not None:
            self._dirty = True
            return
        self._job = self.runner.submit(lint_job(self.controller.path, self.options()))
        self.running_changed.emit(True)

    def _on_changed(self, what: str) -> None:
        if what in LINTED_KINDS:
            self.schedule()

    def _on_opened(self) -> None:
        # The running job read the old workspace: forget it (its result is dropped).
        self._job = None
        self._dirty = False
        self._budget_override = None
        self.outcome = None
        self.outcome_changed.emit(None)
        self.run_now()

    def _job_done(self, job_id: int) -> bool:
        """True when `job_id` is the job this linter waits for (now over)."""
        if job_id != self._job:
            return False
        self._job = None
        return True

    def _again_if_dirty(self) -> None:
        if self._dirty:
            self._dirty = False
            self.run_now()
        else:
            self.running_changed.emit(False)

    def _on_finished(self, job_id: int, result: object) -> None:
        if not self._job_done(job_id):
            return
        if isinstance(result, LintOutcome) and result.path == self.controller.path:
            self.outcome = result
            self.outcome_changed.emit(result)
        self._again_if_dirty()

    def _on_failed(self, job_id: int, message: str) -> None:
        if not self._job_done(job_id):
            return
        self.failed.emit(f"Lint failed: {message}")
        self._again_if_dirty()

    def _on_cancelled(self, job_id: int) -> None:
        if self._job_done(job_id):
            self._again_if_dirty()
