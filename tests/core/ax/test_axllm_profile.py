"""The `axllm-25.4.6` profile against the installed axllm itself (a differential check,
like the TypeScript one of `make conformance`, that runs in `make test`).

On seeded random catalogs (ids in mixed case, accented, digit-first, with emoji, padded,
repeated, equal to a stage field; empty and padded names; blank and multi-line
descriptions; long contents with emoji and lone surrogates on the cuts) every rendered
section and axllm's own search are compared with what axllm computes: the stage prompts
of an agent axllm builds (with axllm's own field-reference rewrite), the Loaded Skills and
Memories renderers over its merges, its relevance hints and its catalog searches.
"""

from __future__ import annotations

import copy
import importlib
import random
from typing import Any

import axllm
import pytest
from axllm import AxQuickJsCodeRuntime
from axllm.prompt import _core_prompt_format_description, _core_prompt_format_field_references
from axllm.signature import parse_signature

from axmem_gui.core.ax.axllm_rules import AxllmOptions, AxllmRanker, AxllmTokenizer
from axmem_gui.core.ax.axllm_search import AxllmSearch
from axmem_gui.core.ax.profile import AXLLM_PROFILE, load_profile
from axmem_gui.core.ax.ranking import RankDocument, RankField
from axmem_gui.core.ax.render import (
    StageConfig,
    render_loaded_skills,
    render_memory_entries,
    render_skills_section,
)
from axmem_gui.core.ax.scenario import Scenario
from axmem_gui.core.ax.simulate import simulate
from axmem_gui.core.ax.state import LoadedSkills, merge_memories
from axmem_gui.core.catalog import Catalog, Memory, Skill

A = importlib.import_module("axllm.agent")
PROFILE = load_profile(AXLLM_PROFILE)
EMOJI = "\U0001f600"
IDS = (
    "Deploy-Freeze", "Zebra-runbook", "2fa-reset", "a-b", "aB", "a_b", "éclair", "Éclair",
    f"{EMOJI}-emoji", " padded ", "dup", "query", "memories", "contextMap", "ß", "İstanbul",
    "中文", "x1", "X10", "release_checklist", "lookupInvoiceStatus", "PDFExport", "",
)  # fmt: skip
WORDS = (
    "deploy", "freeze", "release", "rollback", "incident", "the", "and", "fix", "task", "café",
    "Straße", "ÉCLAIR", "v2", "2024", "a", "query", "`query`", "$memories", "[loadedSkills]",
    "tab\tsep", "line\nbreak", "nbsp\xa0x", EMOJI, "rocket\U0001f680", "half\ud83d", "x",
)  # fmt: skip


def _text(r: random.Random, lo: int, hi: int) -> str:
    return " ".join(r.choice(WORDS) for _ in range(r.randint(lo, hi)))


def random_catalog(seed: int) -> Catalog:
    r = random.Random(seed)
    skills = []
    for _ in range(r.randint(0, 9)):
        skills.append(
            Skill(
                r.choice(IDS),
                r.choice(["", " ", "  Spaced name ", _text(r, 1, 3), "Name\nsplit"]),
                r.choice(["", "   ", _text(r, 1, 6), "a\n\n\n\nb", "(query) `memories`"]),
                r.choice(["", _text(r, 2, 30), EMOJI + " " + "w" * 596 + "deploy\U0001f680"]),
            )
        )
    memories = [
        Memory(r.choice(IDS) or "m", r.choice([_text(r, 2, 20), "  deploy  \n freeze\t" * 9]))
        for _ in range(r.randint(0, 6))
    ]
    return Catalog(skills=tuple(skills), memories=tuple(memories))


SEEDS = range(60)


def _agent(catalog: Catalog, **options: Any) -> Any:
    opts: dict[str, Any] = {
        "runtime": AxQuickJsCodeRuntime(),  # type: ignore[no-untyped-call]  # axllm's own
        "skillsCatalog": [s.to_ax() for s in catalog.skills],
        "memoriesCatalog": [m.to_ax() for m in catalog.memories],
        **options,
    }
    return axllm.agent("query:string -> answer:string", opts)


def _system_prompt_part(agent: Any, stage: str) -> str:
    """The stage description as it reaches the model: AxGen's formatting and field
    rewrite (`_core_prompt_format_field_references`) with the stage's own fields."""
    signature = parse_signature(agent.state[f"{stage}_signature"])
    # axllm leaves these two unannotated
    fields = {f.name: f.title for f in signature.get_input_fields()}  # type: ignore[no-untyped-call]
    fields.update({f.name: f.title for f in signature.get_output_fields()})  # type: ignore[no-untyped-call]
    description = _core_prompt_format_description(agent.state[f"{stage}_description"])
    return _core_prompt_format_field_references(description, fields)


def _skills_section(prompt: str) -> str | None:
    start = prompt.find("### Available Skills")
    loaded = prompt.find("### Loaded Skills\n\nWhen `inputs.loadedSkills`")
    if loaded < 0:
        return None
    start = loaded if start < 0 else start
    end = prompt.find("\n\n### ", loaded + 1)
    return prompt[start : end if end >= 0 else len(prompt)]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("stage", ["executor", "distiller"])
def test_skills_section_is_axllms(seed: int, stage: str) -> None:
    catalog = random_catalog(seed)
    r = random.Random(seed)
    ranking = r.choice([True, False])
    context_map = r.random() < 0.5
    options: dict[str, Any] = {"relevanceRanking": ranking}
    if context_map:
        options["contextMap"] = {"maxChars": 1000}
    agent = _agent(catalog, **options)
    config = StageConfig(
        memories_mode=bool(catalog.memories),
        relevance_hints=ranking and bool(catalog.skills or catalog.memories),
        context_map=context_map,
    )
    ours = render_skills_section(catalog.skills, stage, PROFILE, config)
    theirs = _skills_section(_system_prompt_part(agent, stage))
    assert (ours.text if ours else None) == theirs


@pytest.mark.parametrize("seed", SEEDS)
def test_loaded_skills_and_memories_are_axllms(seed: int) -> None:
    catalog = random_catalog(seed)
    r = random.Random(seed)
    first = [s.to_ax() for s in r.sample(catalog.skills, min(3, len(catalog.skills)))]
    then = [copy.deepcopy(s) for s in catalog.skills[-2:]]
    payloads = [{**s.to_ax(), "name": s.name} for s in then]
    state = LoadedSkills().ingest(first).ingest(payloads)
    theirs = A._agent_render_loaded_skills(
        A._agent_merge_skill_results(A._agent_merge_skill_results([], first), payloads)
    )
    assert (render_loaded_skills(state, PROFILE) or "") == theirs
    preloaded = [m.to_ax() for m in catalog.memories[:2]]
    recalled = [m.to_ax() for m in catalog.memories[2:]]
    merged = merge_memories(merge_memories(None, preloaded), recalled)
    theirs = A._agent_render_loaded_memories(
        A._agent_merge_memory_results(A._agent_merge_memory_results([], preloaded), recalled)
    )
    assert (render_memory_entries(merged, PROFILE) or "") == theirs


@pytest.mark.parametrize("seed", SEEDS)
def test_relevance_hints_are_axllms(seed: int) -> None:
    catalog = random_catalog(seed)
    r = random.Random(seed)
    rankings: list[bool | dict[str, int]] = [
        True,
        {"minScore": 0},
        {"marginRatio": 0, "topK": 5},
        {"minDocs": 1},
    ]
    ranking = r.choice(rankings)
    task = _text(r, 1, 8)
    preloaded = [m.to_ax() for m in catalog.memories[:1]]
    agent = _agent(catalog, relevanceRanking=ranking)
    agent.state["loaded_memories"] = A._agent_merge_memory_results([], preloaded)
    theirs = A._agent_render_relevance_hints(
        A._agent_build_relevance_hints(agent.state, {"query": task}, "-")
    )
    scenario = Scenario(task=task, preloaded_memories=tuple(preloaded), relevance_ranking=ranking)
    sim = simulate(catalog, scenario, PROFILE)
    assert (sim.hints_text or "") == theirs


@pytest.mark.parametrize("seed", SEEDS)
def test_builtin_search_is_axllms(seed: int) -> None:
    catalog = random_catalog(seed)
    r = random.Random(seed)
    search = AxllmSearch(catalog.skills, catalog.memories, PROFILE)
    searches = [_text(r, 1, 3) for _ in range(r.randint(1, 3))]
    if catalog.skills:
        theirs = A._agent_catalog_skill_search(
            A._agent_normalize_skill_catalog([s.to_ax() for s in catalog.skills]), searches
        )
        _call, found = search.discover(searches)
        assert [(s.id, s.name, s.content) for s in found] == [
            (t["id"], t["name"], t["content"]) for t in theirs
        ]
    if catalog.memories:
        loaded = [m.id for m in search.memories[:1]]
        theirs = A._agent_catalog_memory_search(
            A._agent_merge_memory_results([], [m.to_ax() for m in catalog.memories]),
            searches,
            [{"id": i} for i in loaded],
        )
        _call, recalled = search.recall(searches, loaded)
        assert [(m.id, m.content) for m in recalled] == [(t["id"], t["content"]) for t in theirs]


@pytest.mark.parametrize("seed", range(200))
def test_ranker_scores_are_axllms_bit_for_bit(seed: int) -> None:
    r = random.Random(seed)
    docs = []
    for _ in range(r.randint(0, 12)):
        doc_id = r.choice(IDS[:12])
        fields = [RankField(doc_id, 1, True), RankField(_text(r, 0, 12), r.choice([1, 2]))]
        docs.append(RankDocument(doc_id, tuple(fields)))
    raw_options: dict[str, Any] = r.choice(
        [{}, {"minScore": 0}, {"marginRatio": 0, "topK": 5}, {"minDocs": 1, "topK": 1.5}]
    )
    query = _text(r, 1, 5)
    theirs = A._agent_rank_documents(
        query,
        [{"id": d.id, "fields": [f._asdict() for f in d.fields]} for d in docs],
        raw_options,
    )
    ours = AxllmRanker(docs, AxllmTokenizer(PROFILE)).rank(
        query, AxllmOptions.of(raw_options, PROFILE)
    )
    assert [(e.id, e.score, list(e.matched_terms)) for e in ours.ranked] == [
        (t["id"], t["score"], t["matchedTerms"]) for t in theirs
    ]


def test_tokenizers_are_axllms() -> None:
    tokenizer = AxllmTokenizer(PROFILE)
    for text in (*WORDS, *IDS, "HTTPServer v2API foo2Bar", "İstanbul ŞEHİR", "12\n 3.11"):
        assert tokenizer.prose(text) == A._agent_relevance_tokens(text), text
        assert tokenizer.identifier(text) == A._agent_identifier_tokens(text), text


def test_the_profile_is_the_installed_axllms() -> None:
    from importlib.metadata import version

    assert PROFILE.name == f"axllm-{version('axllm')}"
    assert PROFILE.is_axllm and len(PROFILE.stopwords) == 32


def test_the_shipped_profile_is_what_the_builder_reads_from_the_installed_axllm() -> None:
    import json
    from importlib import resources

    from tools.ax_profile.build_axllm_profile import build

    shipped = resources.files("axmem_gui.core.ax") / "profiles" / f"{AXLLM_PROFILE}.json"
    assert build() == json.loads(shipped.read_text(encoding="utf-8"))
