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

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAction, QDragEnterEvent, QDropEvent

from axmem_gui.core.formats import ImportPlan, Policy
from axmem_gui.services.transfer import ExportResult, ImportResult, skills_dir_clashes
from axmem_gui.ui.actions import make_action
from axmem_gui.ui.dialogs import ErrorDialog
from axmem_gui.ui.transfer.command import ImportCommand
from axmem_gui.ui.transfer.dialogs import ImportFilesDialog, ImportFolderDialog
from axmem_gui.ui.transfer.export_dialog import ExportDialog, ExportResultDialog, export_summary
from axmem_gui.ui.transfer.jobs import ImportPreview, apply_job, export_job, plan_job
from axmem_gui.ui.transfer.preview_dialog import ImportPreviewDialog, entries_text
from axmem_gui.ui.transfer.progress import TaskProgressDialog
from axmem_gui.ui.transfer.runner import window_runner

if TYPE_CHECKING:
    from axmem_gui.ui.main_window import MainWindow

STATUS_MS = 8000


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
    return f"Imported {entries_text(len(result.changes))} ({', '.join(parts)})"


class TransferActions(QObject):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.runner = window_runner(window)
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
        self._build_actions()
        window.setAcceptDrops(True)
        window.installEventFilter(self)
        window.controller.opened.connect(self.update_enabled)
        self.update_enabled()

    # actions ------------------------------------------------------------------------
    def _make(
        self, text: str, slot: Callable[[], object], shortcut: str | None, tip: str
    ) -> QAction:
        return make_action(self.window, text, slot, shortcut, tip)

    def _build_actions(self) -> None:
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
        menu = self.window.file_menu
        separators = [a for a in menu.actions() if a.isSeparator()]
        before = separators[-1] if separators else None
        if before is None:
            menu.addSeparator()
        for action in (self.import_action, self.import_folder_action, self.export_action):
            if before is None:
                menu.addAction(action)
            else:
                menu.insertAction(before, action)
        if before is not None:
            menu.insertSeparator(self.import_action)

    def update_enabled(self) -> None:
        writable = not self.window.controller.read_only
        self.import_action.setEnabled(writable)
        self.import_folder_action.setEnabled(writable)

    def _start_dir(self) -> str:
        return str(self.last_dir or self.window.controller.path.parent)

    def _status(self, text: str) -> None:
        self.window.statusBar().showMessage(text, STATUS_MS)

    @property
    def busy(self) -> bool:
        return self.current is not None

    # import -------------------------------------------------------------------------
    def import_files(self) -> None:
        paths = ImportFilesDialog.ask(self.window, self._start_dir())
        if paths:
            self.import_paths(paths)

    def import_folder(self) -> None:
        path = ImportFolderDialog.ask(self.window, self._start_dir())
        if path is not None:
            self.import_paths([path])

    def import_paths(self, paths: Sequence[Path]) -> int | None:
        """Read and plan `paths` on the task runner; the preview follows. Returns the
        planning job's id (None when it could not start)."""
        if not paths:
            return None
        if self.window.controller.read_only:
            ErrorDialog.show(
                self.window,
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
        job = plan_job(self.window.controller.path, paths)
        return self._start("plan", job, "Import", f"Reading {what}…", what)

    def _commit_typing(self) -> None:
        editing = getattr(self.window, "catalog_editing", None)
        commit = getattr(editing, "commit_all", None)
        if callable(commit):
            commit()

    def _start(
        self,
        stage: str,
        job: Callable[..., object],
        title: str,
        message: str,
        what: str,
        cancel: threading.Event | None = None,
    ) -> int:
        progress = TaskProgressDialog(title, message, self.window)
        job_id = self.runner.submit(job)
        self.current = _Running(job_id, stage, progress, what)
        if cancel is None:
            progress.cancel_requested.connect(lambda: self.runner.cancel(job_id))
        else:
            progress.cancel_requested.connect(cancel.set)
        progress.open()
        return job_id

    def preview(self, preview: ImportPreview) -> None:
        plan = ImportPreviewDialog.ask(self.window, preview, self.policy)
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
        job = apply_job(self.window.controller.path, plan, cancel)
        count = entries_text(len(plan.writes))
        return self._start("apply", job, "Import", f"Importing {count}…", count, cancel)

    def _applied(self, result: ImportResult) -> None:
        self.last_result = result
        if not result.changes:
            self._status("Nothing was imported: every entry is unchanged or skipped.")
            return
        command = ImportCommand(self.window.controller, result, self._report_undo_error)
        self.window.undo_stack.push(command)
        self.window.controller.notify_changed("*")
        self._status(f"{result_message(result)} — Ctrl+Z undoes the import")

    def _report_undo_error(self, message: str) -> None:
        ErrorDialog.show(self.window, "Import", message)

    # export -------------------------------------------------------------------------
    def export(self) -> int | None:
        if self.busy:
            self._status("An import or export is already running; wait for it or cancel it.")
            return None
        self._commit_typing()
        counts = self.window.controller.counts()
        workspace = self.window.controller.workspace
        request = ExportDialog.ask(
            self.window,
            Path(self._start_dir()),
            counts=(counts.skills, counts.memories),
            clashes=lambda out: skills_dir_clashes(workspace, out),
        )
        if request is None:
            return None
        self.last_dir = request.out.parent
        job = export_job(self.window.controller.path, request.format, request.out, request.force)
        return self._start("export", job, "Export", f"Writing {request.out}…", str(request.out))

    def _exported(self, result: ExportResult) -> None:
        self.last_export = result
        self._status(export_summary(result))
        ExportResultDialog.show(self.window, result)

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
            ErrorDialog.show(self.window, "Export failed", message)
            return
        ErrorDialog.show(self.window, "Import failed", f"{message}\n\nNothing was imported.")

    def _on_cancelled(self, job_id: int) -> None:
        running = self._take(job_id)
        if running is None:
            return
        verb = "Export" if running.stage == "export" else "Import"
        self._status(f"{verb} cancelled; nothing was changed.")

    # drag and drop ------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.window:
            kind = event.type()
            if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove) and isinstance(
                event, QDragEnterEvent | QDropEvent
            ):
                if dropped_paths(event) and not self.window.controller.read_only:
                    event.acceptProposedAction()
                    return True
            elif kind == QEvent.Type.Drop and isinstance(event, QDropEvent):
                paths = dropped_paths(event)
                if paths:
                    event.acceptProposedAction()
                    self.import_paths(paths)
                    return True
        return super().eventFilter(watched, event)


def dropped_paths(event: QDropEvent) -> list[Path]:
    mime = event.mimeData()
    if mime is None or not mime.hasUrls():
        return []
    return [Path(u.toLocalFile()) for u in mime.urls() if u.isLocalFile()]


def install_transfer(window: MainWindow) -> TransferActions:
    actions = TransferActions(window)
    window.transfer = actions  # type: ignore[attr-defined]
    return actions
