"""The app's Ax-exact catalog search as a retrieval backend for live runs and what-if.

Wraps `core.ax.search` (the same search the preview and the retrieval bench use) behind
the small `RetrievalBackend` protocol the engine's host search callbacks call.
"""

from __future__ import annotations

from collections.abc import Sequence

from axmem_gui.core.ax.profile import DEFAULT_AX_VERSION, load_profile
from axmem_gui.core.ax.search import MemorySearch, PolicyError, SkillSearch
from axmem_gui.core.catalog import Catalog, Memory, Skill

#: The search backends a run or a replay can use, by the names the CLI takes: the app's
#: Ax-exact search (`AxExactBackend`) and axllm's own (the engine's).
SEARCH_BACKENDS = ("axmem-ax", "axllm-builtin")


class AxExactBackend:
    """discover: top 2 per search string over all skills; recall: top 3 per search string
    over the memories not yet loaded; both exactly as Ax (TS) ranks them."""

    name = "axmem-ax"

    def __init__(self, ax_version: str = DEFAULT_AX_VERSION) -> None:
        self._ax_profile = load_profile(ax_version)
        self.profile: str | None = f"ax-{ax_version}"
        # One run searches the same catalog many times: keep the built index for it.
        self._skills: tuple[tuple[Skill, ...], SkillSearch] | None = None
        self._memories: tuple[tuple[Memory, ...], MemorySearch] | None = None

    def _skill_search(self, catalog: Catalog) -> SkillSearch:
        if self._skills is None or self._skills[0] is not catalog.skills:
            self._skills = (catalog.skills, SkillSearch(catalog.skills, self._ax_profile))
        return self._skills[1]

    def _memory_search(self, catalog: Catalog) -> MemorySearch:
        if self._memories is None or self._memories[0] is not catalog.memories:
            self._memories = (catalog.memories, MemorySearch(catalog.memories, self._ax_profile))
        return self._memories[1]

    def discover(self, catalog: Catalog, searches: Sequence[str]) -> list[Skill]:
        try:
            return self._skill_search(catalog).discover(list(searches))[1]
        except PolicyError:
            # axllm validated the call already; an input Ax would refuse finds nothing.
            return []

    def recall(
        self, catalog: Catalog, searches: Sequence[str], loaded_ids: Sequence[str]
    ) -> list[Memory]:
        try:
            return self._memory_search(catalog).recall(list(searches), loaded_ids)[1]
        except PolicyError:
            return []
