"""The live search state the views share: the catalog they show, with Ax's search indexes
(and, on demand, the BM25 index) kept up to date incrementally.

An edit of one skill in a catalog of 10,000 re-indexes that skill, not the catalog. Results
are the same as searching a freshly built index, because the index keeps each entry's place
in document order, and document order only decides ties between ids with equal collation
keys; an edit that would put such a pair in a different order rebuilds everything instead.
A big catalog's index is built in two halves at once, the tail in another process
(services/index_worker.py). The retrieval bench (services/bench.py) searches it.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, KeysView, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from axmem_gui.core.ax.collation import collation_key
from axmem_gui.core.ax.documents import (
    DocumentColumns,
    memory_columns,
    memory_document,
    skill_columns,
    skill_document,
)
from axmem_gui.core.ax.index import SearchIndex
from axmem_gui.core.ax.profile import AxProfile
from axmem_gui.core.ax.ranking import RankDocument
from axmem_gui.core.ax.search import MemorySearch, SkillSearch
from axmem_gui.core.ax.tokenize import Tokenizer
from axmem_gui.core.catalog import Catalog, CatalogKind, Memory, Skill
from axmem_gui.core.chunked_sort import no_check
from axmem_gui.core.lint.shared_index import IndexedCatalog, ReadGate, SharedIndex
from axmem_gui.services.index_worker import IndexOffload, PartJob
from axmem_gui.store.fts import Bm25Index

__all__ = ["LiveSearch", "build_bm25_index"]


_Kept: TypeAlias = Callable[[Iterable[object]], object]


def _keep_nothing(held: Iterable[object]) -> None:
    del held


@dataclass
class _Away:
    """A domain's documents from `cut` on, being indexed by another process."""

    domain: str
    cut: int
    job: PartJob
    #: The other process gave no part: this one indexed them (see `job.error`).
    fell_back: bool = False


#: Seconds a load waits for the other process at least, beyond 8 times what its own part
#: took (then it builds that part itself).
PART_PATIENCE_S = 20.0
#: Entries handled per C call when loading a domain (CPython runs no other thread, the
#: GUI's included, during one C call).
_RUN = 4096


class _LiveDomain:
    """One catalog (skills or memories) with its Ax index, patched in place."""

    def __init__(
        self, domain: CatalogKind, profile: AxProfile, tokenizer: Tokenizer, on_kept: _Kept
    ) -> None:
        self.domain = domain
        self._on_kept = on_kept
        self.profile = profile
        self.tokenizer = tokenizer
        self.entries: dict[str, Skill | Memory] = {}
        self.version = 0
        self._index = SearchIndex(tokenizer)
        self._handles: dict[str, int] = {}
        #: How many ids collate to each key. A plain dict of bytes and ints: the cyclic
        #: collector untracks it (a Counter, 200,000 references at 100,000 memories, is
        #: walked by every full collection).
        self._keys: dict[bytes, int] = {}
        self._search: SkillSearch | MemorySearch | None = None
        self._tuple: tuple[Skill | Memory, ...] | None = None
        self._bm25: Bm25Index | None = None
        self.patchable = True

    def _document(self, entry: Skill | Memory) -> RankDocument:
        if isinstance(entry, Skill):
            return skill_document(entry, self.profile)
        return memory_document(entry, self.profile)

    def columns(self, entries: Sequence[Skill | Memory]) -> DocumentColumns:
        if self.domain == "skills":
            return skill_columns([e for e in entries if isinstance(e, Skill)], self.profile)
        return memory_columns([e for e in entries if isinstance(e, Memory)], self.profile)

    def load(
        self,
        entries: Sequence[Skill | Memory],
        columns: DocumentColumns | None = None,
        away: _Away | None = None,
        check: Callable[[], None] = no_check,
    ) -> None:
        """Index `entries` anew (`columns`: theirs, if made already; `away`: their tail
        being indexed by another process; `check`: called while waiting for it, raises
        to give up)."""
        ids = [e.id for e in entries]
        # Duplicate ids (possible in a catalog file, never in a workspace) would need the
        # catalog's own order for every later patch: such a catalog is only ever reloaded.
        self.patchable = len(set(ids)) == len(ids)
        self.entries = {e.id: e for e in entries}
        self._on_kept(self.entries)
        index = self._index = SearchIndex(self.tokenizer)
        if columns is None:
            columns = self.columns(entries)
        # The bulk path (field by field, as `SkillSearch.indexed` builds): same index,
        # about 15x faster than a record per document.
        if away is None:
            handles = index.extend_columns(columns)
        else:
            started = time.monotonic()
            handles = index.extend_columns(columns.part(0, away.cut))
            # The child has about as much to do: one far slower (stopped, starved) is
            # given up on, and its part built here.
            patience = max(PART_PATIENCE_S, 8 * (time.monotonic() - started))
            part = away.job.result(check, patience)
            merged = index.merge(part) if part is not None else None
            if merged is None:  # the same index, built here
                away.fell_back = True
                merged = index.extend_columns(columns.part(away.cut))
            handles += merged
        self._handles = dict(zip(ids, handles, strict=True))
        # counted in runs: one C call over 100,000 keys would keep the GUI thread waiting
        counts: Counter[bytes] = Counter()
        for start in range(0, len(handles), _RUN):
            counts.update(index.collation_keys_of(handles[start : start + _RUN]))
        self._keys = {}
        self._keys.update(counts.items())  # (a plain dict of atoms: untracked)
        if self._bm25 is not None:
            self._bm25.close()
            self._bm25 = None  # rebuilt on first use
        self._changed()

    def _changed(self) -> None:
        self.version += 1
        self._search = None
        self._tuple = None

    def can_patch(self, changes: Mapping[str, Skill | Memory | None]) -> bool:
        """Whether `patch(changes)` would apply them (rather than say a reload is needed)."""
        if not self.patchable:
            return False
        for entry_id, entry in changes.items():
            known = entry_id in self.entries
            if entry is not None and not known and self._keys.get(collation_key(entry_id), 0) > 0:
                return False  # a new id that collates equal to another: order matters
            if entry is not None and entry.id != entry_id:
                return False
        return True

    def patch(self, changes: Mapping[str, Skill | Memory | None]) -> bool:
        """Apply {id: new entry or None (deleted)}; False when only a reload is exact."""
        if not self.can_patch(changes):
            return False
        touched = False
        for entry_id, entry in changes.items():
            handle = self._handles.get(entry_id)
            if entry is None:
                if handle is None:
                    continue
                self._index.remove(handle)
                del self._handles[entry_id]
                del self.entries[entry_id]
                key = collation_key(entry_id)
                self._keys[key] -= 1
                if self._bm25 is not None:
                    self._bm25.remove([entry_id])
                touched = True
                continue
            if handle is not None and self.entries[entry_id] == entry:
                continue
            doc = self._document(entry)
            if handle is None:
                self._handles[entry_id] = self._index.add(doc)
                key = collation_key(entry_id)
                self._keys[key] = self._keys.get(key, 0) + 1
            else:
                self._index.update(handle, doc)
            self.entries[entry_id] = entry
            if self._bm25 is not None:
                self._bm25_upsert([entry])
            touched = True
        if touched:
            self._on_kept(self.entries)  # (a new entry put in a dict tracks the dict again)
            self._changed()
        return True

    def diff(self, entries: Sequence[Skill | Memory]) -> dict[str, Skill | Memory | None] | None:
        """The patch that turns the live entries into `entries`, None when it cannot."""
        new = {e.id: e for e in entries}
        if len(new) != len(entries):
            return None
        changes: dict[str, Skill | Memory | None] = {
            i: e for i, e in new.items() if self.entries.get(i) != e
        }
        changes.update({i: None for i in self.entries if i not in new})
        return changes

    @property
    def index(self) -> SearchIndex:
        return self._index

    @property
    def handles(self) -> Mapping[str, int]:
        return self._handles

    def entry_tuple(self) -> tuple[Skill | Memory, ...]:
        if self._tuple is None:
            self._tuple = tuple(self.entries.values())
            self._on_kept(self._tuple)
        return self._tuple

    def search(self) -> SkillSearch | MemorySearch:
        if self._search is None:
            # Made after every edit: over the live entries as they are, nothing copied.
            entries: Any = self.entry_tuple()  # one kind per domain
            by_id: Any = self.entries
            if self.domain == "skills":
                self._search = SkillSearch.shared(
                    entries, by_id, self.profile, self._index, self.tokenizer
                )
            else:
                self._search = MemorySearch.shared(
                    entries, by_id, self.profile, self._index, self.tokenizer
                )
        return self._search

    def _bm25_upsert(self, entries: Iterable[Skill | Memory]) -> None:
        assert self._bm25 is not None
        upsert_bm25(self._bm25, entries)

    def bm25(self) -> Bm25Index:
        if self._bm25 is None:
            self._bm25 = build_bm25_index(self.entries.values())
        return self._bm25

    def has_bm25(self) -> bool:
        return self._bm25 is not None

    def adopt_bm25(self, version: int, index: Bm25Index) -> bool:
        """Take an index built elsewhere from the entries of `version`; False (and the
        index closed) when the entries changed since or an index is already here."""
        if version != self.version or self._bm25 is not None:
            index.close()
            return False
        self._bm25 = index
        return True


def upsert_bm25(index: Bm25Index, entries: Iterable[Skill | Memory]) -> None:
    """Add or replace `entries` in `index`, one batch per kind."""
    entries = list(entries)
    index.upsert_skills(e for e in entries if isinstance(e, Skill))
    index.upsert_memories(e for e in entries if isinstance(e, Memory))


def build_bm25_index(entries: Iterable[Skill | Memory]) -> Bm25Index:
    """A BM25 index of `entries` (slow for a large catalog: build it on a worker)."""
    index = Bm25Index()
    upsert_bm25(index, entries)
    return index


class LiveSearch:
    """The catalog as the views see it, with Ax's search indexes kept current.

    `on_kept` is called with every big container of entries it keeps (the dict by id and
    the tuple of each kind, as they are made): the GUI takes them out of the cyclic
    garbage collector's walk (`ui/collector.py`)."""

    def __init__(
        self,
        profile: AxProfile,
        catalog: Catalog | None = None,
        on_kept: _Kept | None = None,
        offload: IndexOffload | None = None,
        check: Callable[[], None] | None = None,
    ) -> None:
        """`offload`: when and how to index part of a big catalog in another process
        (None: all here); `check`: called while waiting for that process, raises to
        give up (a cancelled job)."""
        self.profile = profile
        self.tokenizer = Tokenizer(profile)
        self._offload = offload
        #: The last load that indexed a part in another process (for the bench and tests).
        self.last_offload: _Away | None = None
        kept = on_kept or _keep_nothing
        self._skills = _LiveDomain("skills", profile, self.tokenizer, kept)
        self._memories = _LiveDomain("memories", profile, self.tokenizer, kept)
        self._catalog: Catalog | None = None
        #: Held while a reader on another thread (lint) reads the indexes: the owner's
        #: thread must not `load`, `patch` or `refresh` while it is `busy`.
        self.gate = ReadGate()
        self.load(catalog or Catalog(), check or no_check)

    def lend(self) -> IndexedCatalog:
        """The catalog and its search indexes as they are now, lent until the result's
        `release()` (call it from any thread; until then this must not change)."""
        catalog = self.catalog()
        release = self.gate.lend()
        return IndexedCatalog(
            catalog,
            SharedIndex(self._skills.index, self._skills.handles),
            SharedIndex(self._memories.index, self._memories.handles),
            release,
        )

    def _domain(self, domain: str) -> _LiveDomain:
        if domain == "skills":
            return self._skills
        if domain == "memories":
            return self._memories
        raise ValueError(f"not a catalog domain: {domain!r}")

    @property
    def version(self) -> tuple[int, int]:
        return (self._skills.version, self._memories.version)

    def _writable(self) -> None:
        if self.gate.busy:
            raise RuntimeError("the search index is lent to a reader: it cannot change now")

    def load(self, catalog: Catalog, check: Callable[[], None] = no_check) -> None:
        """Rebuild everything from `catalog` (opening a workspace, duplicate ids...)."""
        self._writable()
        self._load_domains({"skills": catalog.skills, "memories": catalog.memories}, check)
        self._catalog = None

    def _load_domains(
        self,
        entries: Mapping[str, Sequence[Skill | Memory]],
        check: Callable[[], None] = no_check,
    ) -> None:
        """Index each domain's entries anew; the biggest domain's tail in another process
        meanwhile, when the offload says that pays."""
        columns = {d: self._domain(d).columns(e) for d, e in entries.items()}
        away: _Away | None = None
        offload = self._offload
        if offload is not None and (plan := offload.plan(columns)) is not None:
            biggest, cut = plan
            job = offload.start(self.profile, columns[biggest].part(cut), cut)
            away = _Away(biggest, cut, job)
        try:
            # the domain waiting for the other process last: the rest is indexed meanwhile
            for domain in sorted(entries, key=lambda d: away is not None and away.domain == d):
                mine = away if away is not None and away.domain == domain else None
                self._domain(domain).load(entries[domain], columns[domain], mine, check)
        finally:
            if away is not None:
                away.job.cancel()
                self.last_offload = away

    def patch(self, domain: str, changes: Mapping[str, Skill | Memory | None]) -> bool:
        """Apply edits of some entries; False means the caller must `load` instead."""
        self._writable()
        before = self.version
        done = self._domain(domain).patch(changes)
        if self.version != before:
            self._catalog = None
        return done

    def refresh(self, catalog: Catalog) -> None:
        """Bring the live state to `catalog`, re-indexing only what differs."""
        self._writable()
        self.apply(catalog, self.diff(catalog))

    def diff(self, catalog: Catalog) -> dict[str, dict[str, Skill | Memory | None] | None]:
        """Per domain, the patch that turns the live entries into `catalog`'s (None: only
        a load is exact). Only reads: another thread may run it while the index is lent."""
        return {
            domain: self._domain(domain).diff(entries)
            for domain, entries in (("skills", catalog.skills), ("memories", catalog.memories))
        }

    def apply(
        self, catalog: Catalog, diffs: Mapping[str, Mapping[str, Skill | Memory | None] | None]
    ) -> None:
        """`refresh(catalog)` with the `diff(catalog)` made before (nothing changed since)."""
        self._writable()
        for domain, entries in (("skills", catalog.skills), ("memories", catalog.memories)):
            live = self._domain(domain)
            changes = diffs[domain]
            if changes is None or not live.patch(changes):
                self._load_domains({domain: entries})
                self._catalog = None
            elif changes:
                self._catalog = None

    def needs_load(
        self, diffs: Mapping[str, Mapping[str, Skill | Memory | None] | None]
    ) -> bool:
        """Whether `apply` of `diffs` would re-index a whole domain (seconds at 100,000
        entries), not patch it."""
        return any(
            changes is None or not self._domain(domain).can_patch(changes)
            for domain, changes in diffs.items()
        )

    def catalog(self) -> Catalog:
        if self._catalog is None:
            # Entry tuples are cached per domain: an edit of a skill does not copy the
            # 100,000 memories again.
            skills = self._skills.entry_tuple()
            memories = self._memories.entry_tuple()
            self._catalog = Catalog(skills=skills, memories=memories)  # type: ignore[arg-type]
        return self._catalog

    def skill_search(self) -> SkillSearch:
        search = self._skills.search()
        assert isinstance(search, SkillSearch)
        return search

    def memory_search(self) -> MemorySearch:
        search = self._memories.search()
        assert isinstance(search, MemorySearch)
        return search

    def ids(self, domain: str) -> list[str]:
        return list(self._domain(domain).entries)

    def has_ids(self, domain: str) -> KeysView[str]:
        """The domain's ids as they are now, for `in` (nothing is copied: a suite run on
        the GUI thread asks whether an id exists, it needs no list of 100,000)."""
        return self._domain(domain).entries.keys()

    def entry(self, domain: str, entry_id: str) -> Skill | Memory | None:
        return self._domain(domain).entries.get(entry_id)

    def bm25(self, domain: str) -> Bm25Index:
        """The BM25 index of a domain, built on first use and patched afterwards."""
        return self._domain(domain).bm25()

    def has_bm25(self, domain: str) -> bool:
        return self._domain(domain).has_bm25()

    def bm25_snapshot(self, domain: str) -> tuple[int, tuple[Skill | Memory, ...]]:
        """The domain's version and entries, for building its BM25 index elsewhere."""
        live = self._domain(domain)
        return live.version, live.entry_tuple()

    def adopt_bm25(self, domain: str, version: int, index: Bm25Index) -> bool:
        return self._domain(domain).adopt_bm25(version, index)
