"""Running suites against a catalog with the Ax-exact search."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from axmem_gui.core.ax.jstext import js_trim
from axmem_gui.core.ax.profile import DEFAULT_AX_VERSION, load_profile
from axmem_gui.core.ax.search import (
    MemorySearch,
    SkillSearch,
)
from axmem_gui.core.catalog import Catalog
from axmem_gui.core.suites.metrics import CaseResult, SuiteRunResult, evaluate_case
from axmem_gui.core.suites.model import CaseKind, Suite

SearchCall = Callable[[CaseKind, Catalog, Sequence[str], Sequence[str]], list[str]]


def run_suite(
    suite: Suite,
    catalog: Catalog,
    search: SearchCall | None = None,
    *,
    engine: str = "",
    ax_version: str | None = None,
    cancelled: Callable[[], bool] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> SuiteRunResult:
    """Run every case against the catalog. `search` defaults to the Ax-exact engine for
    `ax_version` (default: the newest profile the studio ships).

    `progress(done, total)` is called after each case; when `cancelled()` turns true the
    run stops and returns the cases done so far."""
    if search is None:
        search = ax_search_call(ax_version)
        engine = engine or ax_engine_label(ax_version)
    profile = load_profile(ax_version or DEFAULT_AX_VERSION)
    skill_ids = frozenset(s.id for s in catalog.skills)
    memory_ids = frozenset(m.id for m in catalog.memories)
    results: list[CaseResult] = []
    total = len(suite.cases)
    for done, case in enumerate(suite.cases, start=1):
        if cancelled is not None and cancelled():
            break
        started = time.perf_counter()
        returned = search(case.kind, catalog, case.searches, case.loaded)
        elapsed = time.perf_counter() - started
        known = skill_ids if case.kind == "discover" else memory_ids
        result = evaluate_case(case, returned, known, profile)
        results.append(replace(result, seconds=round(elapsed, 6)))
        if progress is not None:
            progress(done, total)
    return SuiteRunResult(suite=suite.name, cases=tuple(results), engine=engine)


def ax_search_call(ax_version: str | None = None, *, indexed: bool = True) -> SearchCall:
    """The Ax-exact discover/recall of `axmem_gui.core.ax` for one Ax version.

    The search objects are built once per catalog and reused across the cases of a run;
    `indexed=False` uses the plain (rebuild-per-query) ranker instead of the index."""
    profile = load_profile(ax_version or DEFAULT_AX_VERSION)
    built: dict[str, Any] = {}

    def searches_for(catalog: Catalog) -> tuple[SkillSearch, MemorySearch]:
        if built.get("catalog") is not catalog:
            built["catalog"] = catalog
            if indexed:
                built["skills"] = SkillSearch.indexed(catalog.skills, profile)
                built["memories"] = MemorySearch.indexed(catalog.memories, profile)
            else:
                built["skills"] = SkillSearch(catalog.skills, profile)
                built["memories"] = MemorySearch(catalog.memories, profile)
        return built["skills"], built["memories"]

    def call(
        kind: CaseKind, catalog: Catalog, searches: Sequence[str], loaded: Sequence[str]
    ) -> list[str]:
        skills, memories = searches_for(catalog)
        if kind == "discover":
            return list(skills.discover(list(searches))[0].result_ids)
        # inputs.memories holds trimmed ids, and that is what recall compares against.
        already = [js_trim(i) for i in loaded]
        return list(memories.recall(list(searches), already)[0].result_ids)

    return call


def ax_engine_label(ax_version: str | None = None) -> str:
    return f"ax {ax_version or DEFAULT_AX_VERSION}"
