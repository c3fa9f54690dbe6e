"""Undoable edits to skills and memories: every user edit is one QUndoCommand on the
window's QUndoStack, and every redo/undo writes to the store at once (no Save step).

Commands hold plain data (entries, ids, revisions) and an `EditContext`; they touch no
widget, so tests drive them with a real workspace and no window. They write through the
catalog service (`CatalogService`, the same the CLI uses), which announces each committed
write; the session turns those notices into `entries_changing` hints. Each write names the
revision the command last saw (`expected_revision`), so a change made meanwhile by another
window or instance raises ConflictError, which the context resolves (reload theirs /
overwrite with mine). A command that cannot apply marks itself obsolete and QUndoStack
drops it, so the stack never claims a state the store does not have.

The window moves the stack through its `WriteQueue` (ui/writes.py): `prepare` computes a
command's write on the GUI thread, the queue runs it (waiting off the GUI thread while
another program writes), `settled` records the outcome, and only then does the stack
call `redo()`/`undo()`, which shows it. Called without `settled` (tests, other callers),
`redo()`/`undo()` write at once, as before.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from itertools import pairwise
from typing import Any, Protocol

import shiboken6
from PySide6.QtCore import QObject, Signal, SignalInstance
from PySide6.QtGui import QUndoCommand

from axmem_gui.core.catalog import CATALOG_KINDS, noun, singular
from axmem_gui.core.catalog_rows import Entry
from axmem_gui.core.errors import AxmemError, ConflictError
from axmem_gui.services.catalog import CatalogService, Write
from axmem_gui.services.workspace import OpenWorkspace


class Resolution(Enum):
    THEIRS = "theirs"  # keep what the store holds now; drop this edit
    MINE = "mine"  # write this edit over theirs


class EditContext(Protocol):
    @property
    def catalog(self) -> CatalogService: ...

    def entries_changed(self, kind: str, ids: Sequence[str], structural: bool) -> None: ...

    def resolve_conflict(self, error: ConflictError) -> Resolution: ...

    def report_error(self, message: str) -> None: ...

    def focus(self, kind: str, entry_id: str) -> None: ...

    def keep_unsaved(self, kind: str, values: Sequence[Entry]) -> None: ...


class _Controller(Protocol):
    @property
    def workspace(self) -> OpenWorkspace: ...

    @property
    def written(self) -> SignalInstance: ...

    @property
    def settled(self) -> SignalInstance: ...

    def notify_changed(self, what: str = "*") -> None: ...


class EditSession(QObject):
    """The EditContext of a window: writes through the controller's workspace's catalog,
    tells the views what changed, and asks the user about conflicts (through injected
    callables)."""

    #: kind, ids, structural (ids added/removed) — emitted before `controller.changed`.
    entries_changing = Signal(str, list, bool)
    #: kind — emitted after `controller.changed` has been handled.
    entries_changed_done = Signal(str)
    focus_requested = Signal(str, str)
    error_reported = Signal(str)
    #: kind, entries: an edit refused after waiting for another program (shown again)
    unsaved = Signal(str, list)

    def __init__(
        self,
        controller: _Controller,
        resolver: Callable[[ConflictError], Resolution] | None = None,
    ) -> None:
        super().__init__()
        self._controller = controller
        self.resolver = resolver or (lambda _err: Resolution.THEIRS)
        # A write's details come before `changed`, the end after all its receivers ran.
        controller.written.connect(self._on_written)
        controller.settled.connect(self._on_settled)
        self._changing: set[str] = set()

    @property
    def catalog(self) -> CatalogService:
        return self._controller.workspace.catalog

    def _on_written(self, what: str, ids: list[str], structural: bool) -> None:
        # A notice without ids does not say what changed: no hint (the views re-read).
        if what in CATALOG_KINDS and ids:
            self._changing.add(what)
            self.entries_changing.emit(what, ids, structural)

    def _on_settled(self, what: str) -> None:
        if what in self._changing:
            self._changing.discard(what)
            self.entries_changed_done.emit(what)

    def entries_changed(self, kind: str, ids: Sequence[str], structural: bool) -> None:
        """The views show the store's value again, without a write (a command gave up)."""
        self._on_written(kind, list(ids), structural)
        self._controller.notify_changed(kind)

    def resolve_conflict(self, error: ConflictError) -> Resolution:
        return self.resolver(error)

    def report_error(self, message: str) -> None:
        self.error_reported.emit(message)

    def focus(self, kind: str, entry_id: str) -> None:
        self.focus_requested.emit(kind, entry_id)

    def keep_unsaved(self, kind: str, values: Sequence[Entry]) -> None:
        self.unsaved.emit(kind, list(values))


#: What the queue reported for the next redo()/undo(): (undo, revisions, error).
_Settled = tuple[bool, Any, AxmemError | None]


@dataclass(frozen=True, slots=True)
class EntryChange:
    """One entry's value before and after the command (None = absent)."""

    entry_id: str
    before: Entry | None
    after: Entry | None


_Pick = Callable[[EntryChange], Entry | None]


class ReplaceEntriesCommand(QUndoCommand):
    """Make entries equal to `after` (redo) or `before` (undo), in one transaction.

    Covers create (before None), delete (after None), field edits, bulk tags and restores.
    With `merge_key`, consecutive commands with the same key (one field of one entry)
    merge into one undo step, unless the later one does not `join` (the editor starts a
    new step after a pause or a word boundary, as text editors do).

    A `deferred` command writes nothing when first pushed: it is an undo step inside one
    commit of typing (up to a word boundary), and the commit's last command writes the
    value they all lead to. Should that write fail, the commit's deferred commands
    (`batch`) fail with it, so the stack never holds a step the store never had."""

    def __init__(
        self,
        ctx: EditContext,
        kind: str,
        changes: Sequence[EntryChange],
        revisions: dict[str, int],
        text: str,
        *,
        op: str | None = None,
        merge_key: str | None = None,
        focus_id: str | None = None,
        joins: bool = True,
        deferred: bool = False,
        batch: Sequence[ReplaceEntriesCommand] = (),
    ) -> None:
        super().__init__(text)
        self.ctx = ctx
        self.kind = kind
        self.changes = tuple(changes)
        #: The revision each entry has as this command last left it (0 = absent).
        self.revisions = dict(revisions)
        self.op = op
        self.merge_key = merge_key
        self.focus_id = focus_id
        self.joins = joins
        self.deferred = deferred
        self.batch = tuple(batch)
        self.failed = False
        self._first = True
        self._settled: _Settled | None = None
        #: Whether the last write queued was made on another connection (a worker's,
        #: after waiting for another program): its notice reached no view of this window.
        self._elsewhere = False
        self._structural = any((c.before is None) != (c.after is None) for c in self.changes)

    def id(self) -> int:
        if self.merge_key is None:
            return -1
        return zlib.crc32(f"{self.kind}\0{self.merge_key}".encode()) & 0x7FFFFFFF

    def mergeWith(self, other: QUndoCommand) -> bool:
        if (
            not isinstance(other, ReplaceEntriesCommand)
            or other.failed
            or other.kind != self.kind
            or other.merge_key is None
            or other.merge_key != self.merge_key
            or not other.joins
            or len(self.changes) != 1
            or len(other.changes) != 1
        ):
            return False
        first, last = self.changes[0], other.changes[0]
        self.changes = (EntryChange(first.entry_id, first.before, last.after),)
        self.revisions = dict(other.revisions)
        self._first = False
        if first.before == last.after:
            # Typed and then typed back: nothing left to undo.
            self.setObsolete(True)
        return True

    @staticmethod
    def _picks(undo: bool) -> tuple[_Pick, _Pick]:
        """(the value to write, the value that should be there now)"""
        if undo:
            return (lambda c: c.before), (lambda c: c.after)
        return (lambda c: c.after), (lambda c: c.before)

    def redo(self) -> None:
        if self.failed:
            return
        if self._first and self.deferred:
            self._first = False  # the commit's last command writes (see the class)
            self._settled = None
            return
        self._run(undo=False)

    def undo(self) -> None:
        if self.failed:
            return
        # The store's history knows create/update/delete/restore/rename; an undo is an
        # update (or create/delete) like any other write.
        self._run(undo=True)

    def _run(self, *, undo: bool) -> None:
        pick, present = self._picks(undo)
        op = None if undo else self.op
        settled, self._settled = self._settled, None
        if settled is None:
            self._apply(pick, present, op)
            return
        _undo, revisions, error = settled
        if error is None:
            self.revisions = revisions
            self._first = False
            if self._elsewhere:  # the views heard nothing of a worker's connection
                ids = [c.entry_id for c in self.changes]
                self.ctx.entries_changed(self.kind, ids, self._structural)
            self._announce(pick)
        elif isinstance(error, ConflictError):
            self._resolve(error, pick, present, op)
        else:
            self.ctx.report_error(str(error))
            self._give_up()

    # the write queue (ui/writes.py) ---------------------------------------------------
    def prepare(self, undo: bool) -> Callable[[OpenWorkspace], Any]:
        """The write of the next redo (or undo), computed here on the GUI thread: plain
        data and the kind, for whichever thread's workspace runs it. Raises ConflictError
        when the store no longer holds what this command left there."""
        if not undo and self._first and self.deferred:
            revisions = dict(self.revisions)  # its first redo writes nothing (see the class)
            return lambda _ws: revisions
        pick, present = self._picks(undo)
        kind, op = self.kind, None if undo else self.op
        writes = [
            Write(change.entry_id, pick(change), self._expected_revision(change, present))
            for change in self.changes
        ]
        return lambda ws: ws.catalog.write(kind, writes, op=op)

    def settled(
        self, undo: bool, value: Any, error: AxmemError | None, *, elsewhere: bool = False
    ) -> bool:
        """The queue's outcome for the next redo()/undo(); whether the stack should move
        now. A write refused (another program kept the workspace busy past the wait, the
        disk is full, the file changed hands...) does not move the stack: it is reported
        and a field edit goes back to the form (`keep_unsaved`), never dropped. A
        conflict moves it: redo()/undo() asks whose version to keep."""
        if error is not None and not isinstance(error, ConflictError):
            pick, _present = self._picks(undo)
            field_edit = self.merge_key is not None and not undo
            message = str(error)
            if field_edit:
                message = (
                    f"{message.rstrip('.').removesuffix(', try again')}. Your edit is kept "
                    "in the form: it is saved with your next change, or when the field "
                    "loses the focus."
                )
            self.ctx.report_error(message)
            if field_edit:
                self.ctx.keep_unsaved(self.kind, [v for c in self.changes if (v := pick(c))])
            return False
        self._settled = (undo, value, error)
        self._elsewhere = elsewhere
        return True

    def _resolve(self, err: ConflictError, pick: _Pick, present: _Pick, op: str | None) -> None:
        if self.ctx.resolve_conflict(err) is not Resolution.MINE:
            self._give_up()
            return
        try:
            self.revisions = self._write(pick, present, op, check=False)
        except AxmemError as error:
            self.ctx.report_error(str(error))
            self._give_up()
            return
        self._first = False
        self._announce(pick)

    def _apply(self, pick: _Pick, present: _Pick, op: str | None) -> None:
        try:
            try:
                self.revisions = self._write(pick, present, op, check=True)
            except ConflictError as err:
                if self.ctx.resolve_conflict(err) is not Resolution.MINE:
                    self._give_up()
                    return
                self.revisions = self._write(pick, present, op, check=False)
        except AxmemError as err:
            self.ctx.report_error(str(err))
            self._give_up()
            return
        self._first = False
        self._announce(pick)

    def _expected_revision(self, change: EntryChange, present: _Pick) -> int:
        """The revision to write over, after checking the store still holds what this
        command left there. The first redo checks the revision the user saw; later
        undo/redo compare values, because other commands of the same stack move the
        revision number of the same entry without changing what this command expects."""
        known = self.revisions.get(change.entry_id, 0)
        if self._first:
            return known
        found = self.ctx.catalog.get(self.kind, change.entry_id)
        value, actual = (None, 0) if found is None else (found.entry, found.revision)
        if value != present(change):
            raise ConflictError(
                singular(self.kind), change.entry_id, known, None if found is None else actual
            )
        return actual

    def _write(self, pick: _Pick, present: _Pick, op: str | None, *, check: bool) -> dict[str, int]:
        writes = [
            Write(
                change.entry_id,
                pick(change),
                self._expected_revision(change, present) if check else None,
            )
            for change in self.changes
        ]
        return self.ctx.catalog.write(self.kind, writes, op=op)

    def _give_up(self) -> None:
        for command in (*self.batch, self):
            if shiboken6.isValid(command):  # a step merged into an earlier one is gone
                command.failed = True
                command.setObsolete(True)
        # The views show the store's value again (theirs, or the unchanged one).
        self.ctx.entries_changed(self.kind, [c.entry_id for c in self.changes], True)

    def _announce(self, pick: _Pick) -> None:
        # (The catalog service announced the write itself: the views have refreshed.)
        focus = self.focus_id
        present = {c.entry_id for c in self.changes if pick(c) is not None}
        if focus is not None and focus in present:
            self.ctx.focus(self.kind, focus)


class RenameEntryCommand(QUndoCommand):
    """Change an entry's id (the store keeps its history under both ids)."""

    def __init__(self, ctx: EditContext, kind: str, old_id: str, new_id: str) -> None:
        super().__init__(f"Rename {singular(kind)} '{old_id}' to '{new_id}'")
        self.ctx = ctx
        self.kind = kind
        self.old_id = old_id
        self.new_id = new_id
        self.failed = False
        self._settled: _Settled | None = None
        self._elsewhere = False

    def redo(self) -> None:
        self._rename(self.old_id, self.new_id)

    def undo(self) -> None:
        self._rename(self.new_id, self.old_id)

    def prepare(self, undo: bool) -> Callable[[OpenWorkspace], Any]:
        kind = self.kind
        source, target = (self.new_id, self.old_id) if undo else (self.old_id, self.new_id)
        return lambda ws: ws.catalog.rename(kind, source, target)

    def settled(
        self, undo: bool, value: Any, error: AxmemError | None, *, elsewhere: bool = False
    ) -> bool:
        if error is not None:
            self.ctx.report_error(str(error))
            return False
        self._settled = (undo, value, error)
        self._elsewhere = elsewhere
        return True

    def _rename(self, source: str, target: str) -> None:
        settled, self._settled = self._settled, None
        try:
            if settled is None:
                self.ctx.catalog.rename(self.kind, source, target)
            elif settled[2] is not None:
                raise settled[2]
        except AxmemError as err:
            self.ctx.report_error(str(err))
            self.failed = True
            self.setObsolete(True)
            self.ctx.entries_changed(self.kind, [source, target], True)
            return
        if settled is not None and self._elsewhere:
            self.ctx.entries_changed(self.kind, [source, target], True)
        self.ctx.focus(self.kind, target)


# builders: read the current store state, return a command ready to push ---------------
def create_command(ctx: EditContext, kind: str, entry: Entry) -> ReplaceEntriesCommand:
    return ReplaceEntriesCommand(
        ctx,
        kind,
        [EntryChange(entry.id, None, entry)],
        {entry.id: 0},
        f"New {singular(kind)} '{entry.id}'",
        focus_id=entry.id,
    )


def edit_command(
    ctx: EditContext,
    kind: str,
    before: Entry,
    after: Entry,
    revision: int,
    field: str,
    *,
    joins: bool = True,
) -> ReplaceEntriesCommand:
    """One field edit of one entry, from the revision the editor showed (`joins`: may
    merge into the previous edit of the same field)."""
    return ReplaceEntriesCommand(
        ctx,
        kind,
        [EntryChange(before.id, before, after)],
        {before.id: revision},
        f"Edit {field} of '{before.id}'",
        merge_key=f"{before.id}\0{field}",
        focus_id=before.id,
        joins=joins,
    )


def typing_commands(
    ctx: EditContext,
    kind: str,
    values: Sequence[Entry],
    revision: int,
    field: str,
    *,
    joins: bool,
) -> list[ReplaceEntriesCommand]:
    """One commit of typing as undo steps: `values` are the entry before, at each word
    boundary typed, and at the commit. Each step is its own command; only the last
    writes (the others are `deferred`), so the store keeps one revision per commit."""
    commands: list[ReplaceEntriesCommand] = []
    steps = list(pairwise(values))
    for n, (before, after) in enumerate(steps):
        last = n == len(steps) - 1
        command = ReplaceEntriesCommand(
            ctx,
            kind,
            [EntryChange(before.id, before, after)],
            {before.id: revision},
            f"Edit {field} of '{before.id}'",
            merge_key=f"{before.id}\0{field}",
            focus_id=before.id,
            joins=joins and n == 0,
            deferred=not last,
            batch=tuple(commands) if last else (),
        )
        commands.append(command)
    return commands


def delete_command(ctx: EditContext, kind: str, ids: Iterable[str]) -> ReplaceEntriesCommand | None:
    changes, revisions = [], {}
    for entry_id in dict.fromkeys(ids):
        found = ctx.catalog.get(kind, entry_id)
        if found is not None:
            changes.append(EntryChange(entry_id, found.entry, None))
            revisions[entry_id] = found.revision
    if not changes:
        return None
    first = changes[0].entry_id
    count = len(changes)
    text = f"Delete {noun(kind)} '{first}'" if count == 1 else f"Delete {count:,} {kind}"
    # Undoing a delete brings the (first) entry back into view.
    return ReplaceEntriesCommand(ctx, kind, changes, revisions, text, focus_id=first)


def tag_command(
    ctx: EditContext, kind: str, ids: Iterable[str], tag: str, *, add: bool
) -> ReplaceEntriesCommand | None:
    """Add or remove `tag` on each entry; entries it would not change are left out."""
    found = ctx.catalog.tag_changes(kind, ids, tag, add=add)
    changes = [EntryChange(w.entry_id, before, w.value) for w, before in found]
    revisions = {w.entry_id: w.expected_revision or 0 for w, _before in found}
    tag = tag.strip()
    if not changes:
        return None
    verb = "Add tag" if add else "Remove tag"
    return ReplaceEntriesCommand(
        ctx,
        kind,
        changes,
        revisions,
        f"{verb} '{tag}' {'to' if add else 'from'} {len(changes):,} {noun(kind, len(changes))}",
    )


def restore_command(
    ctx: EditContext, kind: str, value: Entry, revision_label: str
) -> ReplaceEntriesCommand:
    """Bring an entry back to `value` (taken from its history)."""
    found = ctx.catalog.get(kind, value.id)
    before, revision = (None, 0) if found is None else (found.entry, found.revision)
    return ReplaceEntriesCommand(
        ctx,
        kind,
        [EntryChange(value.id, before, value)],
        {value.id: revision},
        f"Restore '{value.id}' to {revision_label}",
        op="restore",
        focus_id=value.id,
    )

