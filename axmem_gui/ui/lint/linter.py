"""Live lint of the open workspace.

Linting is not cheap (≈0.1 s for the 16-skill sample, ≈7 s for 10,000 skills with the
competing-skills check), so it always runs on the task runner, a short pause after the
catalog changes. One lint job at a time: changes during a run mark the report dirty and
start one more run when it ends. A workspace switch forgets the running job, and results
of jobs the linter no longer waits for are dropped by job id.

With an index source (the window's retrieval state), lint builds no index: each run
borrows the catalog the views show and the search indexes made of it (`IndexedCatalog`),
runs after the source took in an edit, and reports exactly that catalog. The source does
not patch its indexes while they are lent (the job gives them back as soon as it has
read what it needs), so the GUI thread never changes an index a worker reads.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, QTimer, Signal, SignalInstance

from axmem_gui.core.ax.profile import AxProfile
from axmem_gui.core.catalog import CATALOG_KINDS, Catalog
from axmem_gui.core.errors import AxmemError
from axmem_gui.core.lint import (
    Finding,
    LintOptions,
    LintReport,
)
from axmem_gui.core.lint.incremental import LintSession
from axmem_gui.core.lint.shared_index import IndexedCatalog
from axmem_gui.core.settings import clamp_budget
from axmem_gui.services.catalog import CatalogReader
from axmem_gui.ui.collector import COLLECTOR
from axmem_gui.ui.controller import WorkspaceController
from axmem_gui.ui.tasks import Job, JobContext, TaskRunner

#: Pause after the last change before linting again.
LINT_DELAY_MS = 300
#: Catalog changes that can change findings (scenario or session edits cannot).
LINTED_KINDS = frozenset({"*", *CATALOG_KINDS})


@dataclass(frozen=True)
class LintOutcome:
    """A finished lint run: which workspace it read, the report, how long it took."""

    path: Path
    report: LintReport
    seconds: float
    #: {kind: {entry id: positions of its findings in `report.findings`}}. Positions, not
    #: the findings: tuples of ints are untracked by the cyclic collector, while 100,000
    #: tuples of findings were 100,000 more objects every full collection scans; and
    #: one dict per kind rather than a (kind, id) tuple per entry.
    by_entry: Mapping[str, Mapping[str, tuple[int, ...]]] = field(default_factory=dict)
    #: What the next run patches (the runner's jobs use it one at a time).
    session: LintSession | None = field(default=None, compare=False, repr=False)
    #: Counted by the job (100,000 findings are not counted on the GUI thread).
    severity_counts: Mapping[str, int] = field(default_factory=dict)
    errors_per_kind: Mapping[str, int] = field(default_factory=dict)
    #: The catalog the report is of (None: the workspace as the job read it).
    catalog: Catalog | None = field(default=None, compare=False, repr=False)

    def session_options(self) -> LintOptions | None:
        return None if self.session is None else self.session.options

    def for_entry(self, kind: str, entry_id: str) -> tuple[Finding, ...]:
        findings = self.report.findings
        positions = self.by_entry.get(kind, {}).get(entry_id, ())
        return tuple(findings[i] for i in positions)

    def errors_by_kind(self) -> Counter[str]:
        if self.errors_per_kind or not self.report.findings:
            return Counter(self.errors_per_kind)
        return Counter(f.kind for f in self.report.findings if f.severity == "error")

    def counts(self) -> Mapping[str, int]:
        return self.severity_counts or self.report.counts()


def _index(report: LintReport) -> dict[str, dict[str, tuple[int, ...]]]:
    grouped: dict[str, dict[str, list[int]]] = {}
    for i, f in enumerate(report.findings):
        if f.entry_id is not None:
            grouped.setdefault(f.kind, {}).setdefault(f.entry_id, []).append(i)
    return {kind: {k: tuple(v) for k, v in ids.items()} for kind, ids in grouped.items()}


def lint_job(
    reader: CatalogReader,
    options: LintOptions,
    session: LintSession | None = None,
    changes: Mapping[str, set[str]] | None = None,
    catalog: Catalog | None = None,
) -> Job:
    """Lint the catalog `reader` reads. With the `session` of an earlier run (same workspace
    and options), or a `catalog` snapshot to start one from (the search index's: shared
    entries, no second read), only what changed since is linted again: the entries of
    `changes` ({kind: ids}, read alone), or, when `changes` is None (unknown), whatever
    differs in the catalog read afresh. Without either, the catalog is read and linted."""

    def job(ctx: JobContext) -> LintOutcome:
        start = time.perf_counter()
        with reader.session() as read:
            current = session
            pending = changes
            if current is None:
                base = catalog
                if base is None:
                    base, pending = read.snapshot(), {}
                    COLLECTOR.retire_catalog(base)
                ctx.check()
                current = LintSession(base, options)
            ctx.check()
            if pending is None:
                current.refresh(_retired(read.snapshot()))
            else:
                for kind, ids in pending.items():
                    edited = read.entries(kind, ids)
                    COLLECTOR.retire(edited.values())
                    if not current.patch(kind, edited):
                        current.refresh(_retired(read.snapshot()))
                        break
        return _outcome(reader.address.path, current, start, None)

    return job


def _outcome(
    path: Path, current: LintSession, start: float, catalog: Catalog | None
) -> LintOutcome:
    report = current.report
    index = _index(report)
    # Kept until the next report: taken out of the cyclic collector's walk.
    COLLECTOR.retire(report.findings)
    for held in (*index.values(), *current.held()):
        COLLECTOR.retire(held)
    errors: Counter[str] = Counter(f.kind for f in report.findings if f.severity == "error")
    return LintOutcome(
        path, report, time.perf_counter() - start, index, current,
        report.counts(), errors, catalog,
    )


def _retired(catalog: Catalog) -> Catalog:
    COLLECTOR.retire_catalog(catalog)
    return catalog


def shared_lint_job(
    path: Path,
    options: LintOptions,
    indexed: IndexedCatalog,
    session: LintSession | None = None,
    profile: AxProfile | None = None,
) -> Job:
    """Lint `indexed.catalog` with its lent indexes (given back before the job ends,
    whatever happens): from scratch, or patching the `session` of an earlier run (same
    workspace and options) where the catalog differs from the one it linted."""

    def job(ctx: JobContext) -> LintOutcome:
        start = time.perf_counter()
        try:
            ctx.check()
            if session is None:
                current = LintSession(indexed.catalog, options, profile, indexed=indexed)
            else:
                current = session
                current.sync(indexed)
        finally:
            indexed.release()
        return _outcome(path, current, start, indexed.catalog)

    return job


class _HintSource(Protocol):
    """What the catalog edit session offers: the ids an edit is about to change."""

    entries_changing: SignalInstance


class IndexSource(Protocol):
    """What lends the catalog and its search indexes (the retrieval state)."""

    changed: SignalInstance
    profile: AxProfile

    def lend(self) -> IndexedCatalog | None: ...


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
        source: IndexSource | None = None,
    ) -> None:
        super().__init__(parent)
        self.controller = controller
        self.runner = runner
        self.source = source
        self._release: Callable[[], None] | None = None  # of the indexes a job borrowed
        self.outcome: LintOutcome | None = None
        self._job: int | None = None
        self._dirty = False
        #: The last run's session (None: the next run lints from scratch) and the options
        #: it linted with; never touched while a job runs.
        self._session: LintSession | None = None
        self._session_options: LintOptions | None = None
        self._hinted: dict[str, set[str]] = {}  # ids an edit announced, not yet changed
        self._changes: dict[str, set[str]] | None = {}  # since the session; None: unknown
        self._budget_override: int | None = None
        self._stopped = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(delay_ms)
        self._timer.timeout.connect(self.run_now)
        if source is None:
            controller.changed.connect(self._on_changed)
        else:
            # Lint what the views show, once the source took an edit in.
            source.changed.connect(self._on_source_changed)
        controller.opened.connect(self._on_opened)
        runner.finished.connect(self._on_finished)
        runner.failed.connect(self._on_failed)
        runner.cancelled.connect(self._on_cancelled)

    # settings -----------------------------------------------------------------------
    def budget_tokens(self) -> int:
        if self._budget_override is not None:
            return self._budget_override
        return self.controller.workspace.settings.read().lint_budget_tokens

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
                ws.settings.set_lint_budget(tokens)
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

    def run_now(self, catalog: Catalog | None = None) -> None:
        """Lint now. `catalog`: a snapshot of the workspace's catalog taken since the last
        change this linter saw (the search index's), to start from instead of reading it."""
        self._timer.stop()
        if self._stopped:
            return
        if self._job is not None:
            self._dirty = True
            return
        options = self.options()
        session = self._session if options == self._session_options else None
        if self.source is not None:
            self._run_shared(options, session)
            return
        if session is not None:
            changes = self._changes
            catalog = None
        elif catalog is not None:
            changes = self._changes  # what changed after the snapshot, if anything
        else:
            changes = {}
        self._session, self._session_options = None, options  # the job owns it now
        self._changes = {}
        self._job = self.runner.submit(
            lint_job(self.controller.workspace.catalog.reader(), options, session, changes, catalog)
        )
        self.running_changed.emit(True)

    def _run_shared(self, options: LintOptions, session: LintSession | None) -> None:
        assert self.source is not None
        linted = self.outcome.catalog if self.outcome is not None else None
        indexed = self.source.lend()
        if indexed is None:
            return  # no index yet: the source's `changed` runs lint when it lands
        if session is not None and indexed.catalog is linted:
            indexed.release()  # nothing changed since the last run
            self._session = session
            return
        self._session, self._session_options = None, options  # the job owns it now
        self._release = indexed.release
        self._job = self.runner.submit(
            shared_lint_job(self.controller.path, options, indexed, session, self.source.profile)
        )
        self.running_changed.emit(True)

    def _on_source_changed(self) -> None:
        if self.outcome is None and self._job is None:
            self.run_now()  # the first report: as soon as the index is there
        else:
            self.schedule()

    def watch_edits(self, session: _HintSource) -> None:
        """Use the edit session's `entries_changing(kind, ids, structural)` as hints:
        then an edit re-lints only what it can change."""
        session.entries_changing.connect(self._on_entries_changing)

    def _on_entries_changing(self, kind: str, ids: list[str], structural: bool) -> None:
        del structural  # the session tells edits from additions itself
        if kind in ("skills", "memories"):
            self._hinted.setdefault(kind, set()).update(ids)

    def _on_changed(self, what: str) -> None:
        if what not in LINTED_KINDS:
            return
        hinted = self._hinted.pop(what, None)
        if what == "*" or hinted is None:
            self._changes = None  # unknown: the next run reads the catalog and diffs
        elif self._changes is not None:
            self._changes.setdefault(what, set()).update(hinted)
        self.schedule()

    def _on_opened(self) -> None:
        # The running job read the old workspace: forget it (its result is dropped; it
        # gives back what it borrowed itself).
        self._job = None
        self._release = None
        self._dirty = False
        self._session, self._session_options = None, None
        self._hinted.clear()
        self._changes = {}
        self._budget_override = None
        self.outcome = None
        self.outcome_changed.emit(None)
        if self.source is None:
            self.run_now()  # (with a source: when its new index lands)

    def _job_done(self, job_id: int) -> bool:
        """True when `job_id` is the job this linter waits for (now over)."""
        if job_id != self._job:
            return False
        self._job = None
        if self._release is not None:
            self._release()  # the job gave the indexes back already; this is a no-op
            self._release = None
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
            if self._session_options == result.session_options():
                self._session = result.session
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
