"""The search checks of a whole catalog at once: the same findings as running
`unreachable`, `id_not_searchable`, `terms_beyond_cut` and `competing_skills` entry by
entry, in a fraction of the time.

- Every id search and name search goes through one `TopRanker` (shared postings, tied
  documents scored once; see toprank.py) instead of a ranked search each.
- "Can any search reach this entry" is read off its indexed terms: they are the id's
  words and the prose terms of its fields (neither tokenizer keeps a word that is never a
  term), and a prose term is never a stopword, so the entry is reachable when one indexed
  term is not a stopword. Only the rare entry whose terms are all stopwords is looked at
  field by field (`unreachable` decides).
- Terms beyond the content cut are compared with the indexed terms too; only the text
  after the cut is tokenized again. Id words are split only for a message.

Tests compare the report with the entry-by-entry checks on random catalogs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import filterfalse

from axmem_gui.core.ax.documents import (
    memory_columns,
    memory_fields,
    skill_columns,
    skill_fields,
)
from axmem_gui.core.ax.index import SearchIndex
from axmem_gui.core.ax.jstext import js_trim, utf16_len, utf16_tail
from axmem_gui.core.ax.profile import AxProfile
from axmem_gui.core.ax.tokenize import Tokenizer
from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.lint.model import EntryKind, Finding, LintOptions
from axmem_gui.core.lint.searchability import (
    _Entry,
    competing_finding,
    cut_finding,
    id_finding,
    stopword_only,
    unreachable,
)
from axmem_gui.core.lint.toprank import Hit, TopRanker

Entry = Skill | Memory


def _is_ascii_number(word: str) -> bool:
    return word.isascii() and word.isdigit()


def _prose_many(tokenizer: Tokenizer, texts: Sequence[str]) -> list[tuple[str, ...]]:
    """`tuple(tokenizer.prose(js_trim(text)))` of each text, tokenized together."""
    words = tokenizer.prose_many([js_trim(t) for t in texts])
    # prose_many may leave words of ASCII digits in: prose drops them
    return [tuple(filterfalse(_is_ascii_number, w)) for w in words]


class CatalogSearches:
    """The id searches of one kind's entries (and, for skills, the name searches), all
    answered by one ranker over the documents `terms` (in the order of `entries`, one
    per entry, as the index holds them)."""

    def __init__(
        self,
        kind: EntryKind,
        entries: Sequence[Entry],
        terms: Sequence[Mapping[str, float]],
        profile: AxProfile,
        tokenizer: Tokenizer,
        names: bool,
    ) -> None:
        self.kind = kind
        self.entries = entries
        self.terms = terms
        self.profile = profile
        self.tokenizer = tokenizer
        ids = list(dict.fromkeys(e.id for e in entries))
        self.id_tokens = dict(zip(ids, _prose_many(tokenizer, ids), strict=True))
        self.name_tokens: dict[str, tuple[str, ...]] = {}
        if names:
            texts = list(dict.fromkeys(e.name for e in entries if isinstance(e, Skill)))
            self.name_tokens = dict(zip(texts, _prose_many(tokenizer, texts), strict=True))
        query_terms: set[str] = set()
        for tokens in (*self.id_tokens.values(), *self.name_tokens.values()):
            query_terms.update(tokens)
        self.ranker = TopRanker([e.id for e in entries], terms, query_terms)
        self._tops: dict[tuple[tuple[str, ...], int], tuple[Hit, ...]] = {}

    def top(self, tokens: tuple[str, ...], k: int) -> tuple[Hit, ...]:
        key = (tokens, k)
        found = self._tops.get(key)
        if found is None:
            found = self._tops[key] = self.ranker.top(tokens, k)
        return found

    def _fields(self, e: Entry) -> _Entry:
        if isinstance(e, Skill):
            return _Entry("skill", e.id, skill_fields(e, self.profile, self.tokenizer))
        return _Entry("memory", e.id, memory_fields(e, self.profile, self.tokenizer))

    def entry_findings(
        self, options: LintOptions, top_k: int, cut_chars: int
    ) -> tuple[dict[str, Finding], dict[str, Finding]]:
        """Per id (its first entry; repeats are reported by identity checks): the
        unreachable or id-not-searchable finding, and the terms-beyond-cut finding."""
        tokenizer = self.tokenizer
        stopwords = tokenizer.stopwords
        searched: dict[str, Finding] = {}
        beyond: dict[str, Finding] = {}
        done: set[str] = set()
        for e, tf in zip(self.entries, self.terms, strict=True):
            if e.id in done:
                continue
            done.add(e.id)
            dead: Finding | None = None
            if stopwords.issuperset(tf):
                dead = unreachable(self._fields(e), tokenizer)
            if dead is not None:
                searched[e.id] = dead
            elif js_trim(e.id):
                tokens = self.id_tokens[e.id]
                ids = [hit.id for hit in self.top(tokens, top_k)]
                if e.id not in ids:
                    id_words = tokenizer.identifier(e.id)
                    searched[e.id] = id_finding(self.kind, e.id, id_words, tokens, ids)
            content = e.content
            if len(content) > cut_chars or (
                not content.isascii() and utf16_len(content) > cut_chars
            ):
                # The indexed terms are the terms of every field (see the module doc).
                cut_text = utf16_tail(content, cut_chars)
                if cut_text:
                    cut_terms = tokenizer.prose(cut_text)
                    cut = cut_finding(
                        self.kind, e.id, cut_text, cut_terms, tf, options, cut_chars, tokenizer
                    )
                    if cut is not None:
                        beyond[e.id] = cut
        return searched, beyond

    def competing(self, skills: Sequence[Skill], names: Mapping[str, str]) -> list[Finding]:
        """`competing_skills(skills, index, names=names)` (the skills' names must be
        among those this was made with)."""
        out = []
        for s in skills:
            if not js_trim(s.name):
                continue
            tokens = self.name_tokens[s.name]
            # When the skill comes first, only a document tying it can make a finding:
            # the search for ties walks far less than the exact top 2.
            ranked = self.ranker.top(tokens, 2, ties=True)
            if ranked and ranked[0].id != s.id:
                ranked = self.top(tokens, 2)  # another comes first: the exact top 2
            found = competing_finding(s, ranked, names)
            if found is not None:
                out.append(found)
        return out


def searchability_findings(
    skills: Sequence[Skill],
    memories: Sequence[Memory],
    profile: AxProfile,
    options: LintOptions,
) -> list[Finding]:
    """Every search check of the catalog, in the order `per_entry_searchability_findings`
    gives them (the same findings)."""
    tokenizer = Tokenizer(profile)
    # The bulk path: the same indexes as one `skill_document` / `memory_document` each.
    skill_index = SearchIndex(tokenizer)
    skill_handles = skill_index.extend_columns(skill_columns(skills, profile))
    memory_index = SearchIndex(tokenizer)
    memory_handles = memory_index.extend_columns(memory_columns(memories, profile))
    skill_searches = CatalogSearches(
        "skill",
        skills,
        [skill_index.terms_of(h) for h in skill_handles],
        profile,
        tokenizer,
        names=options.competition,
    )
    del skill_index  # the ranker holds what it needs: the terms of each document
    memory_searches = CatalogSearches(
        "memory",
        memories,
        [memory_index.terms_of(h) for h in memory_handles],
        profile,
        tokenizer,
        names=False,
    )
    del memory_index
    out: list[Finding] = []
    for searches, top_k, cut_chars in (
        (skill_searches, profile.skill_search_top_k, profile.skill_content_chars),
        (memory_searches, profile.memory_search_top_k, profile.memory_content_chars),
    ):
        searched, beyond = searches.entry_findings(options, top_k, cut_chars)
        done: set[str] = set()
        for e in searches.entries:
            if e.id in done:
                continue
            done.add(e.id)
            for table in (searched, beyond):
                f = table.get(e.id)
                if f is not None:
                    out.append(f)
    for s in {s.id: s for s in skills}.values():
        out += stopword_only(s, tokenizer)
    if options.competition:
        out += skill_searches.competing(skills, {s.id: s.name for s in skills})
    return out
