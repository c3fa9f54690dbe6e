"""The live catalog the retrieval views share (preview, bench, scenarios, suites).

One `LiveSearch` per window, refreshed shortly after catalog edits (debounced): when the
edit session says which entries an edit touched, only those are re-read and re-indexed;
otherwise (import, another program, opening a workspace) the catalog is re-read and
diffed, so the index is still only patched where entries differ.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from PySide6.QtCore import QObject, QTimer, Signal, SignalInstance

from axmem_gui.core.ax.profile import AxProfile, load_profile
from axmem_gui.core.catalog import CATALOG_KINDS, Catalog
from axmem_gui.core.errors import AxmemError
from axmem_gui.core.lint.shared_index import IndexedCatalog
from axmem_gui.services.bench import Bm25Index, Bm25Row, bm25_rows
from axmem_gui.services.index_worker import IndexOffload
from axmem_gui.services.live_search import LiveSearch, build_bm25_index
from axmem_gui.ui.collector import COLLECTOR
from axmem_gui.ui.controller import WorkspaceController
from axmem_gui.ui.tasks import JobContext, TaskRunner

#: Catalog edits arriving within this many ms are applied together.
REFRESH_DEBOUNCE_MS = 150
#: A re-read catalog that differs in more entries than this is indexed afresh on the task
#: runner rather than patched entry by entry on the GUI thread.
MAX_PATCH = 500


class _HintSource(Protocol):
    """What the catalog edit session offers: the ids an edit is about to change."""

    entries_changing: SignalInstance


class RetrievalState(QObject):
    """Owns the window's `LiveSearch`; `changed` fires after it took in new edits."""

    changed = Signal()
    #: A domain's BM25 index landed (built on the task runner).
    bm25_ready = Signal(str)
    #: A BM25 call of `search_bm25` finished: (its ticket, the rows; () when it failed).
    bm25_rows_ready = Signal(int, object)
    #: The catalog an index is being built of, as soon as it is read (before `changed`):
    #: a view may start on what needs no index (the preview's skills section).
    catalog_read = Signal(object)
    #: The catalog could not be read to index it (a damaged workspace): the message.
    failed = Signal(str)

    def __init__(
        self,
        controller: WorkspaceController,
        profile: AxProfile | None = None,
        parent: QObject | None = None,
        runner: TaskRunner | None = None,
        offload: IndexOffload | None = None,
    ) -> None:
        """`offload`: when to index part of a big catalog in another process (default:
        from 4 million characters of text, on a machine with two CPUs or more)."""
        super().__init__(parent)
        self.controller = controller
        self.offload = IndexOffload() if offload is None else offload
        self.profile = profile or load_profile()
        #: Empty until the first index build lands; `ready` says when it has.
        self.live = LiveSearch(self.profile, on_kept=COLLECTOR.retire)
        self.ready = False
        #: Why the last index build failed (the catalog cannot be read), until the next.
        self.failure: str | None = None
        self.last_refresh_ms = 0.0
        self._runner = runner
        self._build_job: int | None = None
        #: BM25 builds under way: job id -> (domain, the LiveSearch it is for).
        self._bm25_jobs: dict[int, tuple[str, LiveSearch]] = {}
        self._bm25_calls: set[int] = set()
        self._hinted: dict[str, set[str]] = {}  # ids announced, not yet notified
        self._patch: dict[str, set[str]] = {}  # ids to re-read at the next refresh
        self._full = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REFRESH_DEBOUNCE_MS)
        self._timer.timeout.connect(self.refresh_now)
        controller.changed.connect(self._on_changed)
        controller.opened.connect(self._on_opened)
        if runner is not None:
            runner.partial.connect(self._on_build_partial)
            runner.finished.connect(self._on_build_finished)
            runner.failed.connect(self._on_build_failed)
            runner.finished.connect(self._on_bm25_finished)
            runner.failed.connect(self._on_bm25_failed)
        #: Until `start()`: the first build waits (see RetrievalFeature).
        self._started = False
        #: The job re-reading and diffing the catalog, and its lease on the index.
        self._reread_job: int | None = None
        self._reread_release: Callable[[], None] | None = None
        if runner is not None:
            runner.finished.connect(self._on_reread_finished)
            runner.failed.connect(self._on_reread_failed)
            runner.cancelled.connect(self._on_reread_cancelled)

    # the first index ----------------------------------------------------------------
    def _build(self) -> None:
        """Index the catalog: on the task runner when there is one, so opening a large
        workspace paints at once; the views fill in when the index lands."""
        self.ready = False
        self.failure = None
        if self._runner is None:
            self._build_here()
            return
        if self._build_job is not None:  # of a catalog no longer wanted: it stops early
            self._runner.cancel(self._build_job)
        reader = self.controller.workspace.catalog.reader()
        profile, offload = self.profile, self.offload

        def job(ctx: JobContext) -> LiveSearch:
            catalog = reader.read()
            COLLECTOR.retire_catalog(catalog)  # kept as long as the index: never walked
            ctx.check()
            ctx.partial(catalog)  # `catalog_read`
            return LiveSearch(profile, catalog, COLLECTOR.retire, offload, ctx.check)

        self._full, self._patch = False, {}
        self._build_job = self._runner.submit(job)

    def _build_here(self) -> None:
        started = time.perf_counter()
        catalog = self.controller.workspace.catalog.snapshot()
        COLLECTOR.retire_catalog(catalog)
        self.live = LiveSearch(self.profile, catalog, COLLECTOR.retire, self.offload)
        self.last_refresh_ms = (time.perf_counter() - started) * 1000
        self.ready = True
        self.changed.emit()

    def _on_build_partial(self, job_id: int, value: object) -> None:
        if job_id == self._build_job and isinstance(value, Catalog):
            self.catalog_read.emit(value)

    def _on_build_finished(self, job_id: int, result: object) -> None:
        if job_id != self._build_job or not isinstance(result, LiveSearch):
            return
        self._build_job = None
        self.live = result
        self.ready = True
        if self._full or self._patch:
            self._full = True  # edits arrived while building: re-read and diff once
            self._timer.start()
        self.changed.emit()
        # No BM25 index here: the bench asks for it when it is first used (1.7 s of CPU at
        # 10,000 skills / 100,000 memories that only its host-search column needs).

    # the BM25 index (the bench's host-search column) ------------------------------------
    def has_bm25(self, domain: str) -> bool:
        """The domain's BM25 index is there (or is built in place when asked: no runner)."""
        return self.live.has_bm25(domain) or self._runner is None

    def ensure_bm25(self, domain: str) -> bool:
        """True when the domain's BM25 index is there; otherwise start building it on
        the task runner (once) and emit `bm25_ready(domain)` when it lands. Building it
        takes seconds for a large catalog: never on the GUI thread when there is a runner.
        Nothing builds it before the bench's first run asks: only the bench's host-search
        column uses it."""
        if self.live.has_bm25(domain) or self._runner is None:
            return True
        if any(d == domain and live is self.live for d, live in self._bm25_jobs.values()):
            return False
        version, entries = self.live.bm25_snapshot(domain)

        def job(ctx: JobContext) -> tuple[str, int, Bm25Index]:
            ctx.check()
            return domain, version, build_bm25_index(entries)

        self._bm25_jobs[self._runner.submit(job)] = (domain, self.live)
        return False

    def search_bm25(
        self,
        domain: str,
        queries: Sequence[str],
        loaded: Sequence[str],
        per_string: int,
        ax_ids: Iterable[str],
    ) -> int | None:
        """The bench's BM25 call on the task runner (FTS5 scores every document a word
        matches: tens of milliseconds per string on 100,000 memories). Returns the ticket
        `bm25_rows_ready` will carry, or None without a runner (call `bm25_call` here).
        Call only once `ensure_bm25(domain)` said the index is there."""
        if self._runner is None:
            return None
        index = self.live.bm25(domain)
        queries, loaded, ax = tuple(queries), tuple(loaded), tuple(ax_ids)

        def job(ctx: JobContext) -> tuple[Bm25Row, ...]:
            ctx.check()
            return bm25_rows(index, queries, loaded, per_string, ax)

        ticket = self._runner.submit(job)
        self._bm25_calls.add(ticket)
        return ticket

    def _on_bm25_finished(self, job_id: int, result: object) -> None:
        if job_id in self._bm25_calls:
            self._bm25_calls.discard(job_id)
            self.bm25_rows_ready.emit(job_id, result if isinstance(result, tuple) else ())
            return
        built_for = self._bm25_jobs.pop(job_id, None)
        if built_for is None or not isinstance(result, tuple):
            return
        domain, live = built_for
        _domain, version, index = result
        if not isinstance(index, Bm25Index):
            return
        if live is not self.live:
            index.close()  # of another workspace's catalog (opened meanwhile)
            return
        if self.live.adopt_bm25(domain, version, index):
            self.bm25_ready.emit(domain)
        else:
            self.ensure_bm25(domain)  # the catalog changed meanwhile: build it again

    def _on_bm25_failed(self, job_id: int, message: str) -> None:
        del message
        if job_id in self._bm25_calls:
            self._bm25_calls.discard(job_id)
            self.bm25_rows_ready.emit(job_id, ())
            return
        built_for = self._bm25_jobs.pop(job_id, None)
        if built_for is None or self.controller.is_closed:
            return
        domain, live = built_for
        if live is self.live:
            self.live.bm25(domain)  # index here rather than show no BM25 at all
            self.bm25_ready.emit(domain)

    def _on_build_failed(self, job_id: int, message: str) -> None:
        if job_id != self._build_job:
            return
        self._build_job = None
        if self.controller.is_closed:
            return
        try:
            self._build_here()  # e.g. the file could not be opened a second time
        except AxmemError as exc:  # damage past what opening the workspace checks
            del message  # the same refusal, read here
            self.failure = str(exc)
            self.failed.emit(self.failure)

    def watch_edits(self, session: _HintSource) -> None:
        """Use the edit session's `entries_changing(kind, ids, structural)` as hints."""
        session.entries_changing.connect(self._on_entries_changing)

    # notifications ------------------------------------------------------------------
    def _on_entries_changing(self, kind: str, ids: list[str], structural: bool) -> None:
        del structural  # a patch handles added and removed ids too
        if kind in CATALOG_KINDS:
            self._hinted.setdefault(kind, set()).update(ids)

    def _on_changed(self, what: str) -> None:
        if what == "*":
            self._full = True
        elif what in CATALOG_KINDS:
            hinted = self._hinted.pop(what, None)
            if hinted is None:
                self._full = True  # changed without saying what: re-read and diff
            else:
                self._patch.setdefault(what, set()).update(hinted)
        else:
            return
        self._timer.start()

    def start(self) -> None:
        """Build the first index (once). The feature calls this after the window's first
        paint: a job started before shares the GIL with the rest of start-up (at 10,000
        skills it delayed the first paint by about 0.2 s)."""
        if not self._started:
            self._started = True
            self._build()

    def _on_opened(self) -> None:
        if not self._started:
            return  # start() builds the index of the workspace open then
        self._hinted.clear()
        self._patch.clear()
        self._timer.stop()
        self._drop_bm25_builds()  # of the catalog of the workspace open before
        self._build()

    def _drop_bm25_builds(self) -> None:
        if self._runner is not None:
            for job_id in list(self._bm25_jobs):
                self._runner.cancel(job_id)
        self._bm25_jobs.clear()

    @property
    def runner(self) -> TaskRunner | None:
        """The window's task runner (None: everything runs in place, as in some tests)."""
        return self._runner

    def lend(self) -> IndexedCatalog | None:
        """The catalog the views show and its search indexes, lent to a reader on the task
        runner until it calls `release()` (edits are taken in after that); None until the
        first index is built."""
        if not self.usable():
            return None
        return self.live.lend()

    @property
    def pending(self) -> bool:
        """Edits are still to be taken in (debounced, or the catalog is being re-read)."""
        return self._timer.isActive() or self._reread_job is not None

    def stop(self) -> None:
        """Drop a pending refresh and build (the window is closing)."""
        self._timer.stop()
        self._started = True  # a start() still to come builds nothing
        if self._build_job is not None and self._runner is not None:
            self._runner.cancel(self._build_job)
        self._build_job = None
        if self._reread_job is not None and self._runner is not None:
            self._runner.cancel(self._reread_job)
        self._end_reread()
        self._drop_bm25_builds()

    def usable(self) -> bool:
        """False once the workspace is closed. Deferred work (debounced refreshes, suite
        slices) checks this first: a window's workspace may be closed while its timers
        are still pending (at shutdown, or when the owner closes it before the window)."""
        return self.ready and not self.controller.is_closed

    # refreshing ---------------------------------------------------------------------
    def refresh_now(self) -> None:
        self._timer.stop()
        if not self.ready:
            self._full = self._full or bool(self._patch)
            return  # the build under way reads the catalog as it is now
        if not self.usable():
            return
        if self.live.gate.busy or self._reread_job is not None:
            # Lint is reading the indexes on the task runner, or the catalog is being
            # re-read (edits made since are applied after it): patch once that is done.
            self._timer.start()
            return
        started = time.perf_counter()
        catalog_service = self.controller.workspace.catalog
        full, patch = self._full, self._patch
        self._full, self._patch = False, {}
        if not full:
            for kind, ids in patch.items():
                changes = catalog_service.entries(kind, ids)
                COLLECTOR.retire(changes.values())
                if not self.live.patch(kind, changes):
                    full = True
                    break
        if full:
            if self._runner is not None:
                self._reread()  # `changed` fires when its patch is in
                return
            catalog = catalog_service.snapshot()
            COLLECTOR.retire_catalog(catalog)
            self.live.refresh(catalog)
        self.last_refresh_ms = (time.perf_counter() - started) * 1000
        self.changed.emit()

    def _reread(self) -> None:
        """Re-read the catalog and diff it with the live one on the task runner (at
        100,000 memories: most of a second to read, a tenth to diff); the GUI thread then
        patches only the entries that differ, or, if too many differ, a new index is built
        on the runner as at start-up."""
        assert self._runner is not None
        reader, live = self.controller.workspace.catalog.reader(), self.live
        release = live.gate.lend()  # the diff reads the live entries: no patch meanwhile

        def job(ctx: JobContext) -> tuple[LiveSearch, Catalog, dict[str, Any]]:
            try:
                catalog = reader.read()
                COLLECTOR.retire_catalog(catalog)
                ctx.check()
                return live, catalog, live.diff(catalog)
            finally:
                release()

        self._reread_release = release
        self._reread_job = self._runner.submit(job)

    def _end_reread(self) -> None:
        if self._reread_release is not None:
            self._reread_release()  # a job cancelled before it ran never released it
        self._reread_job = self._reread_release = None

    def _on_reread_cancelled(self, job_id: int) -> None:
        if job_id == self._reread_job:
            self._end_reread()

    def _on_reread_failed(self, job_id: int, message: str) -> None:
        if job_id != self._reread_job:
            return
        del message  # e.g. the file could not be opened a second time: read it here
        self._end_reread()
        if not self.usable():
            return
        if self.live.gate.busy:
            self._full = True
            self._timer.start()
            return
        catalog = self.controller.workspace.catalog.snapshot()
        COLLECTOR.retire_catalog(catalog)
        self.live.refresh(catalog)
        self.changed.emit()

    def _on_reread_finished(self, job_id: int, result: object) -> None:
        if job_id != self._reread_job:
            return
        self._end_reread()
        if not isinstance(result, tuple) or not self.usable():
            return
        live, catalog, diffs = result
        if live is not self.live:
            return  # a new index (another workspace) replaced it meanwhile
        if self.live.gate.busy:
            self._full = True  # lent to lint meanwhile: read again once it is back
            self._timer.start()
            return
        changed = sum(len(d) for d in diffs.values() if d is not None)
        if changed > MAX_PATCH or self.live.needs_load(diffs):
            self._build()  # as at start-up; edits made meanwhile are re-read after it
            return
        started = time.perf_counter()
        self.live.apply(catalog, diffs)
        self.last_refresh_ms = (time.perf_counter() - started) * 1000
        self.changed.emit()
        if self._patch or self._full:
            self._timer.start()  # edits made while it was read
