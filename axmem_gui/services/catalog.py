"""Every change to the catalog (skills and memories), with revision checks.

The GUI's undo commands, the import and the CLI change entries only through
`CatalogService`, so they share one set of rules: ids and tags are checked here, each
write names the revision it expects (a change made meanwhile raises ConflictError), and
related writes go in one transaction with one batch id in the history. The read-only
queries the views need (paging, history, revisions) are exposed here too, so `ui` never
imports `store`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from axmem_gui.core.catalog import Memory, Skill, singular
from axmem_gui.core.errors import InputError, WorkspaceError
from axmem_gui.store import Workspace
from axmem_gui.store.records import (
    EntryMeta,
    Revision,
    memory_from_value,
    memory_to_row,
    skill_from_value,
    skill_to_row,
)
from axmem_gui.store.repositories import (
    ConflictError,
    MemoryRepository,
    PageCursor,
    SkillRepository,
)

__all__ = [
    "CatalogService",
    "ConflictError",
    "Entry",
    "EntryMeta",
    "EntryRepository",
    "MemoryRepository",
    "PageCursor",
    "Revision",
    "SkillRepository",
    "Write",
]

Entry = Skill | Memory
EntryRepository = SkillRepository | MemoryRepository


@dataclass(frozen=True)
class Write:
    """Make entry `entry_id` equal to `value` (None: absent). `expected_revision` is the
    revision the writer saw (0: absent); None writes over whatever is there."""

    entry_id: str
    value: Entry | None
    expected_revision: int | None = None


def check_id(kind: str, entry_id: str) -> str:
    if not entry_id.strip():
        raise InputError(f"{singular(kind)} id: must not be empty")
    return entry_id


def check_tag(tag: str) -> str:
    tag = tag.strip()
    if not tag or "," in tag:
        raise InputError("tag: must be non-empty and contain no comma")
    return tag


class CatalogService:
    """The catalog of one open workspace."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    # reads --------------------------------------------------------------------------
    def repository(self, kind: str) -> EntryRepository:
        """Read-only paging and counting for the views (writes go through this class)."""
        if kind == "skills":
            return self.workspace.skills
        if kind == "memories":
            return self.workspace.memories
        raise ValueError(f"not a catalog kind: {kind!r}")

    def get(self, kind: str, entry_id: str) -> tuple[Entry, int] | None:
        """The entry and its revision, or None when absent."""
        repo = self.repository(kind)
        if isinstance(repo, SkillRepository):
            skill = repo.stored(entry_id)
            return None if skill is None else (skill.skill, skill.meta.revision)
        memory = repo.stored(entry_id)
        return None if memory is None else (memory.memory, memory.meta.revision)

    def revision_of(self, kind: str, entry_id: str) -> int | None:
        return self.repository(kind).revision_of(entry_id)

    def history(self, kind: str, entry_id: str) -> list[Revision]:
        return self.repository(kind).history(entry_id)

    def stored_row(self, kind: str, entry_id: str) -> dict[str, object] | None:
        """The entry as the history stores values (for diffs against revisions)."""
        found = self.get(kind, entry_id)
        if found is None:
            return None
        entry = found[0]
        return skill_to_row(entry) if isinstance(entry, Skill) else memory_to_row(entry)

    @staticmethod
    def revision_entry(kind: str, revision: Revision) -> Entry | None:
        """The value a revision holds (after it, or before it for a delete)."""
        value = revision.after if revision.after is not None else revision.before
        if value is None:
            return None
        return skill_from_value(value) if kind == "skills" else memory_from_value(value)

    def unique_id(self, kind: str, base: str) -> str:
        if self.revision_of(kind, base) is None:
            return base
        n = 2
        while self.revision_of(kind, f"{base}-{n}") is not None:
            n += 1
        return f"{base}-{n}"

    def new_entry(self, kind: str) -> Entry:
        if kind == "skills":
            return Skill(self.unique_id(kind, "new-skill"), "New skill")
        return Memory(self.unique_id(kind, "new-memory"), "")

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
        ws = self.workspace
        if batch is None and len(writes) > 1:
            batch = ws.new_batch_id()
        out: dict[str, int] = {}
        with ws.transaction():
            for i, (kind, w) in enumerate(writes):
                if before_each is not None:
                    before_each(i)
                out[w.entry_id] = self._write(kind, w, batch, op)
            if before_each is not None:
                before_each(len(writes))
        return out

    def _write(self, kind: str, w: Write, batch: str | None, op: str | None) -> int:
        repo = self.repository(kind)
        if w.value is None:
            if w.expected_revision != 0:
                repo.delete(w.entry_id, expected_revision=w.expected_revision, batch=batch)
            return 0
        if w.value.id != w.entry_id:
            raise WorkspaceError(
                f"{singular(kind)} '{w.entry_id}': a write cannot change the id "
                f"(to '{w.value.id}'); rename it instead"
            )
        check_id(kind, w.entry_id)
        return repo.upsert(
            w.value,  # type: ignore[arg-type]  # the repository of its kind
            expected_revision=w.expected_revision,
            batch=batch,
            op=op,
        )

    def create(self, kind: str, entry: Entry) -> int:
        return self.write(kind, [Write(entry.id, entry, 0)])[entry.id]

    def edit(self, kind: str, entry: Entry, expected_revision: int | None) -> int:
        return self.write(kind, [Write(entry.id, entry, expected_revision)])[entry.id]

    # Each of these reads, then writes what it read decides: the read happens inside the
    # (immediate) write transaction, so it sees every commit made before the write lock
    # was ours, and nothing can change between the read and the write.

    def delete(self, kind: str, ids: Iterable[str]) -> list[tuple[Entry, int]]:
        """Delete the entries that exist, at the revisions read now; returns them."""
        with self.workspace.transaction():
            found = [(i, self.get(kind, i)) for i in dict.fromkeys(ids)]
            gone = [(i, f) for i, f in found if f is not None]
            self.write(kind, [Write(i, None, f[1]) for i, f in gone])
        return [f for _i, f in gone]

    def rename(self, kind: str, old_id: str, new_id: str) -> None:
        """Change an entry's id (its history stays under both ids)."""
        check_id(kind, new_id)
        with self.workspace.transaction():
            if new_id != old_id and self.revision_of(kind, new_id) is not None:
                raise WorkspaceError(
                    f"{singular(kind)} '{new_id}' already exists; choose another id"
                )
            self.repository(kind).rename(old_id, new_id)

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
            entry, revision = found
            if (tag in entry.tags) == add:
                continue
            tags = (*entry.tags, tag) if add else tuple(t for t in entry.tags if t != tag)
            out.append((Write(entry_id, replace(entry, tags=tags), revision), entry))
        return out

    def tag(self, kind: str, ids: Iterable[str], tag: str, *, add: bool) -> dict[str, int]:
        """Add or remove `tag` on the entries, in one transaction."""
        with self.workspace.transaction():
            return self.write(kind, [w for w, _e in self.tag_changes(kind, ids, tag, add=add)])

    def restore(self, kind: str, revision: Revision) -> int:
        """Bring an entry back to the value of a revision of its history."""
        entry = self.revision_entry(kind, revision)
        if entry is None:
            raise WorkspaceError("that revision holds no value to restore")
        with self.workspace.transaction():
            found = self.get(kind, entry.id)
            expected = 0 if found is None else found[1]
            return self.write(kind, [Write(entry.id, entry, expected)], op="restore")[entry.id]
