"""Ax's built-in catalog search: `discover({ skills })`, `recall([...])` and the advisory
relevance hints, over either the plain ranker or the inverted index.

- discover: each search string (trimmed, exact duplicates removed) ranks ALL catalog
  skills with topK 2 and no guards; the union of ids in first-seen order maps to catalog
  entries (last entry wins for a repeated id). Loaded skills are not excluded.
- recall: candidates are the catalog memories whose id (exact, untrimmed) is not already
  loaded; each search string ranks the candidates (N and df over the candidates only)
  with topK 3 and no guards; union in first-seen order.
- hints: the task ranks all skills, and the memories not yet loaded, with the strict
  default guards (or the agent's relevanceRanking object).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar

from axmem_gui.core.ax.documents import (
    DocumentColumns,
    memory_columns,
    memory_document,
    skill_columns,
    skill_document,
)
from axmem_gui.core.ax.index import SearchIndex
from axmem_gui.core.ax.jstext import collapse_whitespace, js_trim, utf16_len, utf16_slice
from axmem_gui.core.ax.profile import AxProfile, load_profile
from axmem_gui.core.ax.ranking import (
    RankDocument,
    RankedEntry,
    RankOptions,
    RankResult,
    rank_documents,
)
from axmem_gui.core.ax.render import MemoryHint, SkillHint, render_relevance_hints
from axmem_gui.core.ax.tokenize import Tokenizer
from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.errors import AxmemError


class PolicyError(AxmemError):
    """The `[POLICY] ...` error Ax raises for a malformed discover/recall argument."""


class Ranker(Protocol):
    """Ranks a fixed document set (minus excluded ids) like `rankDocuments`."""

    def rank(
        self, query: str, options: RankOptions, exclude_ids: frozenset[str] = frozenset()
    ) -> RankResult: ...


class PlainRanker:
    """The obviously-correct ranker: rebuilds every document for every query."""

    def __init__(self, docs: Sequence[RankDocument], tokenizer: Tokenizer) -> None:
        self.docs = list(docs)
        self.tokenizer = tokenizer

    def rank(
        self, query: str, options: RankOptions, exclude_ids: frozenset[str] = frozenset()
    ) -> RankResult:
        docs = [d for d in self.docs if d.id not in exclude_ids] if exclude_ids else self.docs
        return rank_documents(query, docs, options, self.tokenizer)


def normalize_search_input(
    value: Any, primitive: str, profile: AxProfile | None = None
) -> tuple[str, ...]:
    """The search strings of one call, as Ax normalizes them: trimmed, non-empty, exact
    duplicates removed. PolicyError with Ax's own `[POLICY] ...` text otherwise.

    `primitive` is `DISCOVER` (`discover({ skills })`: Ax's `normalizeOptionalStringInput`)
    or `RECALL` (`recall(...)`: `normalizeMemoriesInput`). The two differ only in their
    wording; both refuse the whole call for one blank entry (`['alpha', '']` loads
    nothing), and in the runtime the thrown error ends the turn's code, so a `recall`
    after a refused `discover` does not run.
    """
    kind = "discover" if primitive == DISCOVER else "recall"
    messages = (profile or load_profile()).policy[kind]
    collected: list[str] = []

    def push(item: Any) -> None:
        if not isinstance(item, str):
            raise PolicyError(messages["notString"])
        trimmed = js_trim(item)
        if not trimmed:
            raise PolicyError(messages["blankEntry"])
        collected.append(trimmed)

    if isinstance(value, str):
        push(value)
    elif isinstance(value, list | tuple):
        if not value:
            raise PolicyError(messages["emptyArray"])
        for item in value:
            push(item)
    else:
        raise PolicyError(messages["notStringOrArray"])
    return tuple(dict.fromkeys(collected))


DISCOVER = "discover({ skills })"
RECALL = "recall(...)"


@dataclass(frozen=True)
class SearchCall:
    """One discover or recall call: per search string the ranking, and the union."""

    domain: str  # "skills" | "memories"
    queries: tuple[str, ...]
    per_query: tuple[RankResult, ...]
    result_ids: tuple[str, ...]
    already_loaded_ids: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"queries": list(self.queries)}
        if self.domain == "memories":
            out["alreadyLoadedIds"] = list(self.already_loaded_ids)
        out["perQuery"] = [r.to_json() for r in self.per_query]
        out["resultIds"] = list(self.result_ids)
        return out


def union_ids(results: Iterable[RankResult]) -> tuple[str, ...]:
    """The ids of the results, each once, in first-seen order (a call's result ids)."""
    seen: dict[str, None] = {}
    for result in results:
        for entry in result.ranked:
            seen.setdefault(entry.id)
    return tuple(seen)


E = TypeVar("E", Skill, Memory)


@dataclass(frozen=True)
class _Domain(Generic[E]):
    """What differs between searching skills and searching memories."""

    name: str  # "skills" | "memories"
    primitive: str  # DISCOVER | RECALL
    document: Callable[[E, AxProfile], RankDocument]
    columns: Callable[[Sequence[E], AxProfile], DocumentColumns]
    top_k: Callable[[AxProfile], int]


class CatalogSearch(Generic[E]):
    """Ax's search over one catalog (skills or memories): the call (`discover` or
    `recall`) and the hint ranking. Subclasses only name their domain."""

    domain: ClassVar[_Domain[Any]]

    def __init__(
        self,
        entries: Sequence[E],
        profile: AxProfile,
        ranker: Ranker | None = None,
        tokenizer: Tokenizer | None = None,
    ) -> None:
        self.entries: Sequence[E] = list(entries)
        self.profile = profile
        self.tokenizer = tokenizer or Tokenizer(profile)
        document = self.domain.document
        self.ranker: Ranker = ranker or PlainRanker(
            [document(e, profile) for e in self.entries], self.tokenizer
        )
        self._by_id: Mapping[str, E] = {e.id: e for e in self.entries}  # last entry wins

    @classmethod
    def shared(
        cls,
        entries: Sequence[E],
        by_id: Mapping[str, E],
        profile: AxProfile,
        ranker: Ranker,
        tokenizer: Tokenizer,
    ) -> Self:
        """Over entries (unique ids) its caller already holds in order and by id, without
        copying them (a search over a live catalog is made after every edit)."""
        search = cls.__new__(cls)
        search.entries, search._by_id = entries, by_id
        search.profile, search.ranker, search.tokenizer = profile, ranker, tokenizer
        return search

    @classmethod
    def indexed(
        cls, entries: Sequence[E], profile: AxProfile, tokenizer: Tokenizer | None = None
    ) -> Self:
        """Backed by a `SearchIndex` (fast on big catalogs, same results)."""
        tokenizer = tokenizer or Tokenizer(profile)
        index = SearchIndex(tokenizer)
        index.extend_columns(cls.domain.columns(entries, profile))
        return cls(entries, profile, index, tokenizer)

    def _call(self, searches: Any, loaded: tuple[str, ...]) -> tuple[SearchCall, list[E]]:
        """One discover/recall call with the entries of `loaded` ids excluded (recall's
        candidates; discover excludes none). Exclusion is by id, so the last candidate
        with an id is the last entry with it, and excluded ids are never ranked."""
        domain = self.domain
        queries = normalize_search_input(searches, domain.primitive, self.profile)
        exclude = frozenset(loaded)
        options = RankOptions.best_effort(domain.top_k(self.profile))
        per_query = tuple(self.ranker.rank(q, options, exclude) for q in queries)
        ids = union_ids(per_query)
        call = SearchCall(domain.name, queries, per_query, ids, loaded)
        return call, [self._by_id[i] for i in ids if i in self._by_id]

    def _ranked(
        self, task: str, options: RankOptions, exclude: Iterable[str]
    ) -> tuple[RankResult, list[tuple[RankedEntry, E | None]]]:
        """The hint ranking, each entry with its catalog entry."""
        result = self.ranker.rank(task, options, frozenset(exclude))
        return result, [(e, self._by_id.get(e.id)) for e in result.ranked]


class SkillSearch(CatalogSearch[Skill]):
    """Discover and the skills hint over one skills catalog."""

    domain = _Domain[Skill](
        "skills", DISCOVER, skill_document, skill_columns, lambda p: p.skill_search_top_k
    )

    @property
    def skills(self) -> Sequence[Skill]:
        return self.entries

    def discover(self, searches: Any) -> tuple[SearchCall, list[Skill]]:
        """One `discover({ skills: searches })`; raises PolicyError like Ax (loaded
        skills are not excluded)."""
        return self._call(searches, ())

    def hint(self, task: str, options: RankOptions) -> tuple[RankResult, list[SkillHint]]:
        result, ranked = self._ranked(task, options, ())
        return result, [
            SkillHint(e.id, skill.name if skill is not None else e.id, e.score)
            for e, skill in ranked
        ]


class MemorySearch(CatalogSearch[Memory]):
    """Recall and the memories hint over one memories catalog."""

    domain = _Domain[Memory](
        "memories", RECALL, memory_document, memory_columns, lambda p: p.memory_search_top_k
    )

    @property
    def memories(self) -> Sequence[Memory]:
        return self.entries

    def recall(
        self, searches: Any, already_loaded_ids: Iterable[str] = ()
    ) -> tuple[SearchCall, list[Memory]]:
        """One `recall(searches)` with those memory ids already in `inputs.memories`."""
        return self._call(searches, tuple(already_loaded_ids))

    def snippet(self, content: str) -> str:
        return utf16_slice(
            js_trim(collapse_whitespace(content)), self.profile.memory_hint_snippet_chars
        )

    def hint(
        self, task: str, options: RankOptions, already_loaded_ids: Iterable[str] = ()
    ) -> tuple[RankResult, list[MemoryHint]]:
        result, ranked = self._ranked(task, options, already_loaded_ids)
        return result, [
            MemoryHint(e.id, self.snippet("" if memory is None else memory.content), e.score)
            for e, memory in ranked
        ]


@dataclass(frozen=True)
class DomainHint:
    """One domain's hint: the ranking and the shortlist (empty = suppressed)."""

    domain: str
    task_chars: int
    result: RankResult
    skills: tuple[SkillHint, ...] = ()
    memories: tuple[MemoryHint, ...] = ()

    @property
    def shortlist(self) -> tuple[SkillHint | MemoryHint, ...]:
        return self.skills if self.domain == "skills" else self.memories

    @property
    def suppressed(self) -> bool:
        return not self.shortlist

    def event(self) -> dict[str, Any]:
        """The `relevance_ranking` context event Ax emits for this domain."""
        return {
            "stage": "executor",
            "domain": self.domain,
            "taskChars": self.task_chars,
            "suppressed": self.suppressed,
            "shortlist": [{"id": h.id, "score": h.score} for h in self.shortlist],
        }


@dataclass(frozen=True)
class RelevanceHints:
    enabled: bool
    skills: DomainHint | None = None
    memories: DomainHint | None = None

    def text(self, profile: AxProfile) -> str | None:
        """The `Relevance Hints` field value (None: field omitted)."""
        if not self.enabled:
            return None
        return render_relevance_hints(
            profile,
            skills=self.skills.skills if self.skills else (),
            memories=self.memories.memories if self.memories else (),
        )

    def events(self) -> list[dict[str, Any]]:
        return [d.event() for d in (self.skills, self.memories) if d is not None]


def relevance_options(
    relevance_ranking: bool | Mapping[str, Any] | None,
    profile: AxProfile,
    source: str = "relevanceRanking",
) -> RankOptions | None:
    """None when hints are disabled (`false`), else the ranker options to use."""
    if relevance_ranking is False:
        return None
    if isinstance(relevance_ranking, Mapping):
        return RankOptions.from_js(relevance_ranking, profile, source)
    return RankOptions.strict(profile)


def compute_relevance_hints(
    task: str,
    skill_search: SkillSearch | None,
    memory_search: MemorySearch | None,
    options: RankOptions | None,
    loaded_memory_ids: Iterable[str] = (),
) -> RelevanceHints:
    """The executor's advisory hints for `task` (skills: all entries; memories: the ones
    not already in `inputs.memories`)."""
    if options is None:
        return RelevanceHints(enabled=False)
    task_chars = utf16_len(task)
    skills = memories = None
    if skill_search is not None and skill_search.skills:
        result, skill_hints = skill_search.hint(task, options)
        skills = DomainHint("skills", task_chars, result, skills=tuple(skill_hints))
    if memory_search is not None and memory_search.memories:
        result, memory_hints = memory_search.hint(task, options, loaded_memory_ids)
        memories = DomainHint("memories", task_chars, result, memories=tuple(memory_hints))
    enabled = skills is not None or memories is not None
    return RelevanceHints(enabled=enabled, skills=skills, memories=memories)


# --------------------------------------------------------------------------- shortcuts

_LAST_SKILL_SEARCH: list[tuple[Sequence[Skill], AxProfile, SkillSearch]] = []


def _skill_search_for(skills: Sequence[Skill], profile: AxProfile) -> SkillSearch:
    # Callers (suites, what-if) search the same catalog many times in a row: keep the
    # index built for the last catalog seen. Only tuples (immutable) are kept.
    last = _LAST_SKILL_SEARCH[0] if _LAST_SKILL_SEARCH else None
    if last is not None and last[0] is skills and last[1] is profile:
        return last[2]
    search = SkillSearch.indexed(skills, profile)
    if isinstance(skills, tuple):
        _LAST_SKILL_SEARCH[:] = [(skills, profile, search)]
    return search


def discover_ids(
    skills: Sequence[Skill], searches: Any, profile: AxProfile | None = None
) -> tuple[str, ...]:
    """Ids one `discover({ skills: searches })` loads (PolicyError for bad input)."""
    search = _skill_search_for(skills, profile or load_profile())
    return search.discover(searches)[0].result_ids
