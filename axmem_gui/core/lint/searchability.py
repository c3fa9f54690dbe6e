"""Checks on how Ax's built-in search sees each entry.

All of them run the real tokenizers and ranking from `core.ax` (the Ax profile's
stopwords, the 600-unit content cut, discover's top 2 and recall's top 3), so a finding
says what `discover` / `recall` would actually do.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from axmem_gui.core.ax.documents import (
    FieldTokens,
    memory_columns,
    memory_fields,
    skill_columns,
    skill_fields,
)
from axmem_gui.core.ax.index import SearchIndex
from axmem_gui.core.ax.jstext import js_trim
from axmem_gui.core.ax.profile import AxProfile
from axmem_gui.core.ax.ranking import RankOptions, RankResult
from axmem_gui.core.ax.tokenize import Drop, Tokenizer
from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.lint.model import EntryKind, Finding, LintOptions, finding

_WHY = {Drop.STOPWORD: "a stopword", Drop.SHORT: "too short", Drop.NUMBER: "a number"}


@dataclass(frozen=True)
class _Entry:
    kind: EntryKind
    id: str
    fields: list[FieldTokens]


def _reachable_terms(entry: _Entry, tokenizer: Tokenizer) -> set[str]:
    """Terms a search string can produce and this entry indexes: every prose term, and
    the id's words that are not stopwords (queries drop stopwords, the id field keeps
    them)."""
    terms: set[str] = set()
    for f in entry.fields:
        if f.identifier:
            terms.update(t for t in f.terms if t not in tokenizer.stopwords)
        else:
            terms.update(f.terms)
    return terms


def unreachable(entry: _Entry, tokenizer: Tokenizer) -> Finding | None:
    if _reachable_terms(entry, tokenizer):
        return None
    verb = "discover" if entry.kind == "skill" else "recall"
    return finding(
        "unreachable",
        entry.kind,
        entry.id,
        f"no search string can reach this entry: none of its words is a search term "
        f"(all stopwords, one-letter words or numbers), so {verb} never returns it",
        "Put distinctive words in the id, name, description or the start of the content.",
    )


def _dropped_words(text: str, tokenizer: Tokenizer) -> str:
    raw = tokenizer.raw_prose(text)
    return ", ".join(f"'{t.text}' ({_WHY[t.dropped]})" for t in raw if t.dropped is not None)


def stopword_only(skill: Skill, tokenizer: Tokenizer) -> list[Finding]:
    out = []
    for field_name, text in (("name", skill.name), ("description", skill.description)):
        raw = tokenizer.raw_prose(text) if js_trim(text) else []
        if raw and all(t.dropped is not None for t in raw):
            out.append(
                finding(
                    f"stopword-only-{field_name}",
                    "skill",
                    skill.id,
                    f"the {field_name} gives search nothing: every word is dropped by Ax's "
                    f"tokenizer: {_dropped_words(text, tokenizer)}",
                    f"Use specific words in the {field_name} (Ax drops common words such as "
                    "'help', 'task', 'new', 'use', 'find').",
                    field=field_name,
                )
            )
    return out


#: Rankings already made in one lint run, by index and search terms: a ranking depends
#: only on the terms of the search string, and many ids share them (`mem:deploy-1`,
#: `mem:deploy-2`, ... all search for 'mem', 'deploy').
RankCache = dict[tuple[int, tuple[str, ...]], RankResult]


def _rank(
    index: SearchIndex, query: str, options: RankOptions, cache: RankCache | None
) -> RankResult:
    if cache is None:
        return index.rank(query, options)
    key = (id(index), tuple(index.tokenizer.prose(query)))
    found = cache.get(key)
    if found is None:
        found = cache[key] = index.rank(query, options)
    return found


def id_not_searchable(
    entry: _Entry,
    index: SearchIndex,
    options: RankOptions,
    tokenizer: Tokenizer,
    cache: RankCache | None = None,
) -> Finding | None:
    query = js_trim(entry.id)
    if not query:
        return None
    result = _rank(index, query, options, cache)
    if entry.id in result.result_ids:
        return None
    id_words = next(f.terms for f in entry.fields if f.identifier)
    return id_finding(entry.kind, entry.id, id_words, tokenizer.prose(query), result.result_ids)


def id_finding(
    kind: EntryKind,
    entry_id: str,
    id_words: Sequence[str],
    query_terms: Sequence[str],
    result_ids: Sequence[str],
) -> Finding:
    """The id-not-searchable finding of an entry whose id search (of `query_terms`)
    returns `result_ids`, which do not hold the entry's id."""
    message, hint = id_finding_text(kind, id_words, query_terms, result_ids)
    return finding("id-not-searchable", kind, entry_id, message, hint, field="id")


def id_finding_text(
    kind: EntryKind,
    id_words: Sequence[str],
    query_terms: Sequence[str],
    result_ids: Sequence[str],
) -> tuple[str, str]:
    """The message and hint of `id_finding`. They depend on `id_words` only when no query
    term is among them (then the message lists the id words)."""
    verb = "discover({ skills: [id] })" if kind == "skill" else "recall([id])"
    if not query_terms:
        why = "every word of it is dropped from a search (stopwords, short words or numbers)"
        hint = (
            "Add a distinctive word to the id (Ax drops numbers, one-letter words and "
            "common words from searches), e.g. 'incident-117-db-outage'."
        )
    elif not set(query_terms) & set(id_words):
        why = (
            f"a search for it becomes {', '.join(repr(t) for t in query_terms)} while the "
            f"id indexes as {', '.join(repr(t) for t in id_words) or 'nothing'}"
        )
        hint = (
            "Use a kebab-case id made of its words (e.g. 'lookup-invoice-status' rather than "
            "'lookupInvoiceStatus'): Ax splits ids on case changes but not searches."
        )
    else:
        top = ", ".join(f"'{i}'" for i in result_ids) or "nothing"
        why = f"other entries match its words better (it returns {top})"
        hint = "Make the id's words distinctive, and repeat them in the name or description."
    return f"searching for the id itself does not find this entry with {verb}: {why}", hint


def terms_beyond_cut(
    entry: _Entry, options: LintOptions, cut_chars: int, tokenizer: Tokenizer
) -> Finding | None:
    """Words after the content cut that nothing indexed contains, and that look
    important: used 3+ times there, or twice with one use in a markdown heading."""
    content = next((f for f in entry.fields if f.label == "content"), None)
    if content is None or not content.cut_text:
        return None
    indexed: set[str] = set()
    for f in entry.fields:
        indexed.update(f.terms)
    return cut_finding(
        entry.kind, entry.id, content.cut_text, content.cut_terms, indexed, options,
        cut_chars, tokenizer,
    )  # fmt: skip


def cut_finding(
    kind: EntryKind,
    entry_id: str,
    cut_text: str,
    cut_terms: Sequence[str],
    indexed: Container[str],
    options: LintOptions,
    cut_chars: int,
    tokenizer: Tokenizer,
) -> Finding | None:
    """The terms-beyond-cut finding of content cut after `cut_chars` (`cut_text`, whose
    terms are `cut_terms`), for an entry whose indexed terms are `indexed`."""
    counts = Counter(t for t in cut_terms if t not in indexed)
    if not counts:
        return None
    heading_terms: set[str] = set()
    for line in cut_text.splitlines():
        if line.lstrip().startswith("#"):
            heading_terms.update(tokenizer.prose(line))
    key = [t for t, n in counts.most_common() if n >= 3 or (n >= 2 and t in heading_terms)]
    if not key:
        return None
    listed = ", ".join(f"'{t}'" for t in key[: options.max_listed_terms])
    extra = len(key) - options.max_listed_terms
    more = f" and {extra} more" if extra > 0 else ""
    return finding(
        "terms-beyond-cut",
        kind,
        entry_id,
        f"key terms appear only after the first {cut_chars} characters of the content, which "
        f"Ax does not index: {listed}{more}",
        "Mention these words in the description or early in the content.",
        field="content",
    )


def competing_skills(
    skills: Sequence[Skill],
    index: SearchIndex,
    cache: RankCache | None = None,
    names: Mapping[str, str] | None = None,
) -> list[Finding]:
    """For each skill, search with its name (as a model would): another skill ranking
    first, or tying with it, means the two compete for the same searches. `names`: of
    every skill in the index (default: of `skills`)."""
    options = RankOptions.best_effort(2)
    out = []
    if names is None:
        names = {s.id: s.name for s in skills}
    for s in skills:
        query = js_trim(s.name)
        if not query:
            continue
        ranked = _rank(index, query, options, cache).ranked
        found = competing_finding(s, ranked, names)
        if found is not None:
            out.append(found)
    return out


class Ranked(Protocol):
    """A search result: `RankedEntry`, or lint's own `Hit`."""

    @property
    def id(self) -> str: ...

    @property
    def raw(self) -> float: ...


def competing_finding(
    s: Skill, ranked: Sequence[Ranked], names: Mapping[str, str]
) -> Finding | None:
    """The competing-skills finding of skill `s`, whose name search returns `ranked`."""
    if not ranked:
        return None
    top = ranked[0]
    own = next((e for e in ranked if e.id == s.id), None)
    if top.id != s.id:
        rival = top.id
        if own is not None and own.raw == top.raw:
            outcome = "ties with it and loses on id order"
        else:
            outcome = "comes second" if own is not None else "is not in the top 2"
        message = (
            f"searching for its name '{s.name}' returns '{rival}' ('{names.get(rival)}') "
            f"first; this skill {outcome}"
        )
    elif len(ranked) > 1 and ranked[1].raw == top.raw and ranked[1].id != s.id:
        rival = ranked[1].id
        message = (
            f"searching for its name '{s.name}' ties with '{rival}' ('{names.get(rival)}'); "
            "this skill wins only on id order"
        )
    else:
        return None
    return finding(
        "competing-skills",
        "skill",
        s.id,
        message,
        "Make the names and descriptions distinct: put each skill's own key words "
        "in its name, or merge the two skills.",
        field="name",
        related=(rival,),
    )


def per_entry_searchability_findings(
    skills: Sequence[Skill],
    memories: Sequence[Memory],
    profile: AxProfile,
    options: LintOptions,
) -> list[Finding]:
    """The search checks entry by entry, one ranked search each: the plain definition
    of what `batch.searchability_findings` finds faster (tests compare the two)."""
    tokenizer = Tokenizer(profile)
    # The bulk path: the same indexes as one `skill_document` / `memory_document` each.
    skill_index = SearchIndex(tokenizer)
    skill_index.extend_columns(skill_columns(skills, profile))
    memory_index = SearchIndex(tokenizer)
    memory_index.extend_columns(memory_columns(memories, profile))
    cache: RankCache = {}
    skill_options = RankOptions.best_effort(profile.skill_search_top_k)
    memory_options = RankOptions.best_effort(profile.memory_search_top_k)
    out: list[Finding] = []
    entries: list[tuple[_Entry, SearchIndex, RankOptions, int]] = []
    for s in skills:
        entry = _Entry("skill", s.id, skill_fields(s, profile, tokenizer))
        entries.append((entry, skill_index, skill_options, profile.skill_content_chars))
    for m in memories:
        entry = _Entry("memory", m.id, memory_fields(m, profile, tokenizer))
        entries.append((entry, memory_index, memory_options, profile.memory_content_chars))
    seen: set[tuple[EntryKind, str]] = set()
    for entry, index, rank_options, cut_chars in entries:
        if (entry.kind, entry.id) in seen:
            continue  # duplicate ids are reported once, by identity checks
        seen.add((entry.kind, entry.id))
        dead = unreachable(entry, tokenizer)
        if dead is not None:
            out.append(dead)
        else:
            not_found = id_not_searchable(entry, index, rank_options, tokenizer, cache)
            if not_found is not None:
                out.append(not_found)
        beyond = terms_beyond_cut(entry, options, cut_chars, tokenizer)
        if beyond is not None:
            out.append(beyond)
    for s in {s.id: s for s in skills}.values():
        out += stopword_only(s, tokenizer)
    if options.competition:
        out += competing_skills(skills, skill_index, cache)
    return out
