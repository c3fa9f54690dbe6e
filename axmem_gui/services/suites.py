"""Retrieval suites as a use case: where suites and catalogs come from, running them,
comparing with the previous run, and writing JSON / JUnit reports.

Suites live in a workspace (`ws.suites`, one JSON document per suite) or in a suite JSON
file; the catalog comes from a workspace or a catalog JSON file. Reports are written
atomically, so a failed write never leaves half a file behind.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from axmem_gui.core import jsontext
from axmem_gui.core.catalog import Catalog, catalog_from_json_text
from axmem_gui.core.errors import InputError
from axmem_gui.core.suites import (
    RunComparison,
    SearchCall,
    Suite,
    SuiteRunResult,
    compare_runs,
    run_result_from_json_value,
    run_suite,
    suite_from_json_value,
    suites_from_json_text,
    suites_to_json_text,
    to_junit_xml,
)
from axmem_gui.services.files import read_utf8_file, write_file_atomic

if TYPE_CHECKING:
    from axmem_gui.store.workspace import Workspace


@dataclass(frozen=True)
class SuiteOutcome:
    """One suite's run plus how it compares with the previous run (None: no previous run)."""

    result: SuiteRunResult
    comparison: RunComparison | None = None

    def to_json(self) -> dict[str, Any]:
        out = self.result.to_json()
        out["comparison"] = None if self.comparison is None else self.comparison.to_json()
        return out


# --------------------------------------------------------------------------- reading


def read_suite_file(path: Path) -> list[Suite]:
    """Suites from a JSON file (one suite, a list, or {"suites": [...]})."""
    return suites_from_json_text(read_utf8_file(path, "suite file"), str(path))


def read_run_results_file(path: Path) -> dict[str, SuiteRunResult]:
    """Previous runs saved with `axmem suite run --json` (or one bare run result), by suite
    name, for regression comparison."""
    text = read_utf8_file(path, "run result file")
    value = jsontext.loads(text, str(path))
    if isinstance(value, dict) and "suites" in value and "cases" not in value:
        runs = value["suites"]
        if not isinstance(runs, list):
            raise InputError(f"{path}: 'suites' must be a list of run results")
        results = [
            run_result_from_json_value(v, f"{path}: suites[{i}]") for i, v in enumerate(runs)
        ]
    else:
        results = [run_result_from_json_value(value, str(path))]
    return {r.suite: r for r in results}


def workspace_suites(ws: Workspace) -> list[Suite]:
    """Every suite stored in the workspace, in name order."""
    suites = []
    for name in ws.suites.list():
        data = ws.suites.get(name)
        if data is None:
            continue  # deleted between list() and get()
        suites.append(suite_from_json_value(data, f"workspace suite '{name}'"))
    return suites


def select_suites(suites: Sequence[Suite], name: str | None, source: str) -> list[Suite]:
    if not suites:
        raise InputError(f"{source}: no suites found")
    if name is None:
        return list(suites)
    chosen = [s for s in suites if s.name == name]
    if not chosen:
        names = ", ".join(s.name for s in suites)
        raise InputError(f"{source}: no suite named '{name}' (available: {names})")
    return chosen


def save_suite(ws: Workspace, suite: Suite) -> int:
    """Store (or replace) a suite in the workspace; returns its new revision."""
    return ws.suites.save(suite.name, suite.to_json())


def previous_run(ws: Workspace, name: str) -> SuiteRunResult | None:
    data = ws.suites.last_run(name)
    if data is None:
        return None
    return run_result_from_json_value(data, f"workspace suite '{name}': last run")


# --------------------------------------------------------------------------- sample data


def _sample_text(file_name: str) -> str:
    return (resources.files("axmem_gui") / "sample" / file_name).read_text(encoding="utf-8")


def sample_catalog() -> Catalog:
    return catalog_from_json_text(_sample_text("catalog.json"), "sample/catalog.json")


def sample_suites() -> list[Suite]:
    return suites_from_json_text(_sample_text("suites.json"), "sample/suites.json")


# --------------------------------------------------------------------------- running


def run_suites(
    suites: Sequence[Suite],
    catalog: Catalog,
    previous: Mapping[str, SuiteRunResult] | None = None,
    *,
    search: SearchCall | None = None,
    cancelled: Callable[[], bool] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> list[SuiteOutcome]:
    """Run each suite over the catalog and compare with its previous run, if any.

    `progress(suite_name, done, total)` after every case; `cancelled()` stops early (the
    outcome of a suite cut short lists only the cases that ran)."""
    outcomes = []
    for suite in suites:
        if cancelled is not None and cancelled():
            break

        def report(done: int, total: int, name: str = suite.name) -> None:
            if progress is not None:
                progress(name, done, total)

        result = run_suite(suite, catalog, search, cancelled=cancelled, progress=report)
        before = (previous or {}).get(suite.name)
        comparison = None if before is None else compare_runs(before, result)
        outcomes.append(SuiteOutcome(result, comparison))
    return outcomes


def run_workspace_suites(
    ws: Workspace,
    name: str | None = None,
    *,
    catalog: Catalog | None = None,
    record: bool = True,
) -> list[SuiteOutcome]:
    """Run the workspace's suites (or the one named) over its catalog (or the one given),
    compare each with its last recorded run, and record the new runs."""
    suites = select_suites(workspace_suites(ws), name, "workspace")
    previous = {}
    for suite in suites:
        before = previous_run(ws, suite.name)
        if before is not None:
            previous[suite.name] = before
    outcomes = run_suites(suites, catalog if catalog is not None else ws.catalog(), previous)
    if record:
        for outcome in outcomes:
            summary = outcome.result.summary
            ws.suites.record_run(
                outcome.result.suite, summary.passed, summary.failed, outcome.result.to_json()
            )
    return outcomes


# --------------------------------------------------------------------------- reports


def write_text_atomic(path: Path, text: str) -> None:
    write_file_atomic(path, text, "report")


def write_junit(path: Path, outcomes: Sequence[SuiteOutcome]) -> None:
    write_text_atomic(path, to_junit_xml([o.result for o in outcomes]))


def write_suite_file(path: Path, suites: Sequence[Suite]) -> None:
    write_text_atomic(path, suites_to_json_text(suites))


def outcomes_to_json(outcomes: Sequence[SuiteOutcome]) -> dict[str, Any]:
    return {
        "passed": all(o.result.all_passed for o in outcomes),
        "regressions": sum(len(o.comparison.regressions) for o in outcomes if o.comparison),
        "suites": [o.to_json() for o in outcomes],
    }
