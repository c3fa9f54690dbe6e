"""Who answers discover() and recall() in a run, and the record of each call.

Live runs install axllm's host search callbacks (`on_skills_search`,
`on_memories_search`) so OUR search answers, the same one the preview and the retrieval
bench use; every call and its results are recorded. Replays serve the recorded results
back (the recording, not today's search code, decides what a replay loads).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from axmem_gui.core.catalog import Catalog, Memory, Skill
from axmem_gui.core.errors import InputError
from axmem_gui.core.session.model import SearchCall, SearchInfo, SearchResult, Session
from axmem_gui.core.session.replay_cursor import SearchCursor
from axmem_gui.core.session.retrieval import SEARCH_BACKENDS, AxExactBackend
from axmem_gui.core.session.whatif import RetrievalBackend


def _axllm_agent_module() -> Any:
    # `axllm.agent` the attribute is the factory function; the module holds the ranker.
    return importlib.import_module("axllm.agent")


class AxllmBuiltinBackend:
    """axllm's own catalog ranker (the Python port's; it differs from Ax TS in tokenising
    and ordering; tests/golden/ax-24.0.21/README.md). A fallback and a comparison
    point, reached through axllm private helpers."""

    name = "axllm-builtin"
    profile: str | None = None

    def discover(self, catalog: Catalog, searches: Sequence[str]) -> list[Skill]:
        found = _axllm_agent_module()._agent_catalog_skill_search(
            [s.to_ax() for s in catalog.skills], list(searches)
        )
        ids = [r.get("id") for r in found]
        return [s for i in ids if (s := catalog.skill(str(i))) is not None]

    def recall(
        self, catalog: Catalog, searches: Sequence[str], loaded_ids: Sequence[str]
    ) -> list[Memory]:
        found = _axllm_agent_module()._agent_catalog_memory_search(
            [m.to_ax() for m in catalog.memories],
            list(searches),
            [{"id": i} for i in loaded_ids],
        )
        ids = [r.get("id") for r in found]
        return [m for i in ids if (m := catalog.memory(str(i))) is not None]


def default_backend() -> RetrievalBackend:
    """The app's Ax-exact search (the one the preview and the bench use)."""
    return AxExactBackend()


def backend_named(name: str | None) -> RetrievalBackend:
    if name in (None, "", "default", AxExactBackend.name):
        return AxExactBackend()
    if name == AxllmBuiltinBackend.name:
        return AxllmBuiltinBackend()
    raise InputError(f"unknown search backend '{name}' (known: {', '.join(SEARCH_BACKENDS)})")


def backend_for_session(session: Session) -> RetrievalBackend:
    """The search a session was recorded with (its backend and Ax profile), to search its
    recorded catalog again. Raises InputError for a backend or profile this app lacks."""
    search = session.search or SearchInfo(backend=AxExactBackend.name)
    name, profile = search.backend, search.profile
    if name == AxExactBackend.name and profile is not None:
        version = profile.removeprefix("ax-")
        try:
            return AxExactBackend(version)
        except (InputError, OSError, KeyError, ValueError):
            raise InputError(
                f"session {session.id}: its searches were made with the Ax profile "
                f"'{profile}', which this axmem does not have"
            ) from None
    return backend_named(name)


def skill_result(skill: Skill) -> SearchResult:
    # What Ax hands to Loaded Skills and onLoadedSkills: id, name, content (untrimmed).
    return SearchResult(id=skill.id, name=skill.name, content=skill.content)


def memory_result(memory: Memory) -> SearchResult:
    return SearchResult(id=memory.id, content=memory.content)


@dataclass(frozen=True, slots=True)
class CallPlace:
    """Where a search or callback happened: the forward, and the model call (stage, turn,
    index) whose code made it (None before the forward's first call)."""

    forward: int
    stage: str | None = None
    turn: int | None = None
    call_index: int | None = None


Locator = Callable[[], CallPlace]


class RecordingSearch:
    """Host search callbacks for a live run: the backend answers, each call is recorded
    with the model call (stage, turn) whose code made it."""

    def __init__(self, backend: RetrievalBackend, catalog: Catalog, locate: Locator) -> None:
        self.backend = backend
        self.catalog = catalog
        self.locate = locate
        self.calls: list[SearchCall] = []

    def _record(
        self,
        kind: str,
        searches: Sequence[str],
        results: list[SearchResult],
        loaded: list[str] | None = None,
    ) -> list[dict[str, Any]]:
        place = self.locate()
        self.calls.append(
            SearchCall(
                kind=kind,
                forward=place.forward,
                stage=place.stage,
                turn=place.turn,
                call_index=place.call_index,
                searches=tuple(searches),
                already_loaded=None if loaded is None else tuple(loaded),
                results=tuple(results),
            )
        )
        return [r.to_json() for r in results]

    def on_skills_search(self, searches: Sequence[Any]) -> list[dict[str, Any]]:
        queries = [str(s) for s in searches or []]
        results = [skill_result(s) for s in self.backend.discover(self.catalog, queries)]
        return self._record("discover", queries, results)

    def on_memories_search(
        self, searches: Sequence[Any], already_loaded: Sequence[Any]
    ) -> list[dict[str, Any]]:
        queries = [str(s) for s in searches or []]
        # axllm hands the loaded memories over as its own objects
        loaded = [
            str(m.get("id")) for m in already_loaded or [] if isinstance(m, Mapping) and m.get("id")
        ]
        results = [memory_result(m) for m in self.backend.recall(self.catalog, queries, loaded)]
        return self._record("recall", queries, results, loaded)


class StubSearch:
    """Host search callbacks for a replay: the recorded results, in order."""

    def __init__(self, cursor: SearchCursor) -> None:
        self.cursor = cursor

    def on_skills_search(self, searches: Sequence[Any]) -> list[dict[str, Any]]:
        return self.cursor.take("discover", [str(s) for s in searches or []])

    def on_memories_search(
        self, searches: Sequence[Any], already_loaded: Sequence[Any]
    ) -> list[dict[str, Any]]:
        return self.cursor.take("recall", [str(s) for s in searches or []])
