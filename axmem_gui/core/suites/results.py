"""Stored run results (JSON) and the comparison of two runs (what regressed)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from axmem_gui.core import jsontext
from axmem_gui.core.errors import InputError
from axmem_gui.core.suites.metrics import CaseResult, SuiteRunResult
from axmem_gui.core.suites.model import CASE_KINDS, CaseKind


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
    return run_result_from_json_value(jsontext.loads(text, source), source)


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
