"""The catalog as the layers above the store read it: an entry with its stored facts,
the revisions of its history, and the rows lazy views page through.

Plain typed data: the store builds these, services hand them on, the views show them;
nothing here knows SQL.
"""

from __future__ import annotations

from dataclasses import dataclass

from axmem_gui.core.catalog import Memory, Skill

Entry = Skill | Memory


@dataclass(frozen=True, slots=True)
class EntryMeta:
    """What the workspace keeps beside an entry's value."""

    revision: int
    created_at: str
    updated_at: str


@dataclass(frozen=True, slots=True)
class StoredEntry:
    """An entry as stored: its value and metadata."""

    entry: Entry
    meta: EntryMeta

    @property
    def revision(self) -> int:
        return self.meta.revision


@dataclass(frozen=True, slots=True)
class Revision:
    """One change to an entry, with its full value before and after (None: absent).

    `kind` is the entry kind ("skill", "memory"); `op` is create, update, delete, rename
    or restore; `batch` groups the revisions one edit wrote together."""

    pk: int
    kind: str
    entry_id: str
    revision: int
    op: str
    before: Entry | None
    after: Entry | None
    at: str
    batch: str | None

    @property
    def value(self) -> Entry | None:
        """What the entry held at this revision (a delete: the value it removed)."""
        return self.after if self.after is not None else self.before


#: The value a lazy page is ordered by: text, a number, or NULL.
SortKey = str | int | float | None
#: Where a keyset page ended: (sort key, pk) of its last row.
PageCursor = tuple[SortKey, int]
#: One loaded row of a lazy page: (pk, sort key, id, then the entry's stored columns).
#: An exact tuple of strings and numbers: the cycle collector does not track it, so
#: 100,000 loaded rows add nothing to what each full collection walks (parsed entries
#: added five objects a row). Parse one with `CatalogTable.parse` where it is shown.
PageRow = tuple[int, SortKey, str, *tuple[str | int | float | None, ...]]
