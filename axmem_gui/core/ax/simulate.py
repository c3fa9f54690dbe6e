"""Turn-by-turn simulation of what an Ax agent with catalogs shows the model.

`simulate` replays a `Scenario` (core/ax/scenario.py: the task, skills, memories and each
executor turn's `discover({ skills })` and `recall` calls) the way `@ax-llm/ax` runs it
(distiller -> executor): the stage prompts' skills sections, and for each executor turn
the `Loaded Skills`, `Memories` and `Relevance Hints` field values, plus the payloads of
`onLoadedSkills`, `onLoadedMemories` and the `relevance_ranking` context events.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from axmem_gui.core.ax.axllm_search import relevance_hints
from axmem_gui.core.ax.profile import AxProfile, search_profile
from axmem_gui.core.ax.render import (
    STAGES,
    SkillsSection,
    StageConfig,
    field_title,
    render_loaded_skills,
    render_memory_entries,
    render_skills_section,
    stage_input_fields,
)
from axmem_gui.core.ax.scenario import Scenario, SearchArg, arg_json
from axmem_gui.core.ax.search import (
    DISCOVER,
    RECALL,
    MemorySearch,
    PolicyError,
    RelevanceHints,
    SearchCall,
    SkillSearch,
    normalize_search_input,
)
from axmem_gui.core.ax.state import LoadedSkills, MemoryEntry, merge_memories
from axmem_gui.core.catalog import Catalog, Skill


@dataclass(frozen=True)
class TurnView:
    """One executor turn: the field values the model sees, then the calls it makes."""

    index: int
    loaded_skills: str | None
    memories: str | None
    relevance_hints: str | None
    discover: SearchCall | None = None
    recall: SearchCall | None = None
    errors: tuple[str, ...] = ()

    def fields_json(self) -> dict[str, str | None]:
        return {
            "loadedSkills": self.loaded_skills,
            "memories": self.memories,
            "relevanceHints": self.relevance_hints,
        }


@dataclass(frozen=True)
class Simulation:
    scenario: Scenario
    executor_section: SkillsSection | None
    distiller_section: SkillsSection | None
    executor_field_titles: tuple[str, ...]
    distiller_field_titles: tuple[str, ...]
    hints: RelevanceHints
    hints_text: str | None
    turns: tuple[TurnView, ...]
    on_loaded_skills: tuple[tuple[dict[str, str], ...], ...]
    on_loaded_memories: tuple[tuple[dict[str, Any], ...], ...]
    has_skills_catalog: bool
    has_memories_catalog: bool
    final_loaded_skills: str | None
    final_memories: str | None
    errors: tuple[str, ...] = field(default=())
    #: Every discover / recall call the run made, in order, as `internals` records it: a
    #: refused call (Ax's `[POLICY]` error) is `{queries: null, error, ...}`.
    skill_call_records: tuple[dict[str, Any], ...] = ()
    memory_call_records: tuple[dict[str, Any], ...] = ()
    #: The stages' skills sections as the definition builders make them (executor,
    #: distiller). Ax builds the definitions when the agent is made, so a forward refused
    #: before any stage still has them, though no prompt shows them.
    definition_sections: tuple[SkillsSection | None, SkillsSection | None] = (None, None)

    def end_to_end_json(self) -> dict[str, Any]:
        """What the model saw, in the shape of the golden `endToEnd`."""
        ex, di = self.executor_section, self.distiller_section
        return {
            "errors": list(self.errors),
            "executorSystemAvailableSkills": ex.index_block if ex else None,
            "distillerSystemAvailableSkills": di.index_block if di else None,
            "executorSystemHasLikelyRelevant": self.hints.enabled,
            "executorFieldTitles": list(self.executor_field_titles),
            "distillerFieldTitles": list(self.distiller_field_titles),
            "executorSystemSkillsSection": ex.text if ex else None,
            "distillerSystemSkillsSection": di.text if di else None,
            "executorTurns": [t.fields_json() for t in self.turns],
            "onLoadedSkills": [list(p) for p in self.on_loaded_skills],
            "onLoadedMemories": [list(p) for p in self.on_loaded_memories],
            "relevanceRankingEvents": self.hints.events(),
        }

    def internals_json(self) -> dict[str, Any]:
        """Search internals, in the shape of the golden `internals`."""
        skills: dict[str, Any] = {}
        if self.has_skills_catalog:
            ex, di = self.definition_sections
            skills["executorDefinitionBlock"] = ex.definition_block if ex else None
            skills["distillerDefinitionBlock"] = di.definition_block if di else None
            skills["calls"] = [dict(c) for c in self.skill_call_records]
        skills["finalLoadedRendered"] = self.final_loaded_skills
        memories: dict[str, Any] = {}
        if self.has_memories_catalog:
            memories["calls"] = [dict(c) for c in self.memory_call_records]
            memories["finalRendered"] = self.final_memories
        hints: dict[str, Any]
        if self.scenario.relevance_ranking is False:
            hints = {"disabled": True, "rendered": None}
        else:
            skill_hints = self.hints.skills.skills if self.hints.skills else ()
            memory_hints = self.hints.memories.memories if self.hints.memories else ()
            hints = {
                "skills": [h.to_json() for h in skill_hints],
                "memories": [h.to_json() for h in memory_hints],
                "rendered": self.hints_text,
            }
        return {"skills": skills, "memories": memories, "hints": hints}


@dataclass(frozen=True)
class SectionInputs:
    """What one stage's skills section depends on besides the skills themselves (a view
    that renders the section elsewhere keys its copy by this and the skills)."""

    stage: str
    config: StageConfig
    preset_skills_loaded: bool

    def render(self, skills: Sequence[Skill], profile: AxProfile) -> SkillsSection | None:
        return render_skills_section(
            skills, self.stage, profile, self.config,
            preset_skills_loaded=self.preset_skills_loaded,
        )  # fmt: skip


def section_inputs(
    catalog: Catalog, scenario: Scenario, profile: AxProfile, stage: str
) -> SectionInputs:
    """The inputs `simulate` renders `stage`'s skills section from."""
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}")
    # Only the executor starts with the constructor's skills loaded.
    preset = stage == "executor" and len(LoadedSkills().ingest(scenario.preset_skills)) > 0
    return SectionInputs(stage, _stage_config(catalog, scenario, profile), preset)


def _stage_config(catalog: Catalog, scenario: Scenario, profile: AxProfile) -> StageConfig:
    hints_on = scenario.relevance_ranking is not False and (
        len(catalog.skills) > 0 or len(catalog.memories) > 0
    )
    return StageConfig(
        runtime_language=scenario.runtime,
        memories_mode=len(catalog.memories) > 0,
        relevance_hints=hints_on,
        # axllm is the studio's live runtime, and its runs always install the used()
        # callbacks (engine/agent_factory.py): its stages are in skills mode.
        skill_usage=profile.is_axllm,
        memory_usage=profile.is_axllm and len(catalog.memories) > 0,
    )


def simulate(
    catalog: Catalog,
    scenario: Scenario,
    profile: AxProfile,
    *,
    skill_search: SkillSearch | None = None,
    memory_search: MemorySearch | None = None,
    stages: Collection[str] = STAGES,
    rendered: Mapping[str, SkillsSection | None] | None = None,
) -> Simulation:
    """Replay `scenario` against `catalog` as Ax would (see module docstring).

    The skills sections of `stages` are rendered (each is the whole catalog's index: a
    view that shows one stage asks for that one); the others' are None. `rendered` gives
    sections already rendered elsewhere from the same inputs (`section_inputs`), by stage.

    With an axllm profile this is the studio's live run: axllm renders every section and
    ranks the hints itself, and `skill_search` / `memory_search` (by default the Ax
    search, which the studio installs as axllm's host search) answer discover and recall
    once axllm has checked their arguments.
    """
    skills, memories = catalog.skills, catalog.memories
    host = search_profile(profile)
    config = _stage_config(catalog, scenario, profile)
    loaded = LoadedSkills().ingest(scenario.preset_skills)
    given = rendered or {}

    def section(stage: str) -> SkillsSection | None:
        if stage in given:
            return given[stage]
        if stage not in stages:
            return None
        return section_inputs(catalog, scenario, profile, stage).render(skills, profile)

    executor_section = section("executor")
    distiller_section = section("distiller")
    merged: tuple[MemoryEntry, ...] = merge_memories(None, scenario.preloaded_memories)
    if scenario.query == "":
        # Ax validates the signature's inputs before any stage runs: no prompt, no turn.
        return _refused(
            catalog,
            scenario,
            profile.required_input.format(field="query"),
            (executor_section, distiller_section),
            render_loaded_skills(loaded, profile),
            render_memory_entries(merged, profile),
        )
    skill_search = skill_search or (SkillSearch(skills, host) if skills else None)
    memory_search = memory_search or (MemorySearch(memories, host) if memories else None)
    hints = relevance_hints(
        profile, scenario.rank_task(), scenario.relevance_ranking, [m.id for m in merged],
        catalog, skill_search, memory_search,
    )  # fmt: skip
    hints_text = hints.text(profile)

    turns: list[TurnView] = []
    skills_payloads: list[tuple[dict[str, str], ...]] = []
    memories_payloads: list[tuple[dict[str, Any], ...]] = []
    all_errors: list[str] = []
    skill_records: list[dict[str, Any]] = []
    memory_records: list[dict[str, Any]] = []
    for index in range(len(scenario.turns) + 1):
        view = TurnView(
            index,
            render_loaded_skills(loaded, profile),
            render_memory_entries(merged, profile),
            hints_text,
        )
        if index == len(scenario.turns):
            turns.append(view)
            break
        step = scenario.turns[index]
        errors: list[str] = []
        discover_call = recall_call = None
        refused = False  # a thrown [POLICY] error ends the turn's code: later calls never run
        if step.discover is not None:
            if skill_search is None:
                # No skills catalog: the agent defines no `discover`, so calling it is a
                # ReferenceError that ends the turn's code (Ax's AxJSRuntime).
                errors.append("ReferenceError: discover is not defined")
                refused = True
            else:
                try:
                    discover_call, found = skill_search.discover(
                        _checked(step.discover, DISCOVER, profile)
                    )
                except PolicyError as exc:
                    errors.append(str(exc))
                    skill_records.append(_refused_call_json(str(exc)))
                    refused = True
                else:
                    skill_records.append(discover_call.to_json())
                    if found:
                        payload = tuple(
                            {"id": s.id, "name": s.name, "content": s.content} for s in found
                        )
                        skills_payloads.append(payload)
                        loaded = loaded.ingest(payload)
        if step.recall is not None and not refused:
            already = [m.id for m in merged]
            if memory_search is None:
                errors.append("ReferenceError: recall is not defined")
            else:
                try:
                    recall_call, recalled = memory_search.recall(
                        _checked(step.recall, RECALL, profile), already
                    )
                except PolicyError as exc:
                    errors.append(str(exc))
                    memory_records.append(_refused_call_json(str(exc), already))
                else:
                    memory_records.append(recall_call.to_json())
                    if recalled:
                        # the catalog objects themselves: extra keys (tags, metadata) included
                        mem_payload = tuple(m.to_payload() for m in recalled)
                        memories_payloads.append(mem_payload)
                        merged = merge_memories(merged, mem_payload)
        all_errors.extend(errors)
        turns.append(
            TurnView(
                view.index,
                view.loaded_skills,
                view.memories,
                view.relevance_hints,
                discover_call,
                recall_call,
                tuple(errors),
            )
        )

    return Simulation(
        scenario=scenario,
        executor_section=executor_section,
        distiller_section=distiller_section,
        executor_field_titles=_titles(profile, "executor", config),
        distiller_field_titles=_titles(profile, "distiller", config),
        hints=hints,
        hints_text=hints_text,
        turns=tuple(turns),
        on_loaded_skills=tuple(skills_payloads),
        on_loaded_memories=tuple(memories_payloads),
        has_skills_catalog=len(skills) > 0,
        has_memories_catalog=len(memories) > 0,
        final_loaded_skills=render_loaded_skills(loaded, profile),
        final_memories=render_memory_entries(merged, profile),
        errors=tuple(all_errors),
        skill_call_records=tuple(skill_records),
        memory_call_records=tuple(memory_records),
        definition_sections=(executor_section, distiller_section),
    )


def _checked(arg: SearchArg, primitive: str, profile: AxProfile) -> Any:
    """The call's argument, checked by the runtime whose prompts are simulated (axllm
    checks it itself before its host search sees it)."""
    value = arg_json(arg)
    return list(normalize_search_input(value, primitive, profile)) if profile.is_axllm else value


def _refused_call_json(error: str, already_loaded: list[str] | None = None) -> dict[str, Any]:
    """A call Ax refused with a `[POLICY]` error, as `internals` records it."""
    out: dict[str, Any] = {"queries": None}
    if already_loaded is not None:
        out["alreadyLoadedIds"] = list(already_loaded)
    return {**out, "error": error, "perQuery": [], "resultIds": []}


def _refused(
    catalog: Catalog,
    scenario: Scenario,
    error: str,
    definition_sections: tuple[SkillsSection | None, SkillsSection | None],
    final_loaded_skills: str | None,
    final_memories: str | None,
) -> Simulation:
    """What Ax gives for a forward it refuses up front: the error, nothing shown and no
    call made. The agent was built, so its definitions and the state it starts from
    (constructor skills, forward-time memories) are what the renderers give."""
    return Simulation(
        scenario=scenario,
        executor_section=None,
        distiller_section=None,
        executor_field_titles=(),
        distiller_field_titles=(),
        hints=RelevanceHints(enabled=False),
        hints_text=None,
        turns=(),
        on_loaded_skills=(),
        on_loaded_memories=(),
        has_skills_catalog=len(catalog.skills) > 0,
        has_memories_catalog=len(catalog.memories) > 0,
        final_loaded_skills=final_loaded_skills,
        final_memories=final_memories,
        errors=(error,),
        definition_sections=definition_sections,
    )


def _titles(profile: AxProfile, stage: str, config: StageConfig) -> tuple[str, ...]:
    return tuple(field_title(name) for name in stage_input_fields(profile, stage, config))
