"""The suites aggregate (retrieval suites and their recorded runs) and suites as a use
case: where suites and catalogs come from, running them, comparing with the previous run,
and writing JSON / JUnit reports.

Suites live in a workspace (`SuiteService`, one JSON document per suite, and the runs
recorded for each) or in a suite JSON file; the catalog comes from a workspace or a
catalog JSON file. Reports are written atomically, so a failed write never leaves half a
file behind.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from axmem_gui.core import jsontext
from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import ConflictError, InputError
from axmem_gui.core.suites import (
    RunComparison,
    SearchCall,
    Suite,
    SuiteCase,
    SuiteRunResult,
    case_from_json_value,
    compare_runs,
    run_result_from_json_value,
    run_suite,
    suite_from_json_value,
    suites_from_json_text,
    suites_to_json_text,
    to_junit_xml,
)
from axmem_gui.services.aggregates import Change, Notices
from axmem_gui.services.files import read_utf8_file, write_file_atomic

if TYPE_CHECKING:
    from axmem_gui.store.workspace import Workspace


@dataclass(frozen=True, slots=True)
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


# --------------------------------------------------------------------------- sample data


def _sample_text(file_name: str) -> str:
    return (resources.files("axmem_gui") / "sample" / file_name).read_text(encoding="utf-8")


def sample_catalog() -> Catalog:
    from axmem_gui.core.formats import catalog_from_json_text  # (YAML and parsers: not at start)

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


# --------------------------------------------------------------------------- authoring
#
# Suites are edited as whole documents: every change is "this suite (by name) goes from
# the value the caller saw to this value" (None = absent), checked against the store and
# written in one transaction. The GUI's undo commands and the CLI use the same calls.


@dataclass(frozen=True, slots=True)
class SuiteChange:
    """`name` goes from `before` (what the caller saw; None = absent) to `after` (None =
    removed). With `expected_revision`, the stored revision must be that too."""

    name: str
    before: Suite | None
    after: Suite | None
    expected_revision: int | None = None


class SuiteConflictError(ConflictError):
    """A suite is not what the caller saw: changed by another window, program or run."""


@dataclass(frozen=True, slots=True)
class StoredSuite:
    """A suite as stored: the suite, or (suite None) why its JSON does not read."""

    name: str
    suite: Suite | None
    problem: str
    revision: int


def check_suite_name(name: str) -> str:
    clean = name.strip()
    if not clean:
        raise InputError("a suite needs a name")
    if len(clean) > 200:
        raise InputError(f"suite name is too long ({len(clean)} characters; at most 200)")
    return clean


def _normalized(data: Any) -> Any:
    """A stored suite as `to_json` writes it (the sample and hand-written files may omit
    empty lists), so comparing with what the caller saw compares meaning, not spelling."""
    try:
        return suite_from_json_value(data).to_json()
    except InputError:
        return data


class SuiteService:
    """The suites of one open workspace and their recorded runs."""

    def __init__(self, store: Workspace, notices: Notices | None = None) -> None:
        self._store = store
        self._notices = notices if notices is not None else Notices()

    # reads --------------------------------------------------------------------------
    def names(self) -> list[str]:
        return self._store.suites.list()

    def entries(self) -> list[StoredSuite]:
        """Every stored suite in name order, readable or not (the page lists both)."""
        out = []
        for name in self.names():
            doc = self._store.suites.document(name)
            if doc is None:
                continue  # deleted between list() and document()
            try:
                suite: Suite | None = suite_from_json_value(doc.data, f"workspace suite '{name}'")
                problem = ""
            except InputError as exc:
                suite, problem = None, str(exc)
            out.append(StoredSuite(name, suite, problem, doc.revision))
        return out

    def all(self) -> list[Suite]:
        """Every suite in name order (InputError names the first that does not read)."""
        out = []
        for entry in self.entries():
            if entry.suite is None:
                raise InputError(entry.problem)
            out.append(entry.suite)
        return out

    def read(self, name: str) -> tuple[Suite, int] | None:
        """The stored suite and its revision (None when there is no suite of that name)."""
        doc = self._store.suites.document(name)
        if doc is None:
            return None
        return suite_from_json_value(doc.data, f"workspace suite '{name}'"), doc.revision

    def require(self, name: str) -> tuple[Suite, int]:
        found = self.read(name)
        if found is None:
            names = ", ".join(self.names()) or "none"
            raise InputError(f"no suite named '{name}' in the workspace (suites: {names})")
        return found

    def exists(self, name: str) -> bool:
        return self._store.suites.document(name) is not None

    def unique_name(self, base: str) -> str:
        names = set(self.names())
        if base not in names:
            return base
        n = 2
        while f"{base} {n}" in names:
            n += 1
        return f"{base} {n}"

    def previous_run(self, name: str) -> SuiteRunResult | None:
        """The suite's last recorded run (InputError when it does not read)."""
        data = self._store.suites.last_run(name)
        if data is None:
            return None
        return run_result_from_json_value(data, f"workspace suite '{name}': last run")

    # runs ---------------------------------------------------------------------------
    def record_runs(self, outcomes: Sequence[SuiteOutcome]) -> None:
        """Record each outcome's run (the baseline of the suite's next run), all or none.
        A read-only workspace keeps them nowhere (its runs live in the caller's memory)."""
        if self._store.read_only or not outcomes:
            return
        with self._store.transaction():
            for outcome in outcomes:
                summary = outcome.result.summary
                self._store.suites.record_run(
                    outcome.result.suite, summary.passed, summary.failed, outcome.result.to_json()
                )
        names = tuple(dict.fromkeys(o.result.suite for o in outcomes))
        self._notices.publish(Change("suites", names, False))

    def run(
        self, name: str | None = None, *, catalog: Catalog | None = None, record: bool = True
    ) -> list[SuiteOutcome]:
        """Run the suites (or the one named) over the workspace's catalog (or the one
        given), compare each with its last recorded run, and record the new runs."""
        suites = select_suites(self.all(), name, "workspace")
        previous = {}
        for suite in suites:
            before = self.previous_run(suite.name)
            if before is not None:
                previous[suite.name] = before
        outcomes = run_suites(
            suites, catalog if catalog is not None else self._store.catalog(), previous
        )
        if record:
            self.record_runs(outcomes)
        return outcomes

    # writes -------------------------------------------------------------------------
    def apply(self, changes: Sequence[SuiteChange]) -> dict[str, int]:
        """Write every change in one transaction after checking each suite still holds
        what the caller saw; returns the new revision of each suite written (0 = removed).
        SuiteConflictError (nothing written) when one does not."""
        repo = self._store.suites
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
                            f"suite '{change.name}': the new value is named '{change.after.name}'"
                        )
                    # Validate the way every reader will (a case without expectations...).
                    suite_from_json_value(change.after.to_json(), f"suite '{change.name}'")
                    out[change.name] = repo.save(change.name, change.after.to_json())
        structural = any((c.before is None) != (c.after is None) for c in changes)
        self._notices.publish(Change("suites", tuple(out), structural))
        return out

    def _check(self, change: SuiteChange) -> None:
        doc = self._store.suites.document(change.name)
        actual = None if doc is None else doc.revision
        if change.expected_revision is not None and (actual or 0) != change.expected_revision:
            raise SuiteConflictError(
                "suite",
                change.name,
                change.expected_revision,
                actual,
                f"suite '{change.name}' is at revision {actual or 0}, not "
                f"{change.expected_revision}: it was changed elsewhere; read it again and retry",
            )
        stored = None if doc is None else _normalized(doc.data)
        seen = None if change.before is None else change.before.to_json()
        if stored != seen:
            state = (
                "was removed"
                if stored is None
                else ("already exists" if seen is None else "was changed elsewhere")
            )
            raise SuiteConflictError(
                "suite",
                change.name,
                change.expected_revision,
                actual,
                f"suite '{change.name}' {state}; nothing was changed",
            )

    def new_changes(self, suite: Suite) -> list[SuiteChange]:
        name = check_suite_name(suite.name)
        if self.exists(name):
            raise InputError(f"a suite named '{name}' already exists; choose another name")
        return [SuiteChange(name, None, replace(suite, name=name), expected_revision=0)]

    def edit_changes(
        self, old_name: str, suite: Suite, expected_revision: int | None = None
    ) -> list[SuiteChange]:
        """Replace suite `old_name` by `suite` (a new name renames it; its run history
        stays under the old name)."""
        before, _revision = self.require(old_name)
        name = check_suite_name(suite.name)
        suite = replace(suite, name=name)
        if name == old_name:
            return [SuiteChange(name, before, suite, expected_revision)]
        if self.exists(name):
            raise InputError(f"a suite named '{name}' already exists; choose another name")
        return [
            SuiteChange(old_name, before, None, expected_revision),
            SuiteChange(name, None, suite, 0),
        ]

    def remove_changes(self, name: str, expected_revision: int | None = None) -> list[SuiteChange]:
        before, _revision = self.require(name)
        return [SuiteChange(name, before, None, expected_revision)]

    def case_changes(
        self,
        suite_name: str,
        case: SuiteCase | None,
        replacing: str | None = None,
        expected_revision: int | None = None,
    ) -> list[SuiteChange]:
        """Add `case`, replace case `replacing` by it, or (case None) remove `replacing`."""
        before, _revision = self.require(suite_name)
        if case is None:
            if replacing is None:
                raise InputError("name the case to remove")
            after = without_case(before, replacing)
        else:
            after = with_case(before, case, replacing)
        return [SuiteChange(suite_name, before, after, expected_revision)]

    def import_changes(
        self, suites: Sequence[Suite], *, replace_existing: bool
    ) -> list[SuiteChange]:
        """All suites of a file, or none: existing names are refused unless replacing."""
        changes = []
        clashes = [s.name for s in suites if self.exists(s.name)]
        if clashes and not replace_existing:
            raise InputError(
                f"the workspace already has suite(s) {', '.join(clashes)}; nothing was "
                "imported (replace them, or rename them in the file)"
            )
        for suite in suites:
            found = self.read(suite.name) if suite.name in clashes else None
            changes.append(SuiteChange(suite.name, None if found is None else found[0], suite))
        return changes


def unique_case_name(suite: Suite, base: str) -> str:
    names = {c.name for c in suite.cases}
    if base not in names:
        return base
    n = 2
    while f"{base} {n}" in names:
        n += 1
    return f"{base} {n}"


def with_case(suite: Suite, case: SuiteCase, replacing: str | None = None) -> Suite:
    """`suite` with `case` added (or put in the place of case `replacing`)."""
    names = [c.name for c in suite.cases]
    if case.name in names and case.name != replacing:
        raise InputError(f"suite '{suite.name}' already has a case named '{case.name}'")
    case_from_json_value(case.to_json(), f"suite '{suite.name}': case '{case.name}'")
    if replacing is None:
        return replace(suite, cases=(*suite.cases, case))
    if replacing not in names:
        raise InputError(f"suite '{suite.name}' has no case named '{replacing}'")
    at = names.index(replacing)
    return replace(suite, cases=(*suite.cases[:at], case, *suite.cases[at + 1 :]))


def without_case(suite: Suite, case_name: str) -> Suite:
    if case_name not in {c.name for c in suite.cases}:
        raise InputError(f"suite '{suite.name}' has no case named '{case_name}'")
    return replace(suite, cases=tuple(c for c in suite.cases if c.name != case_name))


def case_from_json_text(text: str, source: str) -> SuiteCase:
    """One case object (the one JSON reader: limits, errors naming line and column)."""
    return case_from_json_value(jsontext.loads(text, source), source)


def suite_from_json_text(text: str, source: str) -> Suite:
    suites = suites_from_json_text(text, source)
    if len(suites) != 1:
        raise InputError(f"{source}: expected one suite, found {len(suites)}")
    return suites[0]
