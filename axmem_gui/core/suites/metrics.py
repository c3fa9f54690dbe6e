"""Judging a case by the ids its call returned: ranks, recall@k, reciprocal rank, reasons."""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from axmem_gui.core.ax.profile import AxProfile
from axmem_gui.core.catalog import searched_by, singular
from axmem_gui.core.suites.model import CASE_KINDS, CaseKind, SuiteCase


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
    case: SuiteCase,
    returned: Sequence[str],
    known_ids: Container[str] | None = None,
    profile: AxProfile | None = None,
) -> CaseResult:
    """Judge one case against the ids its call returned (in order).

    `known_ids` (the catalog's ids for the case's domain) turns a must-include id that does
    not exist into a reason of its own, so a typo reads as a typo and not as a ranking miss.
    `profile` (default: the newest Ax profile) gives the per-string cap of the default k."""
    k = case.effective_k(profile)
    ranks = {i: rank_of(returned, i) for i in case.must_include}
    reasons: list[str] = []
    warnings: list[str] = []
    domain = singular(searched_by(case.kind))
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
