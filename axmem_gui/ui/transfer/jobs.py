"""Task-runner jobs for import and export: plain data in, plain data out.

Each job reads and writes the workspace through services that open its own connection on
the job's thread (an SQLite connection belongs to the thread that made it): it gets a
reader or an address, never a connection, and never touches a widget. Cancelling an
import raises the runner's `Cancelled`, so the UI hears "cancelled" rather than an error.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from axmem_gui.core.catalog import EntryKind, Memory
from axmem_gui.core.errors import InputError
from axmem_gui.core.formats import (
    FormatName,
    ImportedSkill,
    ImportPlan,
    Policy,
    SourceCatalog,
    build_plan,
)
from axmem_gui.services.aggregates import WorkspaceAddress
from axmem_gui.services.catalog import CatalogReader
from axmem_gui.services.transfer import (
    STORE_KEEPS_SKILL_EXTRA,
    ExportClashError,
    ExportResult,
    ImportCancelled,
    ImportResult,
    Progress,
    apply_import_at,
    catalog_doc,
    export_at,
    read_sources,
)
from axmem_gui.ui.tasks import Cancelled, Job, JobContext
from axmem_gui.ui.transfer.export_dialog import REPLACE_HINT

#: Progress reports reach the GUI at most this often (a 10,000-entry import would
#: otherwise queue 10,000 signals).
PROGRESS_INTERVAL_S = 0.05

Overrides = dict[tuple[EntryKind, str], Policy]


@dataclass(frozen=True)
class ImportPreview:
    """What the planning job read: the sources, and the workspace entries they were
    compared with. Re-planning for another policy needs no file or database access."""

    paths: tuple[str, ...]
    sources: tuple[SourceCatalog, ...]
    existing_skills: Mapping[str, ImportedSkill]
    existing_memories: Mapping[str, Memory]

    def plan(self, policy: Policy = "skip", overrides: Overrides | None = None) -> ImportPlan:
        # The same decision `plan_from_sources` makes, against the snapshot taken when the
        # files were read: flipping a policy stays instant for a 10,000-entry workspace,
        # and `apply_import` re-checks that the store still holds what the plan saw.
        return build_plan(
            self.sources,
            self.existing_skills,
            self.existing_memories,
            policy,
            overrides=overrides,
            compare_extra=STORE_KEEPS_SKILL_EXTRA,
        )


class _Reporter:
    """Turns the services' `Progress` into throttled `ctx.progress` calls."""

    def __init__(self, ctx: JobContext) -> None:
        self._ctx = ctx
        self._last = 0.0

    def __call__(self, p: Progress) -> None:
        now = time.monotonic()
        if p.done < p.total and now - self._last < PROGRESS_INTERVAL_S:
            return
        self._last = now
        self._ctx.progress(p.done / p.total if p.total else 1.0, p.message)


def plan_job(
    workspace: CatalogReader, paths: Sequence[Path], fmt: FormatName | None = None
) -> Job:
    chosen = tuple(paths)

    def job(ctx: JobContext) -> ImportPreview:
        try:
            sources = read_sources(
                chosen, fmt=fmt, progress=_Reporter(ctx), cancel=ctx.cancel_event
            )
        except ImportCancelled:
            raise Cancelled() from None
        ctx.check()
        ctx.progress(1.0, "comparing with the workspace")
        doc = catalog_doc(workspace.read())
        ctx.check()
        return ImportPreview(
            tuple(str(p) for p in chosen),
            tuple(sources),
            {s.id: s for s in doc.skills},
            {m.id: m for m in doc.memories},
        )

    return job


def apply_job(workspace: WorkspaceAddress, plan: ImportPlan, cancel: threading.Event) -> Job:
    """Apply `plan` in one transaction. `cancel` is the import's own token rather than
    the runner's: a cancel that comes after the commit must not be reported as
    "cancelled" for an import that happened."""

    def job(ctx: JobContext) -> ImportResult:
        try:
            return apply_import_at(workspace, plan, progress=_Reporter(ctx), cancel=cancel)
        except ImportCancelled:
            raise Cancelled() from None

    return job


def export_job(workspace: WorkspaceAddress, fmt: FormatName, out: Path, force: bool) -> Job:
    def job(ctx: JobContext) -> ExportResult:
        ctx.progress(0.0, f"writing {out}")
        try:
            return export_at(workspace, fmt, out, force=force)
        except ExportClashError as exc:
            # Written there since the dialog checked: say it in the dialog's words.
            raise InputError(f"{exc}. {REPLACE_HINT}") from None

    return job
