"""Lint kept up to date per edit: the report of `lint_catalog`, recomputed only where an
edit can change it.

A full lint of 10,000 skills and 100,000 memories takes many seconds, mostly searching
each entry's id (and each skill's name) against the whole catalog. After an edit of some
existing entries (ids unchanged, nothing added or removed), a search's ranking can only
change if one of its terms changed frequency in an edited document: the document count
and every other term's frequencies are the same, and a ranking reads nothing else. So
a `LintSession` keeps its search indexes and per-entry findings, re-indexes the edited
entries, and re-runs only the entry checks and the searches that involve a changed term.
Anything else (entries added, removed or renamed, duplicate ids) lints from scratch.
The report is always exactly `lint_catalog(catalog, options)`; tests compare the two.

A session either owns its indexes (built from the catalog, patched by the session), or
borrows the indexes someone else keeps of the catalog (`IndexedCatalog`: the app's
shared ones, which its owner patches per edit). A borrowed index is read only while
lent (until `IndexedCatalog.release`): a full run copies what its searches need (the
postings of the words searched for) and gives it back before ranking; `sync` brings
the session to the lent catalog, reading the terms the edited entries have now and
ranking the searches an edit can change.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import chain, repeat
from typing import Any

from axmem_gui.core.ax.documents import (
    memory_columns,
    memory_document,
    memory_fields,
    skill_columns,
    skill_document,
    skill_fields,
)
from axmem_gui.core.ax.index import SearchIndex
from axmem_gui.core.ax.jstext import js_trim
from axmem_gui.core.ax.profile import AXLLM_PROFILE, AxProfile, load_profile
from axmem_gui.core.ax.ranking import RankOptions, term_frequencies
from axmem_gui.core.ax.runtime_diff import RuntimeDifferences
from axmem_gui.core.ax.tokenize import Tokenizer
from axmem_gui.core.catalog import Catalog, Memory, Skill
from axmem_gui.core.lint.batch import CatalogSearches, stopword_only_many
from axmem_gui.core.lint.budget import IndexSize, budget_findings, index_size
from axmem_gui.core.lint.identity import (
    duplicate_ids,
    near_duplicate_ids,
    padded_and_empty_ids,
    skill_text_fields,
)
from axmem_gui.core.lint.model import EntryKind, Finding, LintOptions, LintReport
from axmem_gui.core.lint.runtime import runtime_findings
from axmem_gui.core.lint.searchability import (
    RankCache,
    _Entry,
    competing_skills,
    id_not_searchable,
    stopword_only,
    terms_beyond_cut,
    unreachable,
)
from axmem_gui.core.lint.shared_index import IndexedCatalog, SharedIndex

Entry = Skill | Memory
#: {entry id: the entry as it is now} for one kind ("skills" or "memories").
Changes = Mapping[str, Entry | None]
#: Entries looked up per C call when assembling the report (lint runs on a worker
#: thread: no single call over 100,000 entries holds the GIL for long).
_SLICE = 8192


class _Found:
    """What the checks found, per entry id: one dict per check, holding only the entries
    with a finding (a record per entry would be 100,000 more objects for the garbage
    collector to walk on the GUI thread)."""

    def __init__(self) -> None:
        self.text: dict[str, tuple[Finding, ...]] = {}  # empty name / description
        self.search: dict[str, Finding] = {}  # unreachable, or id-not-searchable
        self.beyond: dict[str, Finding] = {}  # terms beyond the content cut
        self.stopwords: dict[str, tuple[Finding, ...]] = {}  # stopword-only name / desc.
        self.competing: dict[str, Finding] = {}  # skills

    def put(self, entry_id: str, check: str, value: Finding | tuple[Finding, ...] | None) -> None:
        table: dict[str, Any] = getattr(self, check)
        if value:
            table[entry_id] = value
        else:
            table.pop(entry_id, None)


class _Domain:
    def __init__(
        self,
        kind: EntryKind,
        entries: Sequence[Entry],
        session: LintSession,
        shared: SharedIndex | None = None,
    ) -> None:
        self.kind = kind
        self.session = session
        # A tuple (the catalog's own, not a copy): a list of 100,000 entries costs every
        # full collection a walk of it, a tuple of untracked entries can be untracked.
        self.entries: tuple[Entry, ...] = tuple(entries)
        self.position = {e.id: i for i, e in enumerate(self.entries)}
        profile = session.profile
        if kind == "skill":
            self.options = RankOptions.best_effort(profile.skill_search_top_k)
            self.cut = profile.skill_content_chars
        else:
            self.options = RankOptions.best_effort(profile.memory_search_top_k)
            self.cut = profile.memory_content_chars
        #: True: the session built `index` and patches it; False: `index` is lent (by
        #: `IndexedCatalog`), and None whenever it is not.
        self.owned = shared is None
        if shared is None:
            shared = self._build()
        self.index: SearchIndex | None = shared.index
        self.handles: Mapping[str, int] = shared.handles
        # The batched searches, for `check_all` (which drops them): made here, while
        # the index may be read (they keep what they need of it).
        self._searches: CatalogSearches | None = CatalogSearches(
            kind,
            self.entries,
            shared.index,
            [shared.handles[e.id] for e in self.entries],
            profile,
            session.tokenizer,
            names=kind == "skill",
        )
        #: search term -> ids whose id search (or, for skills, name search) has it. The ids
        #: are dict keys (values None), not sets: a dict of text is untracked by the cyclic
        #: collector, 15,000 sets of 250,000 ids at 100,000 memories were walked by it.
        self.id_queries: dict[str, dict[str, None]] = {}
        self.name_queries: dict[str, dict[str, None]] = {}
        #: the checks of the ids themselves (made by `check_all`: they need no index)
        self.identity: list[Finding] = []
        self.found = _Found()

    def _build(self) -> SharedIndex:
        profile = self.session.profile
        index = SearchIndex(self.session.tokenizer)
        if self.kind == "skill":
            skills = [e for e in self.entries if isinstance(e, Skill)]
            handles = index.extend_columns(skill_columns(skills, profile))
        else:
            memories = [e for e in self.entries if isinstance(e, Memory)]
            handles = index.extend_columns(memory_columns(memories, profile))
        return SharedIndex(index, dict(zip((e.id for e in self.entries), handles, strict=True)))

    def give_back(self) -> None:
        """Forget a lent index (its owner may patch it from now on)."""
        if not self.owned:
            self.index, self.handles = None, {}

    def _searched_index(self) -> SearchIndex:
        assert self.index is not None, "a lent index is read only while lent"
        return self.index

    # queries --------------------------------------------------------------------------
    def _terms(self, text: str) -> list[str]:
        return self.session.tokenizer.prose(js_trim(text))

    def _remember_queries(self, e: Entry) -> None:
        for term in self._terms(e.id):
            self.id_queries.setdefault(term, {})[e.id] = None
        if isinstance(e, Skill):
            for term in self._terms(e.name):
                self.name_queries.setdefault(term, {})[e.id] = None

    def _forget_name_query(self, e: Skill) -> None:
        for term in self._terms(e.name):
            members = self.name_queries.get(term)
            if members is not None:
                members.pop(e.id, None)

    # checks ---------------------------------------------------------------------------
    def _fields(self, e: Entry) -> _Entry:
        profile, tokenizer = self.session.profile, self.session.tokenizer
        if isinstance(e, Skill):
            return _Entry("skill", e.id, skill_fields(e, profile, tokenizer))
        return _Entry("memory", e.id, memory_fields(e, profile, tokenizer))

    def _check(self, e: Entry, cache: RankCache) -> None:
        """Every check of one entry but the competition (which `_compete` runs)."""
        tokenizer, found = self.session.tokenizer, self.found
        entry = self._fields(e)
        search = unreachable(entry, tokenizer)
        if search is None:
            search = id_not_searchable(
                entry, self._searched_index(), self.options, tokenizer, cache
            )
        found.put(e.id, "search", search)
        beyond = terms_beyond_cut(entry, self.session.options, self.cut, tokenizer)
        found.put(e.id, "beyond", beyond)
        if isinstance(e, Skill):
            found.put(e.id, "text", tuple(skill_text_fields([e])))
            found.put(e.id, "stopwords", tuple(stopword_only(e, tokenizer)))

    def check_all(self) -> None:
        """Every check of every entry, the searches batched (`CatalogSearches`) over what
        they read of the index when the domain was made (no index needed now)."""
        session, found = self.session, self.found
        profile, tokenizer = session.profile, session.tokenizer
        competition = self.kind == "skill" and session.options.competition
        searches, self._searches = self._searches, None
        assert searches is not None, "check_all runs once"
        skills = [e for e in self.entries if isinstance(e, Skill)]
        ids = list(self.position)
        self.identity = [
            *duplicate_ids(ids, self.kind),
            *near_duplicate_ids(ids, self.kind),
            *padded_and_empty_ids(ids, self.kind),
        ]
        # What each search has, to know which searches an edit can change (the searches'
        # own tokens: `_terms` of each id and name).
        for queries, tokens_of in (
            (self.id_queries, ((e.id, searches.id_tokens[e.id]) for e in self.entries)),
            (self.name_queries, ((s.id, searches.name_tokens[s.name]) for s in skills)),
        ):
            for entry_id, tokens in tokens_of:
                for term in tokens:
                    members = queries.get(term)
                    if members is None:
                        queries[term] = {entry_id: None}
                    else:
                        members[entry_id] = None
        top_k = profile.skill_search_top_k if self.kind == "skill" else profile.memory_search_top_k
        found.search, found.beyond = searches.entry_findings(session.options, top_k)
        for s, stopwords in zip(skills, stopword_only_many(skills, tokenizer), strict=True):
            found.put(s.id, "text", tuple(skill_text_fields([s])))
            found.put(s.id, "stopwords", tuple(stopwords))
        if competition:
            names = {s.id: s.name for s in skills}
            for f in searches.competing(skills, names):
                if f.entry_id is not None:
                    found.put(f.entry_id, "competing", f)

    def _research(self, entry_id: str, cache: RankCache) -> None:
        """Re-run only the id search of an unchanged entry (unreachable stays as it was)."""
        search = self.found.search.get(entry_id)
        if search is not None and search.code == "unreachable":
            return
        entry = self._fields(self.entries[self.position[entry_id]])
        search = id_not_searchable(
            entry, self._searched_index(), self.options, self.session.tokenizer, cache
        )
        self.found.put(entry_id, "search", search)

    def _compete(self, ids: Sequence[str], cache: RankCache) -> None:
        skills = [self.entries[self.position[i]] for i in ids]
        typed = [s for s in skills if isinstance(s, Skill)]
        for s in typed:
            self.found.put(s.id, "competing", None)
        names = {e.id: e.name for e in self.entries if isinstance(e, Skill)}
        for f in competing_skills(typed, self._searched_index(), cache, names):
            if f.entry_id is not None:
                self.found.put(f.entry_id, "competing", f)

    # patching -------------------------------------------------------------------------
    def can_patch(self, changes: Changes) -> bool:
        return all(
            entry is not None and entry.id == entry_id and entry_id in self.position
            for entry_id, entry in changes.items()
        )

    def patch(self, changes: Changes, lent: SharedIndex | None = None) -> None:
        """Edits of existing entries (checked by `can_patch`). With `lent`: the index
        someone else keeps, already holding the edited entries (the session's own index,
        if it has one, is patched here)."""
        if lent is not None:
            self.index, self.handles = lent.index, lent.handles
        try:
            self._patch(changes)
        finally:
            self.give_back()

    def _document(self, entry: Entry) -> Any:
        profile = self.session.profile
        if isinstance(entry, Skill):
            return skill_document(entry, profile)
        return memory_document(entry, profile)

    def _patch(self, changes: Changes) -> None:
        index = self._searched_index()
        changed_terms: set[str] = set()
        edited: list[str] = []
        replaced: dict[int, Entry] = {}
        for entry_id, entry in changes.items():
            assert entry is not None
            at = self.position[entry_id]
            old = self.entries[at]
            if old == entry:
                continue
            handle = self.handles[entry_id]
            if self.owned:
                before = dict(index.terms_of(handle))
                index.update(handle, self._document(entry))
            else:
                # The lent index holds the edit already: the old terms are recounted (words
                # that are never a term may be among them: no search has them).
                before = term_frequencies(self._document(old), self.session.tokenizer)
            after = index.terms_of(handle)
            changed_terms.update(t for t in before.keys() | after.keys()
                                 if before.get(t) != after.get(t))
            if isinstance(old, Skill):
                self._forget_name_query(old)
            replaced[at] = entry
            self._remember_queries(entry)
            edited.append(entry_id)
        if not edited:
            return
        entries = list(self.entries)
        for at, entry in replaced.items():
            entries[at] = entry
        self.entries = tuple(entries)
        cache: RankCache = {}
        for entry_id in edited:
            self._check(self.entries[self.position[entry_id]], cache)
        searched = set(edited)
        for term in changed_terms:
            for entry_id in self.id_queries.get(term, ()):
                if entry_id not in searched:
                    searched.add(entry_id)
                    self._research(entry_id, cache)
        if self.kind == "skill" and self.session.options.competition:
            rivals = set(edited)
            for term in changed_terms:
                rivals.update(self.name_queries.get(term, ()))
            # A finding names its rival: an edited rival's name may be in its message.
            rivals.update(
                i for i, f in self.found.competing.items() if not rivals.isdisjoint(f.related)
            )
            self._compete(sorted(rivals, key=self.position.__getitem__), cache)


class LintSession:
    """The lint report of a catalog, patched per edit; `report` is always exact.

    With `indexed` (the catalog and indexes made of it, lent), the session builds no index
    of its own: see `sync`."""

    def __init__(
        self,
        catalog: Catalog,
        options: LintOptions | None = None,
        profile: AxProfile | None = None,
        indexed: IndexedCatalog | None = None,
    ) -> None:
        self.options = options or LintOptions()
        self.profile = profile or load_profile()
        self.tokenizer = Tokenizer(self.profile)
        self.full_runs = 0
        # the size of the skills index, and the skills it is of (an edit of a memory
        # leaves it as it is)
        self._index_size: tuple[tuple[Skill, ...], IndexSize] | None = None
        self._runtimes = RuntimeDifferences(self.profile, load_profile(AXLLM_PROFILE))
        self.report = self._load(catalog, indexed)

    def held(self) -> Iterator[Sequence[Entry] | Mapping[str, object]]:
        """The entries and the big tables of findings this session keeps between runs (the
        GUI takes them out of the cyclic garbage collector's walk, see `ui/collector.py`)."""
        for domain in self._domains.values():
            yield domain.entries
            found = domain.found
            yield from (found.text, found.search, found.beyond, found.stopwords, found.competing)
        if self._index_size is not None:
            yield self._index_size[0]  # the skills the index size is of

    def _load(self, catalog: Catalog, indexed: IndexedCatalog | None = None) -> LintReport:
        from axmem_gui.core.lint import lint_catalog

        if indexed is not None and indexed.catalog is not catalog:
            raise ValueError("the lent indexes are of another catalog")
        self.full_runs += 1
        self._catalog: Catalog | None = catalog
        skill_ids = [s.id for s in catalog.skills]
        memory_ids = [m.id for m in catalog.memories]
        self._patchable = len(set(skill_ids)) == len(skill_ids) and len(
            set(memory_ids)
        ) == len(memory_ids)
        if not self._patchable:
            # Repeated ids: lint reports them, and only a full run knows their order.
            if indexed is not None:
                indexed.release()
            self._domains: dict[str, _Domain] = {}
            return lint_catalog(catalog, self.options, self.profile)
        try:
            self._domains = {
                "skills": _Domain(
                    "skill", catalog.skills, self, indexed.skills if indexed else None
                ),
                "memories": _Domain(
                    "memory", catalog.memories, self, indexed.memories if indexed else None
                ),
            }
        finally:
            if indexed is not None:
                indexed.release()  # each document's terms are read: ranking needs no index
        for domain in self._domains.values():
            domain.give_back()
            domain.check_all()
        return self._assemble()

    def sync(self, indexed: IndexedCatalog) -> LintReport:
        """Bring the report to `indexed.catalog`, reading the lent indexes (released on
        return): only the entries that differ are linted again when just existing
        entries changed; anything else lints the catalog from scratch, still building
        no index."""
        catalog = indexed.catalog
        if catalog is self._catalog:
            indexed.release()
            return self.report
        try:
            if not (self._patchable and self._same_ids(catalog)):
                self.report = self._load(catalog, indexed)
                return self.report
            kinds: tuple[tuple[str, Sequence[Entry], SharedIndex], ...] = (
                ("skills", catalog.skills, indexed.skills),
                ("memories", catalog.memories, indexed.memories),
            )
            for kind, entries, lent in kinds:
                domain = self._domains[kind]
                old = domain.entries
                changes: dict[str, Entry | None] = {
                    e.id: e for at, e in enumerate(entries) if old[at] is not e and old[at] != e
                }
                if changes:
                    domain.patch(changes, None if domain.owned else lent)
        finally:
            indexed.release()
        self._catalog = catalog
        self.report = self._assemble()
        return self.report

    def catalog(self) -> Catalog:
        if self._catalog is None:
            skills = tuple(e for e in self._domains["skills"].entries if isinstance(e, Skill))
            memories = tuple(
                e for e in self._domains["memories"].entries if isinstance(e, Memory)
            )
            self._catalog = Catalog(skills=skills, memories=memories)
        return self._catalog

    def reload(self, catalog: Catalog, options: LintOptions | None = None) -> LintReport:
        """Lint `catalog` from scratch (with new options, if given)."""
        if options is not None:
            self.options = options
        self.report = self._load(catalog)
        return self.report

    def patch(self, kind: str, changes: Changes) -> bool:
        """Apply edits of entries of one kind ("skills" or "memories"). False when the
        change is not an edit of existing entries: call `reload` with the catalog."""
        domain = self._domains.get(kind)
        if domain is None or not domain.owned or not domain.can_patch(changes):
            return False
        domain.patch(changes)
        self._catalog = None
        self.report = self._assemble()
        return True

    def refresh(self, catalog: Catalog) -> LintReport:
        """Bring the report to `catalog`: patched when only existing entries changed."""
        owned = all(d.owned for d in self._domains.values())
        if owned and self._patchable and self._same_ids(catalog):
            for kind, entries in (("skills", catalog.skills), ("memories", catalog.memories)):
                domain = self._domains[kind]
                changes = {
                    e.id: e for e in entries if domain.entries[domain.position[e.id]] != e
                }
                if changes:
                    domain.patch(changes)
            self._catalog = None
            self.report = self._assemble()
            return self.report
        return self.reload(catalog)

    def _same_ids(self, catalog: Catalog) -> bool:
        for kind, entries in (("skills", catalog.skills), ("memories", catalog.memories)):
            domain = self._domains[kind]
            if [e.id for e in entries] != [e.id for e in domain.entries]:
                return False
        return True

    def _assemble(self) -> LintReport:
        """The findings in the order `lint_catalog` makes them, then its stable sort."""
        from axmem_gui.core.lint import order_findings

        skills_domain, memories_domain = self._domains["skills"], self._domains["memories"]
        skills = [e for e in skills_domain.entries if isinstance(e, Skill)]
        memories = [e for e in memories_domain.entries if isinstance(e, Memory)]
        findings: list[Finding] = [*skills_domain.identity, *memories_domain.identity]
        found = skills_domain.found
        # (the entries' ids in order are the keys of `position`; no repeats)
        skill_ids = list(skills_domain.position)
        findings += chain.from_iterable(map(found.text.get, skill_ids, repeat(())))
        for domain in (skills_domain, memories_domain):
            search, beyond = domain.found.search, domain.found.beyond
            ids = list(domain.position)
            for start in range(0, len(ids), _SLICE):
                part = ids[start : start + _SLICE]
                # each entry's search finding, then its beyond-the-cut one
                pairs = zip(map(search.get, part), map(beyond.get, part), strict=True)
                findings += filter(None, chain.from_iterable(pairs))
        findings += chain.from_iterable(map(found.stopwords.get, skill_ids, repeat(())))
        if self.options.competition:
            findings += filter(None, map(found.competing.get, skill_ids))
        key = tuple(skills)
        if self._index_size is None or self._index_size[0] != key:  # skills changed
            self._index_size = (key, index_size(skills, self.profile))
        size = self._index_size[1]
        findings += budget_findings(size, self.options.budget_tokens)
        findings += runtime_findings(skills, memories, self._runtimes.order(skills, memories))
        return order_findings(findings, skills, memories, size, self.options)
