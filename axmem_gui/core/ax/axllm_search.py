"""axllm's built-in search and its relevance hints (the `axllm-<version>` profile).

- `AxllmSearch.discover` / `.recall`: `_agent_catalog_skill_search` /
  `_agent_catalog_memory_search`, what axllm does when no host search is installed (the
  studio's `axllm-builtin` search backend).
- `axllm_relevance_hints`: `_agent_build_relevance_hints`. The studio's live runs answer
  discover and recall with the studio's own search (host callbacks), but the hints are
  always axllm's own: this is what their executor sees.

Same shapes as the Ax search (`SearchCall`, `RelevanceHints`), so every view and command
shows them the same way. Rules: core/ax/axllm_rules.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from axmem_gui.core.ax.axllm_rules import (
    AxllmOptions,
    AxllmRanker,
    AxllmTokenizer,
    memory_catalog,
    memory_documents,
    skill_catalog,
    skill_documents,
    snippet,
)
from axmem_gui.core.ax.profile import AxProfile
from axmem_gui.core.ax.render import MemoryHint, SkillHint
from axmem_gui.core.ax.search import (
    DISCOVER,
    RECALL,
    DomainHint,
    MemorySearch,
    RelevanceHints,
    SearchCall,
    SkillSearch,
    compute_relevance_hints,
    normalize_search_input,
    relevance_options,
    union_ids,
)
from axmem_gui.core.ax.state import MemoryEntry
from axmem_gui.core.catalog import Catalog, Memory, Skill


class _Side:
    """One catalog kind as axllm holds it, and its ranker."""

    def __init__(self, entries: Sequence[Any], ranker: AxllmRanker) -> None:
        self.entries, self.ranker = entries, ranker


#: The last catalogs searched (by identity; catalogs are tuples), per kind: a preview
#: simulates the same catalog after every scenario edit.
_LAST: dict[str, tuple[object, AxProfile, _Side]] = {}


def _side(kind: str, entries: Sequence[Any], profile: AxProfile) -> _Side:
    last = _LAST.get(kind)
    if last is not None and last[0] is entries and last[1] is profile:
        return last[2]
    tokenizer = AxllmTokenizer(profile)
    if kind == "skills":
        skills = skill_catalog(entries)
        side = _Side(skills, AxllmRanker(skill_documents(skills, profile), tokenizer))
    else:
        memories = memory_catalog(entries)
        side = _Side(memories, AxllmRanker(memory_documents(memories, profile), tokenizer))
    if isinstance(entries, tuple):
        _LAST[kind] = (entries, profile, side)
    return side


class AxllmSearch:
    """axllm's search over one catalog, as axllm holds it (cleaned up, by code point)."""

    def __init__(
        self, skills: Sequence[Skill], memories: Sequence[Memory], profile: AxProfile
    ) -> None:
        self.profile = profile
        skill_side, memory_side = (
            _side("skills", skills, profile),
            _side("memories", memories, profile),
        )
        self.skills: Sequence[Skill] = skill_side.entries
        self.memories: Sequence[MemoryEntry] = memory_side.entries
        self._skill_ranker = skill_side.ranker
        self._memory_ranker = memory_side.ranker

    def discover(self, searches: Any) -> tuple[SearchCall, list[Skill]]:
        """`discover({ skills: searches })` with axllm's built-in search."""
        queries = normalize_search_input(searches, DISCOVER, self.profile)
        options = AxllmOptions.best_effort(self.profile.skill_search_top_k)
        per_query = tuple(self._skill_ranker.rank(q, options) for q in queries)
        ids = union_ids(per_query)
        by_id = {s.id: s for s in self.skills}
        return SearchCall("skills", queries, per_query, ids), [by_id[i] for i in ids]

    def recall(
        self, searches: Any, already_loaded_ids: Iterable[str] = ()
    ) -> tuple[SearchCall, list[MemoryEntry]]:
        """`recall(searches)` with axllm's built-in search: candidates are the catalog
        memories whose (trimmed) id is not loaded."""
        queries = normalize_search_input(searches, RECALL, self.profile)
        loaded = tuple(already_loaded_ids)
        options = AxllmOptions.best_effort(self.profile.memory_search_top_k)
        exclude = frozenset(loaded)
        per_query = tuple(self._memory_ranker.rank(q, options, exclude) for q in queries)
        ids = union_ids(per_query)
        by_id = {m.id: m for m in self.memories}
        call = SearchCall("memories", queries, per_query, ids, loaded)
        return call, [by_id[i] for i in ids]

    def hints(
        self,
        task: str,
        ranking: bool | Mapping[str, Any],
        loaded_memory_ids: Iterable[str] = (),
        *,
        has_skills: bool,
        has_memories: bool,
    ) -> RelevanceHints:
        """`_agent_build_relevance_hints` for the executor's `task` text. `has_skills` /
        `has_memories`: the agent was given a non-empty catalog (before clean-up)."""
        if ranking is False or not (has_skills or has_memories):
            return RelevanceHints(enabled=False)
        options = AxllmOptions.of(ranking if isinstance(ranking, Mapping) else None, self.profile)
        task_chars = len(task)
        skills = memories = None
        if has_skills:
            result = self._skill_ranker.rank(task, options)
            names = {s.id: s.name for s in self.skills}
            shortlist = tuple(SkillHint(e.id, names[e.id], e.score) for e in result.ranked)
            skills = DomainHint("skills", task_chars, result, skills=shortlist)
        if has_memories:
            result = self._memory_ranker.rank(task, options, frozenset(loaded_memory_ids))
            contents = {m.id: m.content for m in self.memories}
            hinted = tuple(
                MemoryHint(e.id, snippet(contents[e.id], self.profile), e.score)
                for e in result.ranked
            )
            memories = DomainHint("memories", task_chars, result, memories=hinted)
        return RelevanceHints(enabled=True, skills=skills, memories=memories)


def relevance_hints(
    profile: AxProfile,
    task: str,
    ranking: bool | Mapping[str, Any],
    loaded_memory_ids: Sequence[str],
    catalog: Catalog,
    skill_search: SkillSearch | None,
    memory_search: MemorySearch | None,
) -> RelevanceHints:
    """The executor's hints as `profile`'s runtime ranks them: axllm its own way over the
    whole catalog, Ax with the given searches."""
    if profile.is_axllm:
        return AxllmSearch(catalog.skills, catalog.memories, profile).hints(
            task,
            ranking,
            loaded_memory_ids,
            has_skills=len(catalog.skills) > 0,
            has_memories=len(catalog.memories) > 0,
        )
    options = relevance_options(ranking, profile)
    return compute_relevance_hints(task, skill_search, memory_search, options, loaded_memory_ids)
