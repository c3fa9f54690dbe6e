"""What a trigger eval found: one record per agent run, and the figures built from them.

Every figure is computed from the run records, and every run record from its recorded
session (`run_from_session`), so a report can always be checked against the sessions it
names. A run that failed or was cancelled is kept with its reason but not counted: rates
are over completed runs only.

Definitions (per kind, skills or memories):
- a run *loads* an entry when a `discover` (skills) or `recall` (memories) call of that run
  returned it;
- a run is a *hit* when it loaded every entry the case wants and none it must avoid;
- trigger rate of an entry = runs that loaded it / runs whose case wants it;
- false trigger = a run that loaded an entry its case must avoid;
- precision = wanted loads / all loads; recall = wanted loads / wanted entries (summed over
  the counted runs).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from axmem_gui.core.catalog import CATALOG_KINDS
from axmem_gui.core.errors import InputError
from axmem_gui.core.evals.model import EvalCase, EvalSet, eval_set_from_json_value
from axmem_gui.core.session.analytics import session_totals
from axmem_gui.core.session.model import Session

RUN_STATUSES = ("complete", "failed", "cancelled")
REPORT_STATUSES = ("running", "complete", "cancelled")


@dataclass(frozen=True)
class EvalRun:
    """One run of one case: an agent session and what it loaded."""

    case: str
    attempt: int  # 1-based
    status: str  # complete | failed | cancelled
    reason: str = ""
    session_id: str | None = None
    loaded_skills: tuple[str, ...] = ()
    loaded_memories: tuple[str, ...] = ()
    searches: tuple[tuple[str, str], ...] = ()  # (discover|recall, search string), in order
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_calls: int = 0
    duration_ms: float = 0.0

    @property
    def counted(self) -> bool:
        return self.status == "complete"

    def loaded(self, kind: str) -> tuple[str, ...]:
        return self.loaded_skills if kind == "skills" else self.loaded_memories

    def hit(self, case: EvalCase) -> bool:
        for kind in CATALOG_KINDS:
            exp, got = case.expectation(kind), set(self.loaded(kind))
            if not set(exp.load) <= got or got & set(exp.avoid):
                return False
        return True

    def to_json(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "attempt": self.attempt,
            "status": self.status,
            "reason": self.reason,
            "session_id": self.session_id,
            "loaded": {"skills": list(self.loaded_skills), "memories": list(self.loaded_memories)},
            "searches": [{"kind": k, "search": s} for k, s in self.searches],
            "tokens": {"prompt": self.prompt_tokens, "completion": self.completion_tokens},
            "model_calls": self.model_calls,
            "duration_ms": round(self.duration_ms, 1),
        }


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def run_from_session(case: str, attempt: int, session: Session, duration_ms: float) -> EvalRun:
    """The run record of a recorded session: what its discover/recall calls returned, its
    tokens and model calls, and whether it finished."""
    loaded: dict[str, list[str]] = {"discover": [], "recall": []}
    searches: list[tuple[str, str]] = []
    for _fw, call in session.search_calls():
        searches.extend((call.kind, s) for s in call.searches)
        found = loaded[call.kind]
        found.extend(i for i in dict.fromkeys(call.result_ids) if i not in found)
    totals = session_totals(session)
    status, reason = "complete", ""
    if not session.complete:
        error = session.error
        status = "cancelled" if error is not None and error.kind == "cancelled" else "failed"
        message = (error.message if error is not None else "").strip()
        # One line: the first of a multi-line error (axllm appends the model's output).
        reason = message.splitlines()[0].strip() if message else "the run ended early"
    return EvalRun(
        case=case,
        attempt=attempt,
        status=status,
        reason=reason,
        session_id=session.id,
        loaded_skills=tuple(loaded["discover"]),
        loaded_memories=tuple(loaded["recall"]),
        searches=tuple(searches),
        prompt_tokens=totals.prompt_tokens,
        completion_tokens=totals.completion_tokens,
        model_calls=totals.calls,
        duration_ms=round(float(duration_ms), 1),
    )


def failed_run(case: str, attempt: int, reason: str, status: str = "failed") -> EvalRun:
    """A run that never became a session (the agent could not even be built)."""
    return EvalRun(case=case, attempt=attempt, status=status, reason=reason)


# --------------------------------------------------------------------------- figures


def _rate(part: int, whole: int) -> float | None:
    return None if whole == 0 else part / whole


@dataclass(frozen=True)
class EntryTrigger:
    """How often one wanted or avoided entry of a case was loaded."""

    id: str
    kind: str  # skills | memories
    wanted: bool  # False: the case must avoid it
    loaded: int
    runs: int

    @property
    def rate(self) -> float | None:
        return _rate(self.loaded, self.runs)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "wanted": self.wanted,
            "loaded": self.loaded,
            "runs": self.runs,
            "rate": self.rate,
        }


@dataclass(frozen=True)
class CaseStats:
    name: str
    planned: int
    counted: int
    failed: int
    cancelled: int
    hits: int
    threshold: float
    triggers: tuple[EntryTrigger, ...]
    searches: tuple[tuple[str, str, int], ...]  # kind, string, runs that wrote it
    other_loads: tuple[tuple[str, str, int], ...]  # kind, id, runs: neither wanted nor avoided
    prompt_tokens: int
    completion_tokens: int
    duration_ms: float
    reasons: tuple[str, ...]

    @property
    def not_run(self) -> int:
        return self.planned - self.counted - self.failed - self.cancelled

    @property
    def rate(self) -> float | None:
        return _rate(self.hits, self.counted)

    @property
    def passed(self) -> bool:
        """At or above the threshold over completed runs; no completed run is a fail."""
        rate = self.rate
        return rate is not None and rate + 1e-9 >= self.threshold

    @property
    def false_triggers(self) -> int:
        return sum(t.loaded for t in self.triggers if not t.wanted)

    def to_json(self) -> dict[str, Any]:
        runs = self.counted + self.failed + self.cancelled
        return {
            "name": self.name,
            "passed": self.passed,
            "rate": self.rate,
            "threshold": self.threshold,
            "runs": {
                "planned": self.planned,
                "counted": self.counted,
                "failed": self.failed,
                "cancelled": self.cancelled,
                "not_run": self.not_run,
                "hits": self.hits,
            },
            "triggers": [t.to_json() for t in self.triggers],
            "false_triggers": self.false_triggers,
            "searches": [{"kind": k, "search": s, "runs": n} for k, s, n in self.searches],
            "other_loads": [{"kind": k, "id": i, "runs": n} for k, i, n in self.other_loads],
            "tokens": {
                "prompt": self.prompt_tokens,
                "completion": self.completion_tokens,
                "mean_per_run": None
                if runs == 0
                else round((self.prompt_tokens + self.completion_tokens) / runs, 1),
            },
            "duration_ms": {
                "total": round(self.duration_ms, 1),
                "mean_per_run": None if runs == 0 else round(self.duration_ms / runs, 1),
            },
            "failures": list(self.reasons),
        }


@dataclass(frozen=True)
class EntryStats:
    """One skill or memory across the whole set."""

    id: str
    kind: str
    wanted_runs: int
    triggered: int
    avoid_runs: int
    false_triggers: int
    loaded_runs: int  # counted runs that loaded it, whatever the case said

    @property
    def trigger_rate(self) -> float | None:
        return _rate(self.triggered, self.wanted_runs)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "wanted_runs": self.wanted_runs,
            "triggered": self.triggered,
            "trigger_rate": self.trigger_rate,
            "avoid_runs": self.avoid_runs,
            "false_triggers": self.false_triggers,
            "loaded_runs": self.loaded_runs,
        }


@dataclass(frozen=True)
class LoadMetrics:
    wanted: int  # wanted entries summed over counted runs
    loaded: int  # all loads summed over counted runs
    wanted_loaded: int

    @property
    def precision(self) -> float | None:
        return _rate(self.wanted_loaded, self.loaded)

    @property
    def recall(self) -> float | None:
        return _rate(self.wanted_loaded, self.wanted)

    def to_json(self) -> dict[str, Any]:
        return {
            "precision": self.precision,
            "recall": self.recall,
            "wanted": self.wanted,
            "loaded": self.loaded,
            "wanted_loaded": self.wanted_loaded,
        }


def _counts(items: Iterable[tuple[str, str]]) -> tuple[tuple[str, str, int], ...]:
    return tuple((k, v, n) for (k, v), n in Counter(items).items())


def case_stats(
    eval_set: EvalSet, case: EvalCase, runs: Sequence[EvalRun], planned: int
) -> CaseStats:
    mine = [r for r in runs if r.case == case.name]
    counted = [r for r in mine if r.counted]
    triggers: list[EntryTrigger] = []
    labelled: dict[str, set[str]] = {}
    for kind in CATALOG_KINDS:
        exp = case.expectation(kind)
        labelled[kind] = set(exp.load) | set(exp.avoid)
        for wanted, ids in ((True, exp.load), (False, exp.avoid)):
            for entry_id in ids:
                hits = sum(1 for r in counted if entry_id in r.loaded(kind))
                triggers.append(EntryTrigger(entry_id, kind, wanted, hits, len(counted)))
    # A string the model wrote twice in one run counts once for that run.
    searches = _counts(item for r in counted for item in dict.fromkeys(r.searches))
    other = _counts(
        (kind, entry_id)
        for r in counted
        for kind in CATALOG_KINDS
        for entry_id in r.loaded(kind)
        if entry_id not in labelled[kind]
    )
    return CaseStats(
        name=case.name,
        planned=planned,
        counted=len(counted),
        failed=sum(1 for r in mine if r.status == "failed"),
        cancelled=sum(1 for r in mine if r.status == "cancelled"),
        hits=sum(1 for r in counted if r.hit(case)),
        threshold=eval_set.threshold_of(case),
        triggers=tuple(triggers),
        searches=searches,
        other_loads=other,
        prompt_tokens=sum(r.prompt_tokens for r in mine),
        completion_tokens=sum(r.completion_tokens for r in mine),
        duration_ms=sum(r.duration_ms for r in mine),
        reasons=tuple(f"run {r.attempt}: {r.status}: {r.reason}" for r in mine if not r.counted),
    )


@dataclass(frozen=True, slots=True)
class EvalProvider:
    """The model an eval ran on, as its report records it (the choices, never a key)."""

    name: str | None = None
    model: str | None = None
    base_url: str | None = None

    def to_json(self) -> dict[str, str | None]:
        return {"name": self.name, "model": self.model, "base_url": self.base_url}


def provider_from_json_value(value: object) -> EvalProvider:
    """A report's `provider` object (what is not text reads as absent)."""
    if not isinstance(value, dict):
        return EvalProvider()
    name, model, base_url = (value.get(k) for k in ("name", "model", "base_url"))
    return EvalProvider(
        name if isinstance(name, str) else None,
        model if isinstance(model, str) else None,
        base_url if isinstance(base_url, str) else None,
    )


@dataclass(frozen=True)
class EvalReport:
    """An eval run: the set as it was run, on which model, and every run record."""

    id: str
    eval_set: EvalSet
    provider: EvalProvider
    started_at: str
    status: str  # running | complete | cancelled
    runs: tuple[EvalRun, ...] = ()
    finished_at: str | None = None
    repeat: int | None = None  # the override the run was started with
    catalog_digest: str = ""
    label: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)

    def planned(self, case: EvalCase) -> int:
        return self.eval_set.repeat_of(case, self.repeat)

    @property
    def planned_total(self) -> int:
        return sum(self.planned(c) for c in self.eval_set.cases)

    def cases(self) -> list[CaseStats]:
        return [
            case_stats(self.eval_set, c, self.runs, self.planned(c)) for c in self.eval_set.cases
        ]

    @property
    def passed(self) -> bool:
        return self.status == "complete" and all(c.passed for c in self.cases())

    def entries(self, kind: str) -> list[EntryStats]:
        """Every entry a case names or a run loaded, in first-seen order."""
        order: dict[str, None] = {}
        for case in self.eval_set.cases:
            exp = case.expectation(kind)
            order.update(dict.fromkeys((*exp.load, *exp.avoid)))
        by_case = {c.name: c for c in self.eval_set.cases}
        counted = [r for r in self.runs if r.counted and r.case in by_case]
        for run in counted:
            order.update(dict.fromkeys(run.loaded(kind)))
        out = []
        for entry_id in order:
            wanted = [r for r in counted if entry_id in by_case[r.case].expectation(kind).load]
            avoid = [r for r in counted if entry_id in by_case[r.case].expectation(kind).avoid]
            out.append(
                EntryStats(
                    id=entry_id,
                    kind=kind,
                    wanted_runs=len(wanted),
                    triggered=sum(1 for r in wanted if entry_id in r.loaded(kind)),
                    avoid_runs=len(avoid),
                    false_triggers=sum(1 for r in avoid if entry_id in r.loaded(kind)),
                    loaded_runs=sum(1 for r in counted if entry_id in r.loaded(kind)),
                )
            )
        return out

    def metrics(self, kind: str | None = None) -> LoadMetrics:
        kinds = CATALOG_KINDS if kind is None else (kind,)
        by_case = {c.name: c for c in self.eval_set.cases}
        wanted = loaded = both = 0
        for run in self.runs:
            case = by_case.get(run.case)
            if case is None or not run.counted:
                continue
            for k in kinds:
                want = set(case.expectation(k).load)
                got = set(run.loaded(k))
                wanted += len(want)
                loaded += len(got)
                both += len(want & got)
        return LoadMetrics(wanted, loaded, both)

    def totals(self) -> dict[str, Any]:
        runs = self.runs
        return {
            "planned": self.planned_total,
            "counted": sum(1 for r in runs if r.counted),
            "failed": sum(1 for r in runs if r.status == "failed"),
            "cancelled": sum(1 for r in runs if r.status == "cancelled"),
            "not_run": self.planned_total - len(runs),
            "prompt_tokens": sum(r.prompt_tokens for r in runs),
            "completion_tokens": sum(r.completion_tokens for r in runs),
            "model_calls": sum(r.model_calls for r in runs),
            "duration_ms": round(sum(r.duration_ms for r in runs), 1),
        }

    def stored_json(self) -> dict[str, Any]:
        """What the workspace keeps: the inputs of every figure, not the figures."""
        return {
            "id": self.id,
            "label": self.label,
            "set": self.eval_set.to_json(),
            "provider": self.provider.to_json(),
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "status": self.status,
            "repeat": self.repeat,
            "catalog_digest": self.catalog_digest,
            "notes": list(self.notes),
            "runs": [r.to_json() for r in self.runs],
        }

    def to_json(self) -> dict[str, Any]:
        """The full report (`--json`): stored fields plus every figure."""
        out = self.stored_json()
        out["passed"] = self.passed
        out["totals"] = self.totals()
        out["metrics"] = {
            "skills": self.metrics("skills").to_json(),
            "memories": self.metrics("memories").to_json(),
            "all": self.metrics().to_json(),
        }
        out["cases"] = [c.to_json() for c in self.cases()]
        out["entries"] = {k: [e.to_json() for e in self.entries(k)] for k in CATALOG_KINDS}
        return out


# --------------------------------------------------------------------------- reading back


def _str_list(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(f"{where}: must be a list of strings")
    return tuple(value)


def run_from_json_value(value: Any, where: str) -> EvalRun:
    if not isinstance(value, dict):
        raise InputError(f"{where}: a run must be an object")
    status = value.get("status")
    if status not in RUN_STATUSES:
        raise InputError(f"{where}: field 'status' must be one of {', '.join(RUN_STATUSES)}")
    case, attempt = value.get("case"), value.get("attempt")
    if not isinstance(case, str) or not isinstance(attempt, int) or isinstance(attempt, bool):
        raise InputError(f"{where}: fields 'case' (string) and 'attempt' (integer) are required")
    loaded = value.get("loaded") if isinstance(value.get("loaded"), dict) else {}
    assert isinstance(loaded, dict)
    searches = []
    for i, s in enumerate(value.get("searches") or []):
        if not isinstance(s, dict) or s.get("kind") not in ("discover", "recall"):
            raise InputError(f"{where}: searches[{i}] must be {{kind, search}}")
        searches.append((str(s["kind"]), str(s.get("search", ""))))
    tokens = value.get("tokens") if isinstance(value.get("tokens"), dict) else {}
    assert isinstance(tokens, dict)
    session_id = value.get("session_id")
    duration = value.get("duration_ms", 0)
    return EvalRun(
        case=case,
        attempt=attempt,
        status=str(status),
        reason=str(value.get("reason") or ""),
        session_id=session_id if isinstance(session_id, str) else None,
        loaded_skills=_str_list(loaded.get("skills", []), f"{where}: loaded.skills"),
        loaded_memories=_str_list(loaded.get("memories", []), f"{where}: loaded.memories"),
        searches=tuple(searches),
        prompt_tokens=_int(tokens.get("prompt")),
        completion_tokens=_int(tokens.get("completion")),
        model_calls=_int(value.get("model_calls")),
        duration_ms=float(duration) if isinstance(duration, int | float) else 0.0,
    )


def report_from_json_value(value: Any, source: str = "eval report") -> EvalReport:
    """A stored or `--json` report read back (figures are recomputed, never trusted)."""
    if not isinstance(value, dict):
        raise InputError(f"{source}: an eval report must be an object")
    report_id = value.get("id")
    if not isinstance(report_id, str) or not report_id:
        raise InputError(f"{source}: field 'id' must be a non-empty string")
    status = value.get("status")
    if status not in REPORT_STATUSES:
        raise InputError(f"{source}: field 'status' must be one of {', '.join(REPORT_STATUSES)}")
    eval_set = eval_set_from_json_value(value.get("set"), f"{source}: set")
    raw_runs = value.get("runs")
    if not isinstance(raw_runs, list):
        raise InputError(f"{source}: field 'runs' must be a list")
    repeat = value.get("repeat")
    notes = value.get("notes") or []
    return EvalReport(
        id=report_id,
        eval_set=eval_set,
        provider=provider_from_json_value(value.get("provider")),
        started_at=str(value.get("started_at") or ""),
        status=str(status),
        runs=tuple(run_from_json_value(r, f"{source}: runs[{i}]") for i, r in enumerate(raw_runs)),
        finished_at=value.get("finished_at") if isinstance(value.get("finished_at"), str) else None,
        repeat=repeat if isinstance(repeat, int) and not isinstance(repeat, bool) else None,
        catalog_digest=str(value.get("catalog_digest") or ""),
        label=str(value.get("label") or ""),
        notes=tuple(str(n) for n in notes) if isinstance(notes, list) else (),
    )
