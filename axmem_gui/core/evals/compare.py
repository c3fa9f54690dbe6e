"""Two eval runs side by side (two models, or the catalog before and after an edit), the
text report of one run, and JUnit XML for CI. Pure."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from axmem_gui.core.catalog import CATALOG_KINDS, singular
from axmem_gui.core.evals.report import CaseStats, EvalReport

_EPS = 1e-9


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.0f}%"


@dataclass(frozen=True)
class CaseDelta:
    name: str
    a: CaseStats | None
    b: CaseStats | None
    regressions: tuple[str, ...]
    improvements: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "a": None if self.a is None else {"rate": self.a.rate, "passed": self.a.passed},
            "b": None if self.b is None else {"rate": self.b.rate, "passed": self.b.passed},
            "regressions": list(self.regressions),
            "improvements": list(self.improvements),
        }


@dataclass(frozen=True)
class EvalComparison:
    a: EvalReport
    b: EvalReport
    cases: tuple[CaseDelta, ...]

    @property
    def regressions(self) -> list[str]:
        return [f"{c.name}: {r}" for c in self.cases for r in c.regressions]

    def to_json(self) -> dict[str, Any]:
        def side(r: EvalReport) -> dict[str, Any]:
            return {
                "id": r.id,
                "label": r.label,
                "set": r.eval_set.name,
                "provider": r.provider.name,
                "model": r.provider.model,
                "catalog_digest": r.catalog_digest,
                "precision": r.metrics().precision,
                "recall": r.metrics().recall,
            }

        return {
            "a": side(self.a),
            "b": side(self.b),
            "regressions": self.regressions,
            "cases": [c.to_json() for c in self.cases],
        }


def _case_delta(name: str, a: CaseStats | None, b: CaseStats | None) -> CaseDelta:
    worse: list[str] = []
    better: list[str] = []
    if a is None or b is None:
        return CaseDelta(name, a, b, (), ())
    if a.passed and not b.passed:
        worse.append(f"passed before ({pct(a.rate)}), fails now ({pct(b.rate)})")
    elif not a.passed and b.passed:
        better.append(f"fails before ({pct(a.rate)}), passes now ({pct(b.rate)})")
    elif a.rate is not None and b.rate is not None and b.rate + _EPS < a.rate:
        worse.append(f"hit rate fell from {pct(a.rate)} to {pct(b.rate)}")
    before = {(t.kind, t.id, t.wanted): t for t in a.triggers}
    for t in b.triggers:
        old = before.get((t.kind, t.id, t.wanted))
        if old is None or old.rate is None or t.rate is None:
            continue
        if t.wanted and t.rate + _EPS < old.rate:
            worse.append(f"{t.id} triggers less: {pct(old.rate)} -> {pct(t.rate)}")
        elif t.wanted and t.rate > old.rate + _EPS:
            better.append(f"{t.id} triggers more: {pct(old.rate)} -> {pct(t.rate)}")
        elif not t.wanted and t.rate > old.rate + _EPS:
            worse.append(f"{t.id} falsely triggers more: {pct(old.rate)} -> {pct(t.rate)}")
        elif not t.wanted and t.rate + _EPS < old.rate:
            better.append(f"{t.id} falsely triggers less: {pct(old.rate)} -> {pct(t.rate)}")
    if b.counted == 0 and a.counted > 0 and not worse:
        worse.append("no completed run")
    return CaseDelta(name, a, b, tuple(worse), tuple(better))


def compare_reports(a: EvalReport, b: EvalReport) -> EvalComparison:
    """Case by case, in A's order then B's new cases. A regression is a case that passed
    and now fails, a lower hit rate, a wanted entry loaded less often or an avoided one
    loaded more often."""
    a_cases = {c.name: c for c in a.cases()}
    b_cases = {c.name: c for c in b.cases()}
    names = list(dict.fromkeys([*a_cases, *b_cases]))
    return EvalComparison(
        a, b, tuple(_case_delta(n, a_cases.get(n), b_cases.get(n)) for n in names)
    )


# --------------------------------------------------------------------------- text


def _side_label(r: EvalReport) -> str:
    model = r.provider.model or "?"
    label = f", {r.label}" if r.label else ""
    return f"{r.id} ({r.provider.name or '?'} · {model}{label})"


def render_report(report: EvalReport) -> str:
    totals = report.totals()
    m = report.metrics()
    lines = [
        f"eval {report.eval_set.name} · run {report.id} · {report.status} · "
        f"{report.provider.name} · {report.provider.model or '?'}"
        + (f" · {report.label}" if report.label else ""),
        f"runs: {totals['counted']} counted, {totals['failed']} failed, "
        f"{totals['cancelled']} cancelled, {totals['not_run']} not run (of {totals['planned']})"
        f" · tokens {totals['prompt_tokens']}+{totals['completion_tokens']}"
        f" · {totals['duration_ms'] / 1000:.1f} s",
        f"loading: precision {pct(m.precision)} · recall {pct(m.recall)}"
        f" (skills {pct(report.metrics('skills').precision)}/"
        f"{pct(report.metrics('skills').recall)},"
        f" memories {pct(report.metrics('memories').precision)}/"
        f"{pct(report.metrics('memories').recall)})",
    ]
    for case in report.cases():
        mark = "ok  " if case.passed else "FAIL"
        lines.append(
            f"  {mark} {case.name}: {case.hits}/{case.counted} hits ({pct(case.rate)}, "
            f"threshold {pct(case.threshold)})"
            + (f", {case.failed} failed" if case.failed else "")
            + (f", {case.cancelled} cancelled" if case.cancelled else "")
        )
        for t in case.triggers:
            verb = "loaded" if t.wanted else "FALSE TRIGGER" if t.loaded else "avoided"
            lines.append(
                f"       {singular(t.kind)} {t.id}: "
                f"{verb} {t.loaded}/{t.runs}"
            )
        for kind, search, runs in case.searches:
            lines.append(f"       {kind}: {search!r} ×{runs}")
        for reason in case.reasons:
            lines.append(f"       {reason}")
    for kind in CATALOG_KINDS:
        rows = [e for e in report.entries(kind) if e.wanted_runs or e.avoid_runs]
        if rows:
            lines.append(f"{kind}:")
        for e in rows:
            lines.append(
                f"  {e.id}: trigger rate {pct(e.trigger_rate)} ({e.triggered}/{e.wanted_runs})"
                f" · false triggers {e.false_triggers}/{e.avoid_runs}"
            )
    return "\n".join(lines) + "\n"


def render_comparison(comparison: EvalComparison) -> str:
    a, b = comparison.a, comparison.b
    lines = [
        f"A: {_side_label(a)}",
        f"B: {_side_label(b)}",
        f"precision {pct(a.metrics().precision)} -> {pct(b.metrics().precision)} · "
        f"recall {pct(a.metrics().recall)} -> {pct(b.metrics().recall)}",
    ]
    for c in comparison.cases:
        ra = pct(c.a.rate) if c.a else "-"
        rb = pct(c.b.rate) if c.b else "-"
        flag = "REGRESSION " if c.regressions else ""
        lines.append(f"  {flag}{c.name}: {ra} -> {rb}")
        lines.extend(f"       worse: {r}" for r in c.regressions)
        lines.extend(f"       better: {r}" for r in c.improvements)
    count = len(comparison.regressions)
    lines.append(f"{count} regression(s)" if count else "no regression")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- JUnit


def to_junit_xml(reports: Sequence[EvalReport]) -> str:
    root = ET.Element("testsuites", name="axmem eval")
    for report in reports:
        cases = report.cases()
        suite = ET.SubElement(
            root,
            "testsuite",
            name=f"eval:{report.eval_set.name}",
            tests=str(len(cases)),
            failures=str(sum(1 for c in cases if not c.passed)),
            time=f"{report.totals()['duration_ms'] / 1000:.3f}",
        )
        props = ET.SubElement(suite, "properties")
        for key, value in (
            ("run", report.id),
            ("provider", str(report.provider.name or "")),
            ("model", str(report.provider.model or "")),
            ("precision", pct(report.metrics().precision)),
            ("recall", pct(report.metrics().recall)),
        ):
            ET.SubElement(props, "property", name=key, value=value)
        for case in cases:
            tc = ET.SubElement(
                suite,
                "testcase",
                classname=f"eval.{report.eval_set.name}",
                name=case.name,
                time=f"{case.duration_ms / 1000:.3f}",
            )
            if not case.passed:
                failure = ET.SubElement(
                    tc,
                    "failure",
                    message=f"hit rate {pct(case.rate)} below threshold {pct(case.threshold)}",
                )
                details = [
                    f"{t.id}: {'loaded' if t.wanted else 'avoid, loaded'} {t.loaded}/{t.runs}"
                    for t in case.triggers
                ]
                failure.text = "\n".join([*details, *case.reasons])
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
