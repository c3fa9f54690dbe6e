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
  after the cut is tokenized again.
- Entries whose id search fails share its message (it names what the search returns),
  made once per search; id words are split only to tell which message applies.

The index is read only while `CatalogSearches` is made (a lent index may change after).
Tests compare the report with the entry-by-entry checks on random catalogs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import compress, filterfalse, repeat
from operator import contains, lt, not_

from axmem_gui.core.ax.documents import (
    memory_columns,
    memory_fields,
    skill_columns,
    skill_fields,
)
from axmem_gui.core.ax.index import SearchIndex
from axmem_gui.core.ax.jstext import JS_WHITESPACE, js_trim, utf16_len, utf16_tail
from axmem_gui.core.ax.profile import AxProfile
from axmem_gui.core.ax.tokenize import Tokenizer
from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.lint.model import CODES, EntryKind, Finding, LintOptions
from axmem_gui.core.lint.searchability import (
    _Entry,
    competing_finding,
    cut_finding,
    id_finding,
    id_finding_text,
    stopword_only,
    unreachable,
)
from axmem_gui.core.lint.toprank import Hit, TopRanker

Entry = Skill | Memory
#: Texts tokenized per call (no single C call over a whole catalog's text).
_TEXTS_PER_CALL = 4096
_LOWER_ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789"
#: JavaScript's `\s` and Python's `str.split()` agree on these.
_ASCII_SPACE = " \t\n\v\f\r"


def _is_ascii_number(word: str) -> bool:
    return word.isascii() and word.isdigit()


def _prose_lists(tokenizer: Tokenizer, texts: Sequence[str]) -> list[list[str]]:
    """`tokenizer.prose(text)` of each text, tokenized together (a slice per call)."""
    out: list[list[str]] = []
    for start in range(0, len(texts), _TEXTS_PER_CALL):
        part = texts[start : start + _TEXTS_PER_CALL]
        words = tokenizer.prose_many(part)
        # prose_many may leave words of ASCII digits in: prose drops them (a word of
        # other digits stays, so `isdigit` alone decides only for ASCII texts)
        number = str.isdigit if "".join(part).isascii() else _is_ascii_number
        out += map(list, map(filterfalse, repeat(number), words))
    return out


def _prose_many(tokenizer: Tokenizer, texts: Sequence[str]) -> list[tuple[str, ...]]:
    """`tuple(tokenizer.prose(js_trim(text)))` of each text, tokenized together."""
    trimmed: list[str] = []
    for start in range(0, len(texts), _TEXTS_PER_CALL):
        trimmed += map(str.strip, texts[start : start + _TEXTS_PER_CALL], repeat(JS_WHITESPACE))
    return list(map(tuple, _prose_lists(tokenizer, trimmed)))


def stopword_only_many(skills: Sequence[Skill], tokenizer: Tokenizer) -> list[list[Finding]]:
    """`stopword_only` of each skill. A name or description that keeps a search term
    gets no finding: those are told apart in batches, only the others word by word."""
    names = _prose_lists(tokenizer, [s.name for s in skills])
    descriptions = _prose_lists(tokenizer, [s.description for s in skills])
    nothing: list[Finding] = []
    return [
        nothing if name and description else stopword_only(s, tokenizer)
        for s, name, description in zip(skills, names, descriptions, strict=True)
    ]


def _past_cut(content: str, cut_chars: int) -> str:
    """The content after the cut ('' when it is all indexed)."""
    if len(content) > cut_chars or (not content.isascii() and utf16_len(content) > cut_chars):
        return utf16_tail(content, cut_chars)
    return ""


class CatalogSearches:
    """The id searches of one kind's entries (and, for skills, the name searches), all
    answered by one ranker over the documents of `index` (`handles`: each entry's, in the
    order of `entries`; every document of the index, once)."""

    def __init__(
        self,
        kind: EntryKind,
        entries: Sequence[Entry],
        index: SearchIndex,
        handles: Sequence[int],
        profile: AxProfile,
        tokenizer: Tokenizer,
        names: bool,
    ) -> None:
        self.kind = kind
        self.entries = entries
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
        self.ranker = TopRanker.of_index(index, handles, query_terms)
        # What the entry checks read of the index: whether every indexed term of an entry
        # is a stopword, and the indexed terms of entries with content past a cut.
        self._stopwords_only = index.only_terms_in(handles, tokenizer.stopwords)
        self.cut_chars = (
            profile.skill_content_chars if kind == "skill" else profile.memory_content_chars
        )
        self._firsts = self._first_positions()
        self._indexed: dict[int, Mapping[str, float]] = {
            at: index.terms_of(handles[at]) for at in self._cut_positions()
        }
        self._tops: dict[tuple[tuple[str, ...], int], tuple[Hit, ...]] = {}
        # deletes the characters of a plain id (see `_plain_ids`): none if the profile
        # calls a letter or a digit punctuation (the search would split words there)
        punctuation = "".join(c for c in profile.punctuation if c.isascii())
        self._plain_chars: dict[int, int | None] | None = None
        if not any(c.isalnum() for c in punctuation):
            self._plain_chars = str.maketrans("", "", _LOWER_ALNUM + punctuation + _ASCII_SPACE)

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

    def _plain_ids(self, ids: list[str]) -> list[bool]:
        """For each id, True when its search terms are surely among its id words: it holds
        only lower-case ASCII letters, digits, the profile's punctuation and ASCII white
        space, so both tokenizers split it at the same places (words of one character,
        numbers and, for searches, stopwords are dropped). False: look at the words."""
        if self._plain_chars is None:
            return [False] * len(ids)
        out: list[bool] = []
        for start in range(0, len(ids), _TEXTS_PER_CALL):
            part = ids[start : start + _TEXTS_PER_CALL]
            if not "".join(part).translate(self._plain_chars):
                out += repeat(True, len(part))
            else:
                out += map(not_, map(str.translate, part, repeat(self._plain_chars)))
        return out

    def _cut_positions(self) -> list[int]:
        """The positions in `_firsts` of entries whose content goes past the cut."""
        cut_chars = self.cut_chars
        contents = [e.content for e in self.entries]
        # UTF-16 is never shorter than the code points: only non-ASCII texts that are
        # not longer than the cut in code points need their UTF-16 length
        long: set[int] = set()
        for start in range(0, len(contents), _TEXTS_PER_CALL):
            lengths = map(len, contents[start : start + _TEXTS_PER_CALL])
            long.update(compress(range(start, len(contents)), map(lt, repeat(cut_chars), lengths)))
        for at in compress(range(len(contents)), map(not_, map(str.isascii, contents))):
            if at not in long and utf16_len(contents[at]) > cut_chars:
                long.add(at)
        return [at for at in self._firsts if at in long]

    def _first_positions(self) -> Sequence[int]:
        """The position of each id's first entry (repeats are reported by identity
        checks), in order."""
        ids = [e.id for e in self.entries]
        if len(set(ids)) == len(ids):
            return range(len(ids))
        first: dict[str, int] = {}
        for at, entry_id in enumerate(ids):
            first.setdefault(entry_id, at)
        return list(first.values())

    def entry_findings(
        self, options: LintOptions, top_k: int
    ) -> tuple[dict[str, Finding], dict[str, Finding]]:
        """Per id (its first entry): the unreachable or id-not-searchable finding, and the
        terms-beyond-cut finding."""
        tokenizer, entries, kind = self.tokenizer, self.entries, self.kind
        cut_chars = self.cut_chars
        searched: dict[str, Finding] = {}
        beyond: dict[str, Finding] = {}
        firsts = self._firsts
        dead: set[str] = set()
        for at in compress(firsts, map(self._stopwords_only.__getitem__, firsts)):
            unreached = unreachable(self._fields(entries[at]), tokenizer)
            if unreached is not None:
                searched[entries[at].id] = unreached
                dead.add(entries[at].id)
        # Each id's search (by its terms: many ids share them), then the ids it misses.
        ids = [entries[at].id for at in firsts]
        searches = list(map(self.id_tokens.__getitem__, ids))
        results = {
            tokens: frozenset(hit.id for hit in self.top(tokens, top_k))
            for tokens in dict.fromkeys(searches)
        }
        found = map(contains, map(results.__getitem__, searches), ids)
        lost = [
            (entry_id, tokens)
            for entry_id, tokens in compress(zip(ids, searches, strict=True), map(not_, found))
            # an empty id has no search: identity checks report it
            if entry_id not in dead and (tokens or js_trim(entry_id))
        ]
        # One message per search (it lists what the search returns), unless no query
        # term is an id word: then the message lists the id's words.
        texts: dict[tuple[str, ...], tuple[str, str]] = {}
        lost_ids = [entry_id for entry_id, _ in lost]
        plain = self._plain_ids(lost_ids)
        severity = CODES["id-not-searchable"]
        for (entry_id, tokens), certain in zip(lost, plain, strict=True):
            if tokens and not certain:
                id_words = tokenizer.identifier(entry_id)
                if set(tokens).isdisjoint(id_words):
                    ranked = [h.id for h in self.top(tokens, top_k)]
                    searched[entry_id] = id_finding(kind, entry_id, id_words, tokens, ranked)
                    continue
            text = texts.get(tokens)
            if text is None:
                ranked = [h.id for h in self.top(tokens, top_k)]
                # the id words matter only when no query term is one: `tokens` stand in
                text = texts[tokens] = id_finding_text(kind, tokens, tokens, ranked)
            searched[entry_id] = Finding(
                severity, "id-not-searchable", kind, entry_id, text[0], text[1], "id"
            )
        cut_texts = [_past_cut(entries[at].content, cut_chars) for at in self._indexed]
        cut_terms = _prose_lists(tokenizer, cut_texts)
        for (at, indexed), cut_text, terms in zip(
            self._indexed.items(), cut_texts, cut_terms, strict=True
        ):
            entry_id = entries[at].id
            # The indexed terms are the terms of every field (see the module doc).
            cut = cut_finding(
                kind, entry_id, cut_text, terms, indexed, options, cut_chars, tokenizer
            )
            if cut is not None:
                beyond[entry_id] = cut
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
            if len(ranked) == 1 and ranked[0].id != s.id:
                # another comes first alone: the exact top 2 (two hits that tie are it)
                ranked = self.top(tokens, 2)
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
    # Each ranker keeps what it needs of its index: the indexes go once they are made.
    skill_searches = CatalogSearches(
        "skill", skills, skill_index, skill_handles, profile, tokenizer,
        names=options.competition,
    )  # fmt: skip
    del skill_index, skill_handles
    memory_searches = CatalogSearches(
        "memory", memories, memory_index, memory_handles, profile, tokenizer, names=False
    )
    del memory_index, memory_handles
    out: list[Finding] = []
    for searches, top_k in (
        (skill_searches, profile.skill_search_top_k),
        (memory_searches, profile.memory_search_top_k),
    ):
        searched, beyond = searches.entry_findings(options, top_k)
        done: set[str] = set()
        for e in searches.entries:
            if e.id in done:
                continue
            done.add(e.id)
            for table in (searched, beyond):
                f = table.get(e.id)
                if f is not None:
                    out.append(f)
    for found in stopword_only_many(list({s.id: s for s in skills}.values()), tokenizer):
        out += found
    if options.competition:
        out += skill_searches.competing(skills, {s.id: s.name for s in skills})
    return out
