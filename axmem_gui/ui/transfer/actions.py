"""File > Import / Export and drag and drop onto the window.

Import: choose paths (or drop them) → read and plan on the task runner → preview dialog
(policies, conflicts, problems) → apply on the task runner with progress and Cancel →
one undo step. Export: choose format and target → write on the task runner → report.
Jobs get plain data and open their own workspace connection; the window hears about the
result through the runner's signals, filtered by job id.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction

from axmem_gui.ui.actions import make_action
from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.dialogs import ErrorDialog
from axmem_gui.ui.feature import Contributions, FeatureContext, FeatureSpec, MenuPlace
from axmem_gui.ui.transfer.dialogs import ImportFilesDialog, ImportFolderDialog
from axmem_gui.ui.transfer.progress import TaskProgressDialog

if TYPE_CHECKING:
    # The format readers and writers (YAML, the TS lexer) behind these are imported when
    # an import or export first runs, not before the window's first paint.
    from axmem_gui.core.formats import ImportPlan, Policy
    from axmem_gui.services.transfer import ExportResult, ImportResult
    from axmem_gui.ui.transfer.jobs import ImportPreview

STATUS_MS = 8000
FILE_PLACE = MenuPlace("file", "transfer")


@dataclass
class _Running:
    job_id: int
    stage: str  # "plan", "apply" or "export"
    progress: TaskProgressDialog
    #: Sources named in messages ("2 files", "skills/").
    what: str = ""


def describe_paths(paths: Sequence[Path]) -> str:
    if len(paths) == 1:
        return str(paths[0])
    return f"{len(paths):,} files and folders"


def result_message(result: ImportResult) -> str:
    counts: dict[str, int] = {}
    for change in result.changes:
        counts[change.action] = counts.get(change.action, 0) + 1
    parts = [
        f"{counts[a]:,} {label}"
        for a, label in (("add", "added"), ("update", "updated"), ("keep-both", "kept both"))
        if counts.get(a)
    ]
    from axmem_gui.ui.transfer.preview_dialog import entries_text

    return f"Imported {entries_text(len(result.changes))} ({', '.join(parts)})"


class TransferActions(QObject):
    """File > Import / Export, and files dropped on the window."""

    def __init__(self, context: FeatureContext) -> None:
        super().__init__(context.shell)
        self.shell = context.shell
        self.controller = context.controller
        self.undo_stack = context.undo_stack
        self.catalog = context.need(CATALOG)
        self.runner = context.runner
        self.policy: Policy = "skip"
        self.last_dir: Path | None = None
        self.current: _Running | None = None
        #: The last finished import (tests and the status line read it).
        self.last_result: ImportResult | None = None
        self.last_export: ExportResult | None = None
        self.runner.progressed.connect(self._on_progress)
        self.runner.finished.connect(self._on_finished)
        self.runner.failed.connect(self._on_failed)
        self.runner.cancelled.connect(self._on_cancelled)
        self._build_actions(context)
        self.controller.opened.connect(self.update_enabled)
        self.update_enabled()

    # feature contract ---------------------------------------------------------------
    def contributions(self) -> Contributions:
        return Contributions(drop_target=self)

    def shutdown(self) -> None:
        """The window's task runner cancels the job under way."""

    def accepts_drop(self, paths: Sequence[Path]) -> bool:
        return bool(paths) and not self.controller.read_only

    def drop(self, paths: Sequence[Path]) -> None:
        self.import_paths(paths)

    # actions ------------------------------------------------------------------------
    def _make(
        self, text: str, slot: Callable[[], object], shortcut: str | None, tip: str
    ) -> QAction:
        return make_action(self, text, slot, shortcut, tip)

    def _build_actions(self, context: FeatureContext) -> None:
        self.import_action = self._make(
            "&Import…",
            self.import_files,
            "Ctrl+I",
            "Import skills and memories from catalog files (or drop files on the window)",
        )
        self.import_folder_action = self._make(
            "Import Skills &Folder…",
            self.import_folder,
            None,
            "Import a folder of Agent Skills folders (each with a SKILL.md)",
        )
        self.export_action = self._make(
            "&Export…",
            self.export,
            "Ctrl+Shift+E",
            "Export the catalog as Ax JSON, a TypeScript module, SKILL.md folders or JSON Lines",
        )
        context.actions.add("transfer.import", self.import_action, FILE_PLACE)
        context.actions.add("transfer.import-folder", self.import_folder_action, FILE_PLACE)
        context.actions.add("transfer.export", self.export_action, FILE_PLACE)

    def update_enabled(self) -> None:
        writable = not self.controller.read_only
        self.import_action.setEnabled(writable)
        self.import_folder_action.setEnabled(writable)

    def _start_dir(self) -> str:
        return str(self.last_dir or self.controller.path.parent)

    def _status(self, text: str) -> None:
        self.shell.show_message(text, STATUS_MS)

    @property
    def busy(self) -> bool:
        return self.current is not None

    # import -------------------------------------------------------------------------
    def import_files(self) -> None:
        paths = ImportFilesDialog.ask(self.shell.dialog_parent, self._start_dir())
        if paths:
            self.import_paths(paths)

    def import_folder(self) -> None:
        path = ImportFolderDialog.ask(self.shell.dialog_parent, self._start_dir())
        if path is not None:
            self.import_paths([path])

    def import_paths(self, paths: Sequence[Path]) -> int | None:
        """Read and plan `paths` on the task runner; the preview follows. Returns the
        planning job's id (None when it could not start)."""
        if not paths:
            return None
        if self.controller.read_only:
            ErrorDialog.show(
                self.shell.dialog_parent,
                "Cannot import",
                "This workspace is open read-only; open a writable copy to import into it.",
            )
            return None
        if self.busy:
            self._status("An import or export is already running; wait for it or cancel it.")
            return None
        self._commit_typing()
        self.last_dir = paths[0].parent
        what = describe_paths(paths)
        from axmem_gui.ui.transfer.jobs import plan_job

        job = plan_job(self.controller.workspace.catalog.reader(), paths)
        return self._start("plan", job, "Import", f"Reading {what}…", what)

    def _commit_typing(self) -> None:
        self.catalog.commit_all()

    def _start(
        self,
        stage: str,
        job: Callable[..., object],
        title: str,
        message: str,
        what: str,
        cancel: threading.Event | None = None,
    ) -> int:
        progress = TaskProgressDialog(title, message, self.shell.dialog_parent)
        job_id = self.runner.submit(job)
        self.current = _Running(job_id, stage, progress, what)
        if cancel is None:
            progress.cancel_requested.connect(lambda: self.runner.cancel(job_id))
        else:
            progress.cancel_requested.connect(cancel.set)
        progress.open()
        return job_id

    def preview(self, preview: ImportPreview) -> None:
        from axmem_gui.ui.transfer.preview_dialog import ImportPreviewDialog

        plan = ImportPreviewDialog.ask(self.shell.dialog_parent, preview, self.policy)
        if plan is None:
            self._status("Import cancelled; nothing was changed.")
            return
        self.policy = plan.policy
        self.apply(plan)

    def apply(self, plan: ImportPlan) -> int | None:
        """Write `plan` on the task runner (one transaction; Cancel rolls it back)."""
        if not plan.ok or self.busy:
            return None
        if not plan.writes:
            self._status("Nothing to import: every entry is unchanged or skipped.")
            return None
        self._commit_typing()
        cancel = threading.Event()
        from axmem_gui.ui.transfer.jobs import apply_job

        job = apply_job(self.controller.workspace.address, plan, cancel)
        from axmem_gui.ui.transfer.preview_dialog import entries_text

        count = entries_text(len(plan.writes))
        return self._start("apply", job, "Import", f"Importing {count}…", count, cancel)

    def _applied(self, result: ImportResult) -> None:
        self.last_result = result
        if not result.changes:
            self._status("Nothing was imported: every entry is unchanged or skipped.")
            return
        from axmem_gui.ui.transfer.command import ImportCommand

        command = ImportCommand(self.controller, result, self._report_undo_error)
        self.undo_stack.push(command)
        self.controller.notify_changed("*")
        self._status(f"{result_message(result)} — Ctrl+Z undoes the import")

    def _report_undo_error(self, message: str) -> None:
        ErrorDialog.show(self.shell.dialog_parent, "Import", message)

    # export -------------------------------------------------------------------------
    def export(self) -> int | None:
        if self.busy:
            self._status("An import or export is already running; wait for it or cancel it.")
            return None
        self._commit_typing()
        from axmem_gui.services.transfer import skills_dir_clashes
        from axmem_gui.ui.transfer.export_dialog import ExportDialog

        counts = self.controller.counts()
        workspace = self.controller.workspace
        request = ExportDialog.ask(
            self.shell.dialog_parent,
            Path(self._start_dir()),
            counts=(counts.skills, counts.memories),
            clashes=lambda out: skills_dir_clashes(workspace, out),
        )
        if request is None:
            return None
        self.last_dir = request.out.parent
        from axmem_gui.ui.transfer.jobs import export_job

        job = export_job(
            self.controller.workspace.address, request.format, request.out, request.force
        )
        return self._start("export", job, "Export", f"Writing {request.out}…", str(request.out))

    def _exported(self, result: ExportResult) -> None:
        self.last_export = result
        from axmem_gui.ui.transfer.export_dialog import ExportResultDialog, export_summary

        self._status(export_summary(result))
        ExportResultDialog.show(self.shell.dialog_parent, result)

    # runner signals -----------------------------------------------------------------
    def _take(self, job_id: int) -> _Running | None:
        running = self.current
        if running is None or running.job_id != job_id:
            return None
        self.current = None
        running.progress.finish()
        return running

    def _on_progress(self, job_id: int, fraction: float, message: str) -> None:
        if self.current is not None and self.current.job_id == job_id:
            self.current.progress.set_progress(fraction, message)

    def _on_finished(self, job_id: int, result: object) -> None:
        running = self._take(job_id)
        if running is None:
            return
        from axmem_gui.services.transfer import ExportResult, ImportResult
        from axmem_gui.ui.transfer.jobs import ImportPreview

        if running.stage == "plan" and isinstance(result, ImportPreview):
            self.preview(result)
        elif running.stage == "apply" and isinstance(result, ImportResult):
            self._applied(result)
        elif running.stage == "export" and isinstance(result, ExportResult):
            self._exported(result)

    def _on_failed(self, job_id: int, message: str) -> None:
        running = self._take(job_id)
        if running is None:
            return
        if running.stage == "export":
            ErrorDialog.show(self.shell.dialog_parent, "Export failed", message)
            return
        ErrorDialog.show(
            self.shell.dialog_parent, "Import failed", f"{message}\n\nNothing was imported."
        )

    def _on_cancelled(self, job_id: int) -> None:
        running = self._take(job_id)
        if running is None:
            return
        verb = "Export" if running.stage == "export" else "Import"
        self._status(f"{verb} cancelled; nothing was changed.")


TRANSFER = FeatureSpec("transfer", TransferActions, needs=(CATALOG,))
