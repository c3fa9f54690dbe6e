"""Retrieval suites: expectations about what Ax's built-in search returns, and their metrics.

A suite is a list of cases; each case is one `discover({ skills })` or `recall([...])` call
(its `searches` are the call's search strings) plus the ids that must and must not come back.
Running a suite uses the Ax-exact search in `axmem_gui.core.ax`, so a passing suite means the
real agent would get those entries for those strings. Pure: no file IO, no clock in results
that matter (durations are informational only).
"""

from __future__ import annotations

import re
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, cast

from axmem_gui.core import jsontext
from axmem_gui.core.ax.jstext import js_trim
from axmem_gui.core.ax.profile import DEFAULT_AX_VERSION, load_profile
from axmem_gui.core.ax.search import (
    DISCOVER,
    RECALL,
    MemorySearch,
    PolicyError,
    SkillSearch,
    normalize_search_input,
)
from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import InputError
from axmem_gui.core.jsontext import type_name
from axmem_gui.core.jsout import json_dumps

CaseKind = Literal["discover", "recall"]
CASE_KINDS: tuple[CaseKind, ...] = ("discover", "recall")

#: Results per search string of one call (Ax: discover keeps the top 2, recall the top 3).
PER_STRING_CAP: Mapping[CaseKind, int] = {"discover": 2, "recall": 3}

_CASE_KEYS = frozenset(
    {"name", "kind", "searches", "loaded", "mustInclude", "mustExclude", "k", "note"}
)
_SUITE_KEYS = frozenset({"name", "description", "cases"})


@dataclass(frozen=True)
class SuiteCase:
    name: str
    kind: CaseKind
    searches: tuple[str, ...]
    must_include: tuple[str, ...] = ()
    must_exclude: tuple[str, ...] = ()
    loaded: tuple[str, ...] = ()
    k: int | None = None
    note: str = ""

    def unique_searches(self) -> tuple[str, ...]:
        """The strings Ax actually searches: trimmed, exact duplicates dropped, order kept."""
        return tuple(dict.fromkeys(s.strip() for s in self.searches))

    def cap(self) -> int:
        """Most results the call can return: per-string cap times distinct strings."""
        return PER_STRING_CAP[self.kind] * len(self.unique_searches())

    def effective_k(self) -> int:
        return self.k if self.k is not None else self.cap()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind,
            "searches": list(self.searches),
        }
        if self.kind == "recall":
            out["loaded"] = list(self.loaded)
        out["mustInclude"] = list(self.must_include)
        out["mustExclude"] = list(self.must_exclude)
        if self.k is not None:
            out["k"] = self.k
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class Suite:
    name: str
    cases: tuple[SuiteCase, ...]
    description: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        if self.description:
            out["description"] = self.description
        out["cases"] = [c.to_json() for c in self.cases]
        return out


# --------------------------------------------------------------------------- parsing




def _id_list(obj: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    raw = obj.get(key)
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise InputError(f"{where}: field '{key}' must be a list of ids, got {type_name(raw)}")
    for i, item in enumerate(raw):
        if not isinstance(item, str) or not item.strip():
            raise InputError(f"{where}: {key}[{i}] must be a non-empty string")
    return tuple(cast(list[str], raw))


def _searches(obj: Mapping[str, Any], kind: str, where: str) -> tuple[str, ...]:
    raw = obj.get("searches")
    if isinstance(raw, str):
        raw = [raw]  # one string is one search, as in `discover({ skills: 'x' })`
    if not isinstance(raw, list) or not raw:
        raise InputError(f"{where}: field 'searches' must be a non-empty list of strings")
    # Ax refuses the whole call for one blank or non-string entry ([POLICY] error, nothing
    # searched): such a case could never pass, so it is refused with Ax's own words.
    primitive = DISCOVER if kind == "discover" else RECALL
    for i, item in enumerate(raw):
        try:
            normalize_search_input([item], primitive)
        except PolicyError as exc:
            raise InputError(f"{where}: searches[{i}] is refused by Ax: {exc}") from None
    return tuple(cast(list[str], raw))


def case_from_json_value(obj: Any, where: str) -> SuiteCase:
    """Validate one case object; InputError messages name the case and the field."""
    if not isinstance(obj, dict):
        raise InputError(f"{where}: a case must be an object, got {type_name(obj)}")
    unknown = sorted(set(obj) - _CASE_KEYS)
    if unknown:
        # A misspelt 'mustInclude' would make the case pass vacuously: refuse it.
        raise InputError(
            f"{where}: unknown field '{unknown[0]}' (allowed: {', '.join(sorted(_CASE_KEYS))})"
        )
    name = obj.get("name")
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"{where}: field 'name' must be a non-empty string")
    where = f"{where} ({name})"
    kind = obj.get("kind")
    if kind not in CASE_KINDS:
        raise InputError(f"{where}: field 'kind' must be 'discover' or 'recall', got {kind!r}")
    searches = _searches(obj, str(kind), where)
    must_include = _id_list(obj, "mustInclude", where)
    must_exclude = _id_list(obj, "mustExclude", where)
    loaded = _id_list(obj, "loaded", where)
    if loaded and kind == "discover":
        raise InputError(
            f"{where}: field 'loaded' only applies to recall cases "
            "(discover does not skip loaded skills)"
        )
    if not must_include and not must_exclude:
        raise InputError(f"{where}: a case needs at least one id in mustInclude or mustExclude")
    both = sorted(set(must_include) & set(must_exclude))
    if both:
        raise InputError(f"{where}: id '{both[0]}' is in both mustInclude and mustExclude")
    k = obj.get("k")
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        raise InputError(f"{where}: field 'k' must be a positive integer, got {k!r}")
    note = obj.get("note", "")
    if not isinstance(note, str):
        raise InputError(f"{where}: field 'note' must be a string")
    return SuiteCase(
        name=name,
        kind=cast(CaseKind, kind),
        searches=searches,
        must_include=must_include,
        must_exclude=must_exclude,
        loaded=loaded,
        k=k,
        note=note,
    )


def suite_from_json_value(value: Any, source: str = "suite") -> Suite:
    if not isinstance(value, dict):
        raise InputError(f"{source}: a suite must be an object, got {type_name(value)}")
    unknown = sorted(set(value) - _SUITE_KEYS)
    if unknown:
        raise InputError(
            f"{source}: unknown field '{unknown[0]}' (allowed: cases, description, name)"
        )
    name = value.get("name")
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"{source}: field 'name' must be a non-empty string")
    description = value.get("description", "")
    if not isinstance(description, str):
        raise InputError(f"{source}: suite '{name}': field 'description' must be a string")
    raw_cases = value.get("cases")
    if not isinstance(raw_cases, list):
        raise InputError(f"{source}: suite '{name}': field 'cases' must be a list")
    cases = [
        case_from_json_value(c, f"{source}: suite '{name}': cases[{i}]")
        for i, c in enumerate(raw_cases)
    ]
    seen: set[str] = set()
    for i, case in enumerate(cases):
        if case.name in seen:
            raise InputError(
                f"{source}: suite '{name}': cases[{i}]: duplicate case name '{case.name}'"
            )
        seen.add(case.name)
    return Suite(name=name, cases=tuple(cases), description=description)


def suites_from_json_value(value: Any, source: str = "suites") -> list[Suite]:
    """Accept one suite object, a list of suites, or `{"suites": [...]}`."""
    if isinstance(value, dict) and "suites" in value and "cases" not in value:
        value = value["suites"]
        if not isinstance(value, list):
            raise InputError(f"{source}: 'suites' must be a list")
    if isinstance(value, dict):
        return [suite_from_json_value(value, source)]
    if not isinstance(value, list):
        raise InputError(
            f"{source}: expected a suite object or a list of suites, got {type_name(value)}"
        )
    suites = [suite_from_json_value(v, f"{source}: [{i}]") for i, v in enumerate(value)]
    names = [s.name for s in suites]
    for i, n in enumerate(names):
        if n in names[:i]:
            raise InputError(f"{source}: [{i}]: duplicate suite name '{n}'")
    return suites


def _loads(text: str, source: str) -> Any:
    return jsontext.loads(text, source)


def suites_from_json_text(text: str, source: str = "suites") -> list[Suite]:
    return suites_from_json_value(_loads(text, source), source)


def suites_to_json_text(suites: Sequence[Suite]) -> str:
    """One suite is written as an object, several as a list (both read back)."""
    value: Any = suites[0].to_json() if len(suites) == 1 else [s.to_json() for s in suites]
    return json_dumps(value, indent=2) + "\n"


# --------------------------------------------------------------------------- running

#: One search call: (kind, catalog, searches, loaded ids) -> returned ids in Ax order.
SearchCall = Callable[[CaseKind, Catalog, Sequence[str], Sequence[str]], list[str]]


@dataclass(frozen=True)
class CaseResult:
    name: str
    kind: CaseKind
    passed: bool
    returned: tuple[str, ...]
    k: int
    ranks: Mapping[str, int | None]
    recall_at_k: float | None
    reciprocal_rank: float | None
    reasons: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "passed": self.passed,
            "returned": list(self.returned),
            "k": self.k,
            "ranks": dict(self.ranks),
            "recallAtK": self.recall_at_k,
            "reciprocalRank": self.reciprocal_rank,
            "reasons": list(self.reasons),
            "warnings": list(self.warnings),
            "seconds": self.seconds,
        }


@dataclass(frozen=True)
class Summary:
    total: int
    passed: int
    failed: int
    mean_recall_at_k: float | None
    mrr: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "passed": self.passed,
            "failed": self.failed,
            "meanRecallAtK": self.mean_recall_at_k,
            "mrr": self.mrr,
        }


@dataclass(frozen=True)
class SuiteRunResult:
    suite: str
    cases: tuple[CaseResult, ...]
    engine: str = ""

    @property
    def summary(self) -> Summary:
        return summarize(self.cases)

    @property
    def by_kind(self) -> dict[str, Summary]:
        """Summaries per case kind, for the kinds the run has."""
        return {
            kind: summarize([c for c in self.cases if c.kind == kind])
            for kind in CASE_KINDS
            if any(c.kind == kind for c in self.cases)
        }

    @property
    def all_passed(self) -> bool:
        return all(c.passed for c in self.cases)

    def case(self, name: str) -> CaseResult | None:
        return next((c for c in self.cases if c.name == name), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "suite": self.suite,
            "engine": self.engine,
            "summary": self.summary.to_json(),
            "byKind": {k: s.to_json() for k, s in self.by_kind.items()},
            "cases": [c.to_json() for c in self.cases],
        }


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def summarize(cases: Sequence[CaseResult]) -> Summary:
    """Totals plus mean recall@k and MRR over the cases that have must-include ids
    (a must-exclude-only case has no relevant ids, so no recall or rank to average)."""
    passed = sum(1 for c in cases if c.passed)
    recalls = [c.recall_at_k for c in cases if c.recall_at_k is not None]
    rrs = [c.reciprocal_rank for c in cases if c.reciprocal_rank is not None]
    return Summary(len(cases), passed, len(cases) - passed, _mean(recalls), _mean(rrs))


def rank_of(returned: Sequence[str], wanted: str) -> int | None:
    """1-based position of `wanted` in the returned ids, None when absent."""
    for i, got in enumerate(returned, start=1):
        if got == wanted:
            return i
    return None


def recall_at_k(returned: Sequence[str], relevant: Sequence[str], k: int) -> float | None:
    """Share of the relevant ids found in the first k results; None without relevant ids."""
    wanted = list(dict.fromkeys(relevant))
    if not wanted:
        return None
    top = set(returned[:k])
    return sum(1 for r in wanted if r in top) / len(wanted)


def reciprocal_rank(returned: Sequence[str], relevant: Sequence[str]) -> float | None:
    """1 / rank of the first relevant id returned (0.0 if none); None without relevant ids."""
    if not relevant:
        return None
    wanted = set(relevant)
    for i, got in enumerate(returned, start=1):
        if got in wanted:
            return 1.0 / i
    return 0.0


def evaluate_case(
    case: SuiteCase, returned: Sequence[str], known_ids: frozenset[str] | None = None
) -> CaseResult:
    """Judge one case against the ids its call returned (in order).

    `known_ids` (the catalog's ids for the case's domain) turns a must-include id that does
    not exist into a reason of its own, so a typo reads as a typo and not as a ranking miss."""
    k = case.effective_k()
    ranks = {i: rank_of(returned, i) for i in case.must_include}
    reasons: list[str] = []
    warnings: list[str] = []
    domain = "skill" if case.kind == "discover" else "memory"
    for wanted, rank in ranks.items():
        if known_ids is not None and wanted not in known_ids:
            reasons.append(f"mustInclude '{wanted}' is not a {domain} id in the catalog")
        elif rank is None:
            reasons.append(f"missing '{wanted}': not returned")
        elif rank > k:
            reasons.append(f"'{wanted}' at rank {rank}, expected within the top {k}")
    for unwanted in case.must_exclude:
        rank = rank_of(returned, unwanted)
        if rank is not None:
            reasons.append(f"unexpected '{unwanted}' returned at rank {rank}")
        elif known_ids is not None and unwanted not in known_ids:
            warnings.append(f"mustExclude '{unwanted}' is not a {domain} id in the catalog")
    if case.kind == "recall" and known_ids is not None:
        warnings.extend(
            f"loaded '{i}' is not a memory id in the catalog"
            for i in case.loaded
            if i not in known_ids
        )
    return CaseResult(
        name=case.name,
        kind=case.kind,
        passed=not reasons,
        returned=tuple(returned),
        k=k,
        ranks=ranks,
        recall_at_k=recall_at_k(returned, case.must_include, k),
        reciprocal_rank=reciprocal_rank(returned, case.must_include),
        reasons=tuple(reasons),
        warnings=tuple(warnings),
    )


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
        result = evaluate_case(case, returned, known)
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


# --------------------------------------------------------------------------- run results


def _opt_float(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"{where}: must be a number or null")
    return float(value)


def run_result_from_json_value(value: Any, source: str = "run result") -> SuiteRunResult:
    """Read back a saved run (for regression comparison). Only what comparison needs is
    required: suite name and per case name + passed."""
    if not isinstance(value, dict) or not isinstance(value.get("cases"), list):
        raise InputError(f"{source}: expected an object with a 'cases' list")
    suite = value.get("suite", "")
    if not isinstance(suite, str):
        raise InputError(f"{source}: field 'suite' must be a string")
    cases: list[CaseResult] = []
    for i, raw in enumerate(value["cases"]):
        where = f"{source}: cases[{i}]"
        if not isinstance(raw, dict):
            raise InputError(f"{where}: must be an object")
        name, passed = raw.get("name"), raw.get("passed")
        if not isinstance(name, str) or not isinstance(passed, bool):
            raise InputError(f"{where}: needs a string 'name' and a boolean 'passed'")
        kind = raw.get("kind", "discover")
        if kind not in CASE_KINDS:
            raise InputError(f"{where}: field 'kind' must be 'discover' or 'recall'")
        returned = raw.get("returned", [])
        reasons = raw.get("reasons", [])
        ranks = raw.get("ranks", {})
        k = raw.get("k", 0)
        if (
            not isinstance(returned, list)
            or not all(isinstance(x, str) for x in returned)
            or not isinstance(reasons, list)
            or not all(isinstance(x, str) for x in reasons)
            or not isinstance(ranks, dict)
            or isinstance(k, bool)
            or not isinstance(k, int)
        ):
            raise InputError(f"{where}: malformed 'returned', 'reasons', 'ranks' or 'k'")
        cases.append(
            CaseResult(
                name=name,
                kind=cast(CaseKind, kind),
                passed=passed,
                returned=tuple(returned),
                k=k,
                ranks={str(key): (r if isinstance(r, int) else None) for key, r in ranks.items()},
                recall_at_k=_opt_float(raw.get("recallAtK"), f"{where}: recallAtK"),
                reciprocal_rank=_opt_float(raw.get("reciprocalRank"), f"{where}: reciprocalRank"),
                reasons=tuple(reasons),
            )
        )
    engine = value.get("engine", "")
    return SuiteRunResult(suite=suite, cases=tuple(cases), engine=str(engine))


def run_result_from_json_text(text: str, source: str = "run result") -> SuiteRunResult:
    return run_result_from_json_value(_loads(text, source), source)


@dataclass(frozen=True)
class RunComparison:
    """How a run differs from a previous one, by case name."""

    regressions: tuple[str, ...]  # passed before, fails now
    fixed: tuple[str, ...]  # failed before, passes now
    still_failing: tuple[str, ...]
    added: tuple[str, ...]  # not in the previous run
    removed: tuple[str, ...]  # in the previous run only
    rank_drops: Mapping[str, tuple[str, ...]]  # case -> ids now ranked lower than before

    @property
    def has_regressions(self) -> bool:
        return bool(self.regressions)

    def to_json(self) -> dict[str, Any]:
        return {
            "regressions": list(self.regressions),
            "fixed": list(self.fixed),
            "stillFailing": list(self.still_failing),
            "added": list(self.added),
            "removed": list(self.removed),
            "rankDrops": {k: list(v) for k, v in self.rank_drops.items()},
        }


def _dropped(before: CaseResult, now: CaseResult) -> tuple[str, ...]:
    out = []
    for wanted, old in before.ranks.items():
        new = now.ranks.get(wanted)
        if old is not None and (new is None or new > old):
            out.append(wanted)
    return tuple(out)


def compare_runs(previous: SuiteRunResult, current: SuiteRunResult) -> RunComparison:
    prev = {c.name: c for c in previous.cases}
    regressions, fixed, still, added = [], [], [], []
    drops: dict[str, tuple[str, ...]] = {}
    for case in current.cases:
        before = prev.get(case.name)
        if before is None:
            added.append(case.name)
            continue
        if before.passed and not case.passed:
            regressions.append(case.name)
        elif not before.passed and case.passed:
            fixed.append(case.name)
        elif not case.passed:
            still.append(case.name)
        dropped = _dropped(before, case)
        if dropped:
            drops[case.name] = dropped
    now_names = {c.name for c in current.cases}
    removed = [c.name for c in previous.cases if c.name not in now_names]
    return RunComparison(
        tuple(regressions), tuple(fixed), tuple(still), tuple(added), tuple(removed), drops
    )


# --------------------------------------------------------------------------- JUnit XML

# XML 1.0 cannot carry most C0 controls, lone surrogates or U+FFFE/U+FFFF even escaped.
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(text: str) -> str:
    return _XML_INVALID.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _case_details(result: CaseResult) -> str:
    lines = [*result.reasons]
    lines.append(f"returned: {', '.join(result.returned) or '(nothing)'}")
    if result.ranks:
        ranks = ", ".join(f"{i}={'-' if r is None else r}" for i, r in result.ranks.items())
        lines.append(f"ranks (k={result.k}): {ranks}")
    lines.extend(f"warning: {w}" for w in result.warnings)
    return "\n".join(lines)


def _fmt_metric(value: float | None) -> str:
    return "" if value is None else f"{value:.6f}"


def _suite_element(result: SuiteRunResult) -> ET.Element:
    summary = result.summary
    suite_el = ET.Element(
        "testsuite",
        {
            "name": _xml_text(result.suite),
            "tests": str(summary.total),
            "failures": str(summary.failed),
            "errors": "0",
            "skipped": "0",
            "time": f"{sum(c.seconds for c in result.cases):.6f}",
        },
    )
    props = ET.SubElement(suite_el, "properties")
    for key, value in (
        ("engine", result.engine),
        ("meanRecallAtK", _fmt_metric(summary.mean_recall_at_k)),
        ("mrr", _fmt_metric(summary.mrr)),
    ):
        ET.SubElement(props, "property", {"name": key, "value": _xml_text(value)})
    for case in result.cases:
        case_el = ET.SubElement(
            suite_el,
            "testcase",
            {
                "name": _xml_text(case.name),
                "classname": _xml_text(f"{result.suite}.{case.kind}"),
                "time": f"{case.seconds:.6f}",
            },
        )
        if case.passed:
            ET.SubElement(case_el, "system-out").text = _xml_text(_case_details(case))
        else:
            failure = ET.SubElement(
                case_el,
                "failure",
                {"message": _xml_text(case.reasons[0]), "type": "RetrievalMismatch"},
            )
            failure.text = _xml_text(_case_details(case))
    return suite_el


def to_junit_xml(results: Sequence[SuiteRunResult]) -> str:
    """JUnit XML: a <testsuites> root with one <testsuite> per run; ElementTree escapes."""
    root = ET.Element(
        "testsuites",
        {
            "name": "axmem retrieval suites",
            "tests": str(sum(len(r.cases) for r in results)),
            "failures": str(sum(r.summary.failed for r in results)),
            "errors": "0",
        },
    )
    root.extend(_suite_element(r) for r in results)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
