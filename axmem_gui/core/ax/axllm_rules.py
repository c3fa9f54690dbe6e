"""axllm's own rules, for the `axllm-<version>` profile: what the studio's live runs send.

axllm (the Python port of Ax) renders the same sections as @ax-llm/ax, with the same
templates and formats (the profile holds them), but:

- the skills catalog is cleaned up before the index is rendered: ids and names trimmed
  (JavaScript white space), an entry without a string name and content or with an empty
  name dropped, one entry per id (the last), descriptions kept only when they are strings
  (`_agent_normalize_skill_catalog`); the index shows nothing when nothing is left;
- ids are ordered by code point everywhere (Python's `sorted`): the index, Loaded Skills,
  Memories and ranking ties; the memories catalog is cleaned up the same way
  (`_agent_merge_memory_results`: trimmed ids, one per id, sorted);
- its ranker (`_agent_rank_documents`) has its own tokenizers (Python `lower()`, no NFKD,
  its punctuation class, split on U+0020 only, lengths in code points, a 32-word
  stopword list), `math.log`, and keeps the first document of each id;
- texts are Python strings: the 600-character content cut and the 80-character snippet
  count code points, and the snippet collapses Python's `\\s`;
- `$name` field references end at a Unicode word boundary (Python's `\\b`).

Each function names the axllm function it follows (axllm 25.4.6, `axllm/agent.py`);
tests/core/ax/test_axllm_profile.py checks them against the installed axllm.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from axmem_gui.core.ax.jstext import JS_WHITESPACE
from axmem_gui.core.ax.profile import AxProfile
from axmem_gui.core.ax.ranking import (
    RankDocument,
    RankedEntry,
    RankField,
    RankOptions,
    RankResult,
    ScoredDocument,
    Suppression,
)
from axmem_gui.core.ax.state import LoadedSkill, MemoryEntry
from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.errors import InputError

_PY_WS_RUN = re.compile(r"\s+")


# --------------------------------------------------------------------------- catalogs


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def normalize_skill(entry: Mapping[str, Any]) -> tuple[str, str, str] | None:
    """`_agent_normalize_skill_entry`: (id, name, content), or None when dropped."""
    name, content = _text(entry.get("name")), _text(entry.get("content"))
    if name is None or content is None:
        return None
    name = name.strip(JS_WHITESPACE)
    if not name:
        return None
    raw_id = _text(entry.get("id", name))
    skill_id = raw_id.strip(JS_WHITESPACE) if raw_id is not None else ""
    return (skill_id or name), name, content


def skill_catalog(skills: Iterable[Skill]) -> list[Skill]:
    """`_agent_normalize_skill_catalog`: the catalog axllm renders and searches, one skill
    per id (the last), ids and names trimmed, by code point of id."""
    by_id: dict[str, Skill] = {}
    for skill in skills:
        normalized = normalize_skill({"id": skill.id, "name": skill.name, "content": skill.content})
        if normalized is None:
            continue
        skill_id, name, _content = normalized
        by_id[skill_id] = replace(skill, id=skill_id, name=name)
    return [by_id[i] for i in sorted(by_id)]


def merge_memory_results(
    existing: Iterable[MemoryEntry], incoming: Iterable[Any]
) -> tuple[MemoryEntry, ...]:
    """`_agent_merge_memory_results`: trimmed ids, later wins, by code point."""
    by_id = {m.id: m for m in existing}
    for entry in incoming:
        record = _mapping(entry)
        if record is None:
            continue
        raw_id, content = _text(record.get("id")), _text(record.get("content"))
        if raw_id is None or content is None:
            continue
        memory_id = raw_id.strip(JS_WHITESPACE)
        if memory_id:
            by_id[memory_id] = MemoryEntry(memory_id, content)
    return tuple(by_id[i] for i in sorted(by_id))


def _mapping(entry: Any) -> Mapping[str, Any] | None:
    if isinstance(entry, Skill | LoadedSkill):
        return {"id": entry.id, "name": entry.name, "content": entry.content}
    if isinstance(entry, Memory | MemoryEntry):
        return {"id": entry.id, "content": entry.content}
    return entry if isinstance(entry, Mapping) else None


# --------------------------------------------------------------------------- tokens


class AxllmTokenizer:
    """`_agent_relevance_tokens` (prose) and `_agent_identifier_tokens`, with the
    profile's patterns (its punctuation class and the identifier splitters, which pass
    JavaScript's "$1 $2" to Python's `re.sub`, so `$1` stays a literal)."""

    def __init__(self, profile: AxProfile) -> None:
        self.stopwords = profile.stopwords
        self._punctuation = re.compile(profile.punctuation_pattern)
        acronym, camel, non_alnum, number = profile.identifier_patterns
        self._acronym, self._camel = re.compile(acronym), re.compile(camel)
        self._non_alnum, self._number = re.compile(non_alnum), re.compile(number)

    @staticmethod
    def _parts(text: str) -> list[str]:
        # _core_string_split_trim_nonempty(value, " "): Python's strip()
        return [part.strip() for part in text.split(" ") if part.strip()]

    def prose(self, text: str) -> list[str]:
        clean = self._punctuation.sub(" ", text.lower())
        return [
            part
            for part in self._parts(clean)
            if len(part) > 1 and self._number.sub("", part) != "" and part not in self.stopwords
        ]

    def identifier(self, text: str) -> list[str]:
        spaced = self._camel.sub("$1 $2", self._acronym.sub("$1 $2", text))
        lower = self._non_alnum.sub(" ", spaced).lower()
        return [p for p in self._parts(lower) if len(p) > 1 and self._number.sub("", p) != ""]


def _term_frequencies(doc: RankDocument, tokenizer: AxllmTokenizer) -> dict[str, Any]:
    """`_agent_document_term_frequency` (weights summed with `+`, as axllm does)."""
    tf: dict[str, Any] = {}
    for f in doc.fields:
        terms = tokenizer.identifier(f.text) if f.identifier else tokenizer.prose(f.text)
        for term in terms:
            tf[term] = tf.get(term, 0) + f.weight
    return tf


# --------------------------------------------------------------------------- ranking


@dataclass(frozen=True)
class AxllmOptions:
    """`_core_get(options, key, default)` of a relevanceRanking object: axllm compares
    the values as they are (Python semantics)."""

    top_k: float
    min_score: float
    margin_ratio: float
    min_docs: float

    @classmethod
    def of(cls, value: Mapping[str, Any] | None, profile: AxProfile) -> AxllmOptions:
        d = profile.rank_defaults
        values = {"topK": d.top_k, "minScore": d.min_score, "marginRatio": d.margin_ratio,
                  "minDocs": d.min_docs}  # fmt: skip
        for key in values:
            if value is not None and key in value:
                raw = value[key]
                if not isinstance(raw, int | float):
                    raise InputError(
                        f"relevanceRanking.{key}: axllm compares it with numbers as it is "
                        f"and fails on {raw!r} (give a number)"
                    )
                values[key] = float(raw)
        return cls(values["topK"], values["minScore"], values["marginRatio"], values["minDocs"])

    @classmethod
    def best_effort(cls, top_k: int) -> AxllmOptions:
        return cls(top_k, 0, 0, 1)

    def rank_options(self) -> RankOptions:
        return RankOptions(self.top_k, self.min_score, self.margin_ratio, self.min_docs)


class AxllmRanker:
    """`_agent_rank_documents` over a fixed document set (minus excluded ids), with the
    result in the shape of the TypeScript ranker's (`RankResult`).

    axllm orders by repeated selection: the first document, in code-point order of id,
    with the largest raw score among ids not yet taken; a repeated id keeps its best
    document. Here the same order comes from one sort of the ids' best documents."""

    def __init__(self, docs: Sequence[RankDocument], tokenizer: AxllmTokenizer) -> None:
        self.docs = list(docs)
        self.tokenizer = tokenizer
        self._tfs = [_term_frequencies(doc, tokenizer) for doc in self.docs]

    def rank(
        self, query: str, options: AxllmOptions, exclude_ids: frozenset[str] = frozenset()
    ) -> RankResult:
        pairs = [(d, tf) for d, tf in zip(self.docs, self._tfs, strict=True)
                 if d.id not in exclude_ids]  # fmt: skip
        tokens = tuple(self.tokenizer.prose(query))
        ts_options = options.rank_options()
        doc_count = len(pairs)
        if doc_count < options.min_docs:
            return RankResult(query, tokens, ts_options, doc_count,
                              suppression=Suppression.TOO_FEW_DOCS)  # fmt: skip
        df: dict[str, int] = {}
        for _doc, tf in pairs:
            for term in tf:
                df[term] = df.get(term, 0) + 1
        effective = tuple(t for t in dict.fromkeys(tokens) if t in df)
        if not effective:
            return RankResult(query, tokens, ts_options, doc_count,
                              suppression=Suppression.NO_TERMS)  # fmt: skip
        idf = tuple(math.log(1 + float(doc_count) / float(df[t])) for t in effective)
        total: float = 0
        for weight in idf:
            total = total + weight
        best: dict[str, ScoredDocument] = {}
        for position, (doc, tf) in enumerate(pairs):
            raw: float = 0
            covered: float = 0
            matched: list[str] = []
            for term, weight in zip(effective, idf, strict=True):
                f = tf.get(term, 0)
                if f > 0:
                    raw = raw + float(weight) * (float(f) / float(f + 1))
                    covered = covered + weight
                    matched.append(term)
            scored = ScoredDocument(doc.id, raw, float(covered) / float(total or 1),
                                    tuple(matched), position)  # fmt: skip
            if doc.id not in best or raw > best[doc.id].raw:
                best[doc.id] = scored
        ordered = sorted(best.values(), key=lambda s: (-s.raw, s.id))
        top = ordered[0]
        matches = tuple(s for s in ordered if s.raw > 0)
        base = RankResult(query, tokens, ts_options, doc_count, effective, idf,
                          matches=matches, match_count=len(matches),
                          df={t: df[t] for t in effective})  # fmt: skip
        if top.raw <= 0:
            return replace(base, suppression=Suppression.NO_MATCH)
        if top.coverage < options.min_score:
            return replace(base, suppression=Suppression.WEAK_TOP)
        if options.margin_ratio > 0:
            near = sum(
                1 for s in matches if (top.raw + s.raw * -1.0) / top.raw < options.margin_ratio
            )
            if doc_count >= 2 and near >= doc_count:
                return replace(base, suppression=Suppression.ALL_NEAR_TOP)
        ranked = tuple(
            RankedEntry(s.id, float(s.raw) / float(top.raw), s.raw, s.coverage, s.matched_terms)
            for s in matches[: _take(options.top_k, len(matches))]
        )
        return replace(base, ranked=ranked)


def _take(top_k: float, available: int) -> int:
    """How many entries `len(out) < top_k` lets in."""
    if top_k != top_k or top_k <= 0:
        return 0
    return available if math.isinf(top_k) else min(available, math.ceil(top_k))


# --------------------------------------------------------------------------- documents


def skill_documents(catalog: Sequence[Skill], profile: AxProfile) -> list[RankDocument]:
    """The documents `_agent_catalog_skill_search` and the skills hint rank."""
    cut = profile.skill_content_chars
    docs = []
    for s in catalog:
        fields = [RankField(s.id, 1, True), RankField(s.name, profile.skill_name_weight)]
        if s.description != "":
            fields.append(RankField(s.description, profile.skill_description_weight))
        fields.append(RankField(s.content[:cut]))
        docs.append(RankDocument(s.id, tuple(fields)))
    return docs


def memory_documents(catalog: Sequence[MemoryEntry], profile: AxProfile) -> list[RankDocument]:
    cut = profile.memory_content_chars
    return [
        RankDocument(m.id, (RankField(m.id, 1, True), RankField(m.content[:cut]))) for m in catalog
    ]


def memory_catalog(memories: Iterable[Memory]) -> tuple[MemoryEntry, ...]:
    """The memories catalog as axllm holds it (`_agent_merge_memory_results([], ...)`)."""
    return merge_memory_results((), memories)


def snippet(content: str, profile: AxProfile) -> str:
    """A memory hint's snippet: Python `\\s` runs collapsed, JS white space trimmed,
    the first 80 code points."""
    single_line = _PY_WS_RUN.sub(" ", content)
    return single_line.strip(JS_WHITESPACE)[: profile.memory_hint_snippet_chars]
