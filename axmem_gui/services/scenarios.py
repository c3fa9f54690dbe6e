"""The scenarios aggregate: the workspace's scenario documents (`ScenarioService`),
simulating one, and the prompt preview (what the model sees, section by section, for one
stage and one executor turn).

A workspace scenario document is an Ax scenario plus its `name` (`core/scenarios.py`
reads and writes it).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

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
from axmem_gui.core.ax.scenario import Scenario
from axmem_gui.core.ax.search import MemorySearch, SkillSearch
from axmem_gui.core.ax.simulate import Simulation, simulate
from axmem_gui.core.catalog import Catalog, Memory, Skill
from axmem_gui.core.errors import ConflictError, InputError
from axmem_gui.core.scenarios import ScenarioDocument, read_scenario_document
from axmem_gui.services.aggregates import Change, Notices

if TYPE_CHECKING:
    from axmem_gui.services.workspace import OpenWorkspace
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


@dataclass(frozen=True, slots=True)
class StoredScenario:
    document: ScenarioDocument
    revision: int


@dataclass(frozen=True, slots=True)
class ScenarioChange:
    """Scenario `name` goes from `before` (what the caller saw; None: absent) to `after`
    (None: removed). With `expected_revision`, the stored revision must be that too."""

    name: str
    before: ScenarioDocument | None
    after: ScenarioDocument | None
    expected_revision: int | None = None


class ScenarioService:
    """The scenarios of one open workspace. Every write is a list of changes, checked
    against the store (each scenario must still hold what its change saw) and applied in
    one transaction, then announced; the GUI's undo commands use nothing else."""

    def __init__(self, store: Workspace, notices: Notices | None = None) -> None:
        self._store = store
        self._notices = notices if notices is not None else Notices()

    def names(self) -> list[str]:
        return self._store.scenarios.list()

    def get(self, name: str) -> StoredScenario | None:
        doc = self._store.scenarios.document(name)
        if doc is None:
            return None
        source = f"workspace scenario {name!r}"
        return StoredScenario(read_scenario_document(name, doc.data, source), doc.revision)

    def load(self, name: str) -> Scenario:
        """The scenario stored under `name`; InputError when absent or unreadable."""
        found = self.get(name)
        if found is None:
            names = self.names()
            known = ", ".join(repr(n) for n in names) if names else "none"
            raise InputError(f"workspace: no scenario named {name!r} (available: {known})")
        if found.document.scenario is None:
            raise InputError(found.document.problem)
        return found.document.scenario

    def apply(self, changes: Sequence[ScenarioChange]) -> dict[str, int]:
        """Write every change in one transaction after checking each scenario still holds
        what the caller saw (ConflictError otherwise: nothing written); returns the new
        revision of each scenario written (0: removed)."""
        repo = self._store.scenarios
        out: dict[str, int] = {}
        with self._store.transaction(immediate=True):
            for change in changes:
                self._check(change)
            for change in changes:
                if change.after is None:
                    repo.delete(change.name)
                    out[change.name] = 0
            for change in changes:
                if change.after is not None:
                    if change.after.name != change.name:
                        raise InputError(
                            f"scenario '{change.name}': the new value is named "
                            f"'{change.after.name}'"
                        )
                    out[change.name] = repo.save(change.name, change.after.to_json())
        structural = any((c.before is None) != (c.after is None) for c in changes)
        self._notices.publish(Change("scenarios", tuple(out), structural))
        return out

    def _check(self, change: ScenarioChange) -> None:
        stored = self.get(change.name)
        actual = None if stored is None else stored.revision
        if change.expected_revision is not None and (actual or 0) != change.expected_revision:
            raise ConflictError("scenario", change.name, change.expected_revision, actual)
        now = None if stored is None else stored.document.to_json()
        seen = None if change.before is None else change.before.to_json()
        if now != seen:
            state = (
                "was removed"
                if now is None
                else ("already exists" if seen is None else "was changed elsewhere")
            )
            raise ConflictError(
                "scenario",
                change.name,
                change.expected_revision,
                actual,
                f"scenario '{change.name}' {state}; nothing was changed",
            )


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
    ws: OpenWorkspace, name: str, ax_version: str = DEFAULT_AX_VERSION
) -> tuple[Scenario, Simulation]:
    scenario = ws.scenarios.load(name)
    return scenario, simulate_scenario(ws.catalog.snapshot(), scenario, load_profile(ax_version))


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


@dataclass(frozen=True, slots=True)
class TurnLoads:
    """What one scenario turn's calls loaded: the ids of each (None: no such call)."""

    discover: tuple[str, ...] | None = None
    recall: tuple[str, ...] | None = None

    def of(self, call: str) -> tuple[str, ...] | None:
        return self.discover if call == "discover" else self.recall


def turn_calls_summary(sim: Simulation) -> list[TurnLoads]:
    """Per scenario turn, the ids each call loaded."""
    return [
        TurnLoads(
            None if view.discover is None else view.discover.result_ids,
            None if view.recall is None else view.recall.result_ids,
        )
        for view in sim.turns[: len(sim.scenario.turns)]
    ]
