"""Scenarios as a use case: the workspace documents, simulating one, and the prompt
preview (what the model sees, section by section, for one stage and one executor turn).

A workspace scenario document is an Ax scenario (`core/ax/simulate.py`) plus its `name`;
the name is the document's key, so it is taken off before validation and put back on save.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from axmem_gui.core.ax.jstext import utf16_len
from axmem_gui.core.ax.profile import (
    AXLLM_PROFILE,
    DEFAULT_AX_VERSION,
    TS_PROFILE,
    AxProfile,
    load_profile,
    search_profile,
)
from axmem_gui.core.ax.render import (
    LOADED_SKILLS_TITLE,
    MEMORIES_TITLE,
    RELEVANCE_HINTS_TITLE,
    STAGES,
    SkillsSection,
    user_turn_field,
)
from axmem_gui.core.ax.search import MemorySearch, SkillSearch
from axmem_gui.core.ax.simulate import Scenario, Simulation, simulate
from axmem_gui.core.catalog import Catalog, Memory, Skill
from axmem_gui.core.errors import InputError

if TYPE_CHECKING:
    from axmem_gui.store.workspace import Workspace

#: Rough, model-independent token estimate used across the studio.
CHARS_PER_TOKEN = 4

#: Preview sections, in the order the model meets them.
SECTION_SKILLS = "skills"
SECTION_LOADED = "loaded"
SECTION_MEMORIES = "memories"
SECTION_HINTS = "hints"
SECTION_KEYS = (SECTION_SKILLS, SECTION_LOADED, SECTION_MEMORIES, SECTION_HINTS)
SECTION_TITLES = {
    SECTION_SKILLS: "Available Skills",
    SECTION_LOADED: LOADED_SKILLS_TITLE,
    SECTION_MEMORIES: MEMORIES_TITLE,
    SECTION_HINTS: RELEVANCE_HINTS_TITLE,
}
RUNTIMES = ("JavaScript", "Python")
#: The profiles a preview offers: a TypeScript app's prompts, and the studio's own runs'.
PREVIEW_PROFILES = (TS_PROFILE, AXLLM_PROFILE)


def runs_profile() -> str:
    """The profile the studio's live runs follow: axllm's, of the release the studio pins
    (engine/agent_factory.py builds the agents with axllm; a session records the release
    that ran it, `versions.prompt_profile`). Not read from the installed package: that
    import costs start-up time the preview dock is built in."""
    return AXLLM_PROFILE


# --------------------------------------------------------------------------- documents


def scenario_from_document(data: Any, source: str = "scenario") -> Scenario:
    """Validate a workspace scenario document (its `name` key is allowed and ignored)."""
    if isinstance(data, dict) and "name" in data:
        name = data["name"]
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"{source}: 'name' must be a non-empty string")
        data = {k: v for k, v in data.items() if k != "name"}
    return Scenario.from_json(data, source)


def scenario_document(name: str, scenario: Scenario) -> dict[str, Any]:
    """The document stored under `name` (name first, then the scenario's own keys)."""
    return {"name": name, **scenario.to_json()}


def new_scenario_document(name: str, task: str = "") -> dict[str, Any]:
    return scenario_document(name, Scenario(task=task, turns=()))


def unique_name(existing: Sequence[str], base: str) -> str:
    """`base`, or `base 2`, `base 3`... whichever is free."""
    taken = set(existing)
    if base not in taken:
        return base
    n = 2
    while f"{base} {n}" in taken:
        n += 1
    return f"{base} {n}"


def check_name(name: str) -> str:
    """A scenario name as typed: trimmed and non-empty (InputError otherwise)."""
    cleaned = name.strip()
    if not cleaned:
        raise InputError("a scenario needs a name")
    return cleaned


def load_scenario(ws: Workspace, name: str) -> Scenario:
    data = ws.scenarios.get(name)
    if data is None:
        names = ws.scenarios.list()
        known = ", ".join(repr(n) for n in names) if names else "none"
        raise InputError(f"workspace: no scenario named {name!r} (available: {known})")
    return scenario_from_document(data, f"workspace scenario {name!r}")


def preset_skill(skill: Skill) -> dict[str, str]:
    """A catalog skill as a constructor skill (what the agent is given up front)."""
    out = {"id": skill.id, "name": skill.name}
    if skill.description:
        out["description"] = skill.description
    out["content"] = skill.content
    return out


def preloaded_memory(memory: Memory) -> dict[str, str]:
    return {"id": memory.id, "content": memory.content}


# --------------------------------------------------------------------------- simulating


def simulate_scenario(
    catalog: Catalog,
    scenario: Scenario,
    profile: AxProfile | None = None,
    *,
    skill_search: SkillSearch | None = None,
    memory_search: MemorySearch | None = None,
    stages: Collection[str] = STAGES,
    rendered: Mapping[str, SkillsSection | None] | None = None,
) -> Simulation:
    """`simulate` with indexed searches (fast on big catalogs; the same results)."""
    profile = profile or load_profile()
    host = search_profile(profile)
    if skill_search is None and catalog.skills:
        skill_search = SkillSearch.indexed(catalog.skills, host)
    if memory_search is None and catalog.memories:
        memory_search = MemorySearch.indexed(catalog.memories, host)
    return simulate(
        catalog, scenario, profile, skill_search=skill_search, memory_search=memory_search,
        stages=stages, rendered=rendered,
    )  # fmt: skip


def simulate_workspace_scenario(
    ws: Workspace, name: str, ax_version: str = DEFAULT_AX_VERSION
) -> tuple[Scenario, Simulation]:
    scenario = load_scenario(ws, name)
    return scenario, simulate_scenario(ws.catalog(), scenario, load_profile(ax_version))


def simulate_workspace_scenario_at(
    path: Path | str | None, name: str, ax_version: str = DEFAULT_AX_VERSION
) -> tuple[Scenario, Simulation]:
    """Open the workspace at `path` (None: the default one) read-only and simulate the
    scenario stored under `name` over its catalog."""
    from axmem_gui.services.workspace import open_workspace

    with open_workspace(path, read_only=True) as ws:
        return simulate_workspace_scenario(ws, name, ax_version)


# --------------------------------------------------------------------------- preview


def token_estimate(chars: int) -> int:
    return (chars + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


@dataclass(frozen=True)
class PreviewSection:
    """One part of what the model sees. `text` is exact (None: the model does not see
    this part, `note` says why)."""

    key: str
    title: str
    text: str | None
    note: str = ""

    @cached_property
    def chars(self) -> int:
        """Length in UTF-16 code units, the unit Ax (JavaScript) measures in."""
        return 0 if self.text is None else utf16_len(self.text)

    @property
    def tokens(self) -> int:
        return token_estimate(self.chars)


@dataclass(frozen=True)
class PromptPreview:
    stage: str
    turn: int  # 0-based executor turn
    turn_count: int  # executor turns the scenario shows (its calls + the turn after)
    sections: tuple[PreviewSection, ...]
    errors: tuple[str, ...] = ()

    def section(self, key: str) -> PreviewSection:
        for s in self.sections:
            if s.key == key:
                return s
        raise KeyError(key)

    @property
    def chars(self) -> int:
        return sum(s.chars for s in self.sections)

    @property
    def tokens(self) -> int:
        return token_estimate(self.chars)


def preview_scenario(
    scenario: Scenario | None, runtime: str | None = None
) -> Scenario:
    """The scenario a preview simulates: the one given (runtime optionally replaced), or
    an empty one (the catalog's sections only)."""
    base = scenario if scenario is not None else Scenario()
    return base if runtime is None or runtime == base.runtime else replace(base, runtime=runtime)


def preview_from_simulation(sim: Simulation, stage: str, turn: int) -> PromptPreview:
    """The sections of `stage`'s skills prompt and executor turn `turn` (clamped)."""
    section = sim.executor_section if stage == "executor" else sim.distiller_section
    skills_text = None if section is None else section.text
    skills_note = "" if section is not None else "no skills catalog: the section is absent"
    if not sim.turns:  # Ax refused the forward (an empty task): nothing was shown
        return PromptPreview(
            stage, 0, 0,
            tuple(
                PreviewSection(key, SECTION_TITLES.get(key, key), None, sim.errors[0])
                for key in (SECTION_SKILLS, SECTION_LOADED, SECTION_MEMORIES, SECTION_HINTS)
            ),
            sim.errors,
        )  # fmt: skip
    index = max(0, min(turn, len(sim.turns) - 1))
    view = sim.turns[index]
    loaded = user_turn_field(LOADED_SKILLS_TITLE, view.loaded_skills)
    memories = user_turn_field(MEMORIES_TITLE, view.memories)
    hints = user_turn_field(RELEVANCE_HINTS_TITLE, view.relevance_hints)
    sections = (
        PreviewSection(SECTION_SKILLS, SECTION_TITLES[SECTION_SKILLS], skills_text, skills_note),
        PreviewSection(
            SECTION_LOADED, LOADED_SKILLS_TITLE, loaded,
            "" if loaded is not None else "no skill loaded yet: the field is omitted",
        ),
        PreviewSection(
            SECTION_MEMORIES, MEMORIES_TITLE, memories,
            "" if memories is not None else "no memory loaded yet: the field is omitted",
        ),
        PreviewSection(
            SECTION_HINTS, RELEVANCE_HINTS_TITLE, hints,
            "" if hints is not None else _hints_note(sim),
        ),
    )
    return PromptPreview(stage, index, len(sim.turns), sections, view.errors)


def _hints_note(sim: Simulation) -> str:
    if not sim.hints.enabled:
        return "relevance hints are off (relevanceRanking: false, or no catalog)"
    return "every shortlist is suppressed for this task: the field is omitted"


def turn_calls_summary(sim: Simulation) -> list[Mapping[str, tuple[str, ...] | None]]:
    """Per scenario turn, the ids each call loaded (None: no such call)."""
    out: list[Mapping[str, tuple[str, ...] | None]] = []
    for view in sim.turns[: len(sim.scenario.turns)]:
        out.append(
            {
                "discover": None if view.discover is None else view.discover.result_ids,
                "recall": None if view.recall is None else view.recall.result_ids,
            }
        )
    return out
