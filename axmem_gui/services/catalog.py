"""The catalog aggregate (skills, memories, their tags and history): every change, with
revision checks, and the reads the views page through.

The GUI's undo commands, the import and the CLI change entries only through
`CatalogService`, so they share one set of rules: ids and tags are checked here, each
write names the revision it expects (a change made meanwhile raises ConflictError), and
related writes go in one transaction with one batch id in the history. Once a write has
committed the service publishes a `Change` (kind, ids, whether any appeared or
disappeared) on the workspace's notices.

Reads hand out core's plain types (`StoredEntry`, `Revision`, `PageRow`, `PageCursor`):
nothing above services sees a repository.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from axmem_gui.core.catalog import CATALOG_KINDS, Catalog, Memory, Skill, singular
from axmem_gui.core.catalog_rows import (
    Entry,
    PageCursor,
    PageRow,
    Revision,
    StoredEntry,
)
from axmem_gui.core.errors import InputError, WorkspaceError
from axmem_gui.services.aggregates import Change, Notices, WorkspaceAddress

if TYPE_CHECKING:
    from axmem_gui.store import Workspace
    from axmem_gui.store.entries import MemoryRepository, SkillRepository

__all__ = ["CatalogReader", "CatalogService", "CatalogTable", "TableStart", "Write"]

#: How many revisions `lineage` follows back at most.
LINEAGE_LIMIT = 50
#: A write of more entries of a kind than this is announced without its ids: patching
#: that many entries one by one costs more than the views' re-read (on a job) of it all.
NOTICE_ID_LIMIT = 500


@dataclass(frozen=True, slots=True)
class Write:
    """Make entry `entry_id` equal to `value` (None: absent). `expected_revision` is the
    revision the writer saw (0: absent); None writes over whatever is there."""

    entry_id: str
    value: Entry | None
    expected_revision: int | None = None


def check_kind(kind: str) -> str:
    if kind not in CATALOG_KINDS:
        raise ValueError(f"not a catalog kind: {kind!r}")
    return kind


def check_id(kind: str, entry_id: str) -> str:
    if not entry_id.strip():
        raise InputError(f"{singular(kind)} id: must not be empty")
    return entry_id


def check_tag(tag: str) -> str:
    tag = tag.strip()
    if not tag or "," in tag:
        raise InputError("tag: must be non-empty and contain no comma")
    return tag


@dataclass(frozen=True, slots=True)
class TableStart:
    """A list's first rows for a filter and order, and how many rows there are."""

    text_filter: str
    order_by: str
    rows: list[PageRow]
    total: int


class CatalogTable:
    """One kind's entries as a lazy view pages through them: keyset pages of raw rows
    (`PageRow`, cheap to keep), parsed one at a time where a row is shown."""

    def __init__(
        self, kind: str, repo: SkillRepository | MemoryRepository, address: WorkspaceAddress
    ) -> None:
        self.kind = kind
        self._repo = repo
        #: The workspace's address, for queries made on a job's own connection.
        self.address = address
        #: The entry fields a view may show or order by (besides `updated_at`).
        self.columns: tuple[str, ...] = (*repo.columns, "tags")

    def count(self, text_filter: str = "") -> int:
        """Entries whose id, text or tags contain `text_filter` (case-insensitively)."""
        return self._repo.count_filtered(text_filter)

    def page_after(
        self,
        cursor: PageCursor | None,
        limit: int,
        *,
        text_filter: str = "",
        order_by: str = "pk",
    ) -> tuple[list[PageRow], PageCursor | None]:
        """The `limit` rows after `cursor` (None: from the start) in `order_by` order
        ("pk", a column, or either with " desc"; ties by pk), and the cursor of the last
        one (None when there was none). Where a page starts costs nothing (a keyset
        query, not OFFSET)."""
        rows, last = self._repo.raw_page_after(
            cursor, limit, text_filter=text_filter, order_by=order_by
        )
        return rows, last

    def page(
        self,
        cursor: PageCursor | None,
        limit: int,
        *,
        text_filter: str = "",
        order_by: str = "pk",
        backward: bool = False,
        skip: int = 0,
    ) -> list[PageRow]:
        """Up to `limit` rows after `cursor` (None: from the first), or with `backward`
        before it (None: from the last), after leaving out the `skip` rows nearest to
        it; in `order_by` order either way. A keyset query from either end: the last
        page of 100,000 memories costs what the first does."""
        return self._repo.raw_page(
            cursor, limit, text_filter=text_filter, order_by=order_by,
            backward=backward, skip=skip,
        )  # fmt: skip

    def position(self, entry_id: str, *, text_filter: str = "", order_by: str = "pk") -> int | None:
        """The row `entry_id` has among `page`'s rows (None: not among them)."""
        return self._repo.position(entry_id, text_filter=text_filter, order_by=order_by)

    def first_page_job(
        self, limit: int, *, text_filter: str = "", order_by: str = "pk"
    ) -> Callable[[], TableStart]:
        """What a list shows first for a filter (its first rows, and how many rows it
        has), computed by the returned callable on any thread (its own connection):
        a filter without an index to use reads every row."""
        address, kind = self.address, self.kind

        def run() -> TableStart:
            with CatalogReader(address).session() as catalog:
                return catalog.table(kind).start(limit, text_filter=text_filter, order_by=order_by)

        return run

    def start(self, limit: int, *, text_filter: str = "", order_by: str = "pk") -> TableStart:
        """The first `limit` rows and the number of rows (counted only when there are
        more than `limit`: each count reads every row the filter matches)."""
        rows = self.page(None, limit, text_filter=text_filter, order_by=order_by)
        total = len(rows) if len(rows) < limit else self.count(text_filter)
        return TableStart(text_filter, order_by, rows, total)

    def row(self, entry_id: str) -> PageRow | None:
        """One entry as `page_after` gives it, its pk as its sort key (to refresh a loaded
        row in place: where a page ends is the page's cursor, not its rows')."""
        return self._repo.raw_row(entry_id)

    def parse(self, row: PageRow) -> StoredEntry:
        entry, meta = self._repo.from_raw(row)
        return StoredEntry(entry, meta)


class CatalogService:
    """The catalog of one open workspace (on the thread that opened it)."""

    def __init__(self, store: Workspace, notices: Notices | None = None) -> None:
        self._store = store
        self._notices = notices if notices is not None else Notices()
        #: Notices of writes inside `_read_then_write`, published once it commits.
        self._held: list[Change] | None = None

    def _publish(self, changes: Iterable[Change]) -> None:
        if self._held is not None:
            self._held.extend(changes)
        else:
            self._notices.publish_all(changes)

    @contextmanager
    def _read_then_write(self) -> Iterator[None]:
        """One (immediate) transaction for a read and the writes it decides: the read
        sees every commit made before the write lock was ours, and nothing changes
        between the read and the write. Notices wait for the commit (none on rollback)."""
        if self._held is not None:  # already inside one
            yield
            return
        self._held = []
        try:
            with self._store.transaction():
                yield
            held = self._held
        finally:
            self._held = None
        self._notices.publish_all(held)

    def _repo(self, kind: str) -> SkillRepository | MemoryRepository:
        return self._store.skills if check_kind(kind) == "skills" else self._store.memories

    # reads --------------------------------------------------------------------------
    def table(self, kind: str) -> CatalogTable:
        return CatalogTable(kind, self._repo(kind), WorkspaceAddress(self._store.path))

    def snapshot(self) -> Catalog:
        """Every entry, in catalog order (100,000 memories: most of a second; the GUI
        reads it on a job through `reader()`)."""
        return self._store.catalog()

    def count(self, kind: str) -> int:
        return self._repo(kind).count()

    def get(self, kind: str, entry_id: str) -> StoredEntry | None:
        """The entry with its revision and times, or None when absent."""
        return self._repo(kind).stored(entry_id)

    def entries(self, kind: str, ids: Iterable[str]) -> dict[str, Entry | None]:
        """The current value of each id (None: absent)."""
        repo = self._repo(kind)
        return {entry_id: repo.get(entry_id) for entry_id in ids}

    def revision_of(self, kind: str, entry_id: str) -> int | None:
        return self._repo(kind).revision_of(entry_id)

    def history(self, kind: str, entry_id: str) -> list[Revision]:
        """The revisions logged under this id, oldest first."""
        return self._repo(kind).history(entry_id)

    def lineage(self, kind: str, entry_id: str, limit: int = LINEAGE_LIMIT) -> list[Revision]:
        """The entry's revisions, oldest first, following renames back to earlier ids.

        Walks back from the newest revision: a rename into the id the walk is on continues
        with the former id's revisions older than that rename (the store logs a rename
        under both ids; the twin is skipped). So an id renamed back and forth, deleted by
        an undo and re-created by a redo reads as one line of revisions."""
        current = entry_id
        bound: int | None = None
        out: list[Revision] = []
        for _ in range(limit):
            rows = [r for r in self.history(kind, current) if bound is None or r.pk < bound]
            switched = False
            for rev in reversed(rows):
                out.append(rev)
                before_id = None if rev.before is None else rev.before.id
                if rev.op == "rename" and before_id is not None and before_id != current:
                    current, bound = before_id, rev.pk
                    # The twin row under the former id was logged right before this one.
                    twin = [
                        r
                        for r in self.history(kind, current)
                        if r.pk < rev.pk and r.op == "rename" and r.revision == rev.revision
                    ]
                    if twin:
                        bound = twin[-1].pk
                    switched = True
                    break
            if not switched:
                break
        return list(reversed(out))

    def unique_id(self, kind: str, base: str) -> str:
        if self.revision_of(kind, base) is None:
            return base
        n = 2
        while self.revision_of(kind, f"{base}-{n}") is not None:
            n += 1
        return f"{base}-{n}"

    def new_entry(self, kind: str) -> Entry:
        if check_kind(kind) == "skills":
            return Skill(self.unique_id(kind, "new-skill"), "New skill")
        return Memory(self.unique_id(kind, "new-memory"), "")

    def new_batch_id(self) -> str:
        return self._store.new_batch_id()

    def reader(self) -> CatalogReader:
        """The same catalog, read from any thread (each read opens its own connection)."""
        return CatalogReader(WorkspaceAddress(self._store.path))

    # writes -------------------------------------------------------------------------
    def write(self, kind: str, writes: Sequence[Write], *, op: str | None = None) -> dict[str, int]:
        """Apply `writes` in one transaction (all or nothing); returns each entry's new
        revision (0: absent). Raises ConflictError when an entry is not at the revision
        its write expects."""
        return self.write_many([(kind, w) for w in writes], op=op)

    def write_many(
        self,
        writes: Sequence[tuple[str, Write]],
        *,
        op: str | None = None,
        batch: str | None = None,
        before_each: Callable[[int], None] | None = None,
    ) -> dict[str, int]:
        """`write` across kinds, as one batch of the history (`batch`, or a new one for
        more than one write); `before_each(i)` runs before the i-th write and, with
        i = len(writes), before the commit (progress, or raise to cancel: the transaction
        rolls back)."""
        ws = self._store
        if batch is None and len(writes) > 1:
            batch = ws.new_batch_id()
        out: dict[str, int] = {}
        written: dict[str, dict[str, bool]] = {}  # kind: {id: appeared or disappeared}
        with ws.transaction():
            for i, (kind, w) in enumerate(writes):
                if before_each is not None:
                    before_each(i)
                out[w.entry_id], structural = self._write(kind, w, batch, op)
                seen = written.setdefault(kind, {})
                seen[w.entry_id] = seen.get(w.entry_id, False) or structural
            if before_each is not None:
                before_each(len(writes))
        self._publish(
            Change(kind, tuple(ids) if len(ids) <= NOTICE_ID_LIMIT else (), any(ids.values()))
            for kind, ids in written.items()
        )
        return out

    def _write(self, kind: str, w: Write, batch: str | None, op: str | None) -> tuple[int, bool]:
        """The entry's new revision, and whether it appeared or disappeared."""
        repo = self._repo(kind)
        if w.value is None:
            if w.expected_revision == 0:
                return 0, False
            gone = repo.delete(w.entry_id, expected_revision=w.expected_revision, batch=batch)
            return 0, gone
        if w.value.id != w.entry_id:
            raise WorkspaceError(
                f"{singular(kind)} '{w.entry_id}': a write cannot change the id "
                f"(to '{w.value.id}'); rename it instead"
            )
        check_id(kind, w.entry_id)
        if w.expected_revision is None:
            created = repo.revision_of(w.entry_id) is None
        else:
            created = w.expected_revision == 0
        value, expected = w.value, w.expected_revision
        if kind == "skills" and isinstance(value, Skill):
            revision = self._store.skills.upsert(
                value, expected_revision=expected, batch=batch, op=op
            )
        elif kind == "memories" and isinstance(value, Memory):
            revision = self._store.memories.upsert(
                value, expected_revision=expected, batch=batch, op=op
            )
        else:
            raise WorkspaceError(f"{singular(kind)} '{w.entry_id}': not a {singular(kind)}")
        return revision, created

    def create(self, kind: str, entry: Entry) -> int:
        return self.write(kind, [Write(entry.id, entry, 0)])[entry.id]

    def edit(self, kind: str, entry: Entry, expected_revision: int | None) -> int:
        return self.write(kind, [Write(entry.id, entry, expected_revision)])[entry.id]

    # Each of these reads, then writes what it read decides (`_read_then_write`).

    def delete(self, kind: str, ids: Iterable[str]) -> list[StoredEntry]:
        """Delete the entries that exist, at the revisions read now; returns them."""
        with self._read_then_write():
            found = [self.get(kind, i) for i in dict.fromkeys(ids)]
            gone = [f for f in found if f is not None]
            self.write(kind, [Write(f.entry.id, None, f.revision) for f in gone])
        return gone

    def rename(self, kind: str, old_id: str, new_id: str) -> None:
        """Change an entry's id (its history stays under both ids)."""
        check_id(kind, new_id)
        with self._read_then_write():
            if new_id != old_id and self.revision_of(kind, new_id) is not None:
                raise WorkspaceError(
                    f"{singular(kind)} '{new_id}' already exists; choose another id"
                )
            self._repo(kind).rename(old_id, new_id)
        self._publish([Change(kind, (old_id, new_id), True)])

    def tag_changes(
        self, kind: str, ids: Iterable[str], tag: str, *, add: bool
    ) -> list[tuple[Write, Entry]]:
        """The writes that add or remove `tag` (entries it would not change left out),
        each with the entry's current value."""
        tag = check_tag(tag)
        out: list[tuple[Write, Entry]] = []
        for entry_id in dict.fromkeys(ids):
            found = self.get(kind, entry_id)
            if found is None:
                continue
            entry = found.entry
            if (tag in entry.tags) == add:
                continue
            tags = (*entry.tags, tag) if add else tuple(t for t in entry.tags if t != tag)
            out.append((Write(entry_id, replace(entry, tags=tags), found.revision), entry))
        return out

    def tag(self, kind: str, ids: Iterable[str], tag: str, *, add: bool) -> dict[str, int]:
        """Add or remove `tag` on the entries, in one transaction."""
        with self._read_then_write():
            return self.write(kind, [w for w, _e in self.tag_changes(kind, ids, tag, add=add)])

    def restore(self, kind: str, revision: Revision) -> int:
        """Bring an entry back to the value of a revision of its history."""
        entry = revision.value
        if entry is None:
            raise WorkspaceError("that revision holds no value to restore")
        with self._read_then_write():
            found = self.get(kind, entry.id)
            expected = 0 if found is None else found.revision
            return self.write(kind, [Write(entry.id, entry, expected)], op="restore")[entry.id]


@dataclass(frozen=True, slots=True)
class CatalogReader:
    """The catalog of a workspace, read from a job's thread: `read` and `entries` each
    open their own read-only connection; `session` keeps one open for several reads."""

    address: WorkspaceAddress

    @contextmanager
    def session(self) -> Iterator[CatalogService]:
        from axmem_gui.services.workspace import open_at

        with open_at(self.address, read_only=True) as ws:
            yield ws.catalog

    def read(self) -> Catalog:
        with self.session() as catalog:
            return catalog.snapshot()

    def entries(self, kind: str, ids: Iterable[str]) -> dict[str, Entry | None]:
        with self.session() as catalog:
            return catalog.entries(kind, ids)
