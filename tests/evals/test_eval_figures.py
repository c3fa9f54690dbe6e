"""The figures of a report, from hand-made run records: hit rate against the threshold,
trigger rates, false triggers, precision and recall; failed runs kept but not counted;
two runs compared with regressions flagged."""

from __future__ import annotations

from axmem_gui.core.evals.compare import compare_reports, render_report, to_junit_xml
from axmem_gui.core.evals.report import EvalProvider, EvalReport, EvalRun, report_from_json_value
from tests.evals.conftest import make_set


def _run(
    case: str,
    attempt: int,
    skills: tuple[str, ...],
    memories: tuple[str, ...] = (),
    status: str = "complete",
    reason: str = "",
) -> EvalRun:
    return EvalRun(
        case=case,
        attempt=attempt,
        status=status,
        reason=reason,
        session_id=f"s-{case}-{attempt}",
        loaded_skills=skills,
        loaded_memories=memories,
        searches=(("discover", f"{case} words"),),
        prompt_tokens=100,
        completion_tokens=10,
        model_calls=3,
        duration_ms=50.0,
    )


def _report(runs: list[EvalRun], report_id: str = "r1") -> EvalReport:
    return EvalReport(
        id=report_id,
        eval_set=make_set(),
        provider=EvalProvider("openai-compatible", "m"),
        started_at="t",
        status="complete",
        runs=tuple(runs),
    )


GOOD = [
    _run("most severe", 1, ("incident-triage", "search-tuning"), ("mem-checkout-owner",)),
    _run("most severe", 2, ("incident-triage", "release-notes"), ("mem-checkout-owner",)),
    _run("search incidents", 1, ("search-tuning",)),
    _run("search incidents", 2, (), status="failed", reason="HTTP 500"),
]


def test_case_figures_count_completed_runs_only() -> None:
    severe, search = _report(GOOD).cases()
    # Run 2 loaded release-notes, which the case must avoid: not a hit.
    assert (severe.hits, severe.counted, severe.rate, severe.passed) == (1, 2, 0.5, True)
    assert severe.false_triggers == 1
    triggers = {(t.id, t.wanted): (t.loaded, t.runs) for t in severe.triggers}
    assert triggers == {
        ("incident-triage", True): (2, 2),
        ("release-notes", False): (1, 2),
        ("mem-checkout-owner", True): (2, 2),
    }
    assert severe.other_loads == (("skills", "search-tuning", 1),)
    assert severe.searches == (("discover", "most severe words", 2),)
    assert (search.counted, search.failed, search.hits, search.rate) == (1, 1, 1, 1.0)
    assert search.reasons == ("run 2: failed: HTTP 500",)
    # Tokens and time include the failed run: it cost them too.
    assert search.prompt_tokens == 200 and search.duration_ms == 100.0


def test_set_metrics_and_entry_trigger_rates() -> None:
    report = _report(GOOD)
    skills = report.metrics("skills")
    # Wanted: 2 (severe) + 1 (search) = 3, all loaded; loads: 2 + 2 + 1 = 5.
    assert (skills.wanted, skills.loaded, skills.wanted_loaded) == (3, 5, 3)
    assert skills.recall == 1.0 and skills.precision == 3 / 5
    entries = {e.id: e for e in report.entries("skills")}
    assert entries["release-notes"].false_triggers == 1
    assert entries["release-notes"].avoid_runs == 2
    assert entries["search-tuning"].trigger_rate == 1.0
    assert entries["search-tuning"].loaded_runs == 2  # also loaded by a 'most severe' run
    totals = report.totals()
    assert (totals["planned"], totals["counted"], totals["failed"], totals["not_run"]) == (
        4,
        3,
        1,
        0,
    )
    assert report.passed


def test_a_case_with_no_completed_run_fails_and_the_set_does_not_pass() -> None:
    runs = [*GOOD[:3], _run("search incidents", 2, (), status="failed", reason="x")]
    runs[2] = _run("search incidents", 1, (), status="failed", reason="connection refused")
    report = _report(runs)
    search = report.cases()[1]
    assert search.rate is None and not search.passed
    assert not report.passed


def test_a_stored_report_reads_back_with_the_same_figures() -> None:
    report = _report(GOOD)
    again = report_from_json_value(report.to_json(), "stored")
    assert again.to_json() == report.to_json()


def test_compare_flags_a_case_that_passed_and_now_fails() -> None:
    before = _report(GOOD, "a")
    after = _report(
        [
            _run("most severe", 1, ("release-notes",)),
            _run("most severe", 2, ("release-notes",)),
            *GOOD[2:],
        ],
        "b",
    )
    comparison = compare_reports(before, after)
    assert comparison.regressions[0].startswith("most severe: passed before (50%), fails now")
    text = "\n".join(comparison.regressions)
    assert "incident-triage triggers less: 100% -> 0%" in text
    assert "release-notes falsely triggers more: 50% -> 100%" in text
    assert compare_reports(before, before).regressions == []


def test_junit_and_text_name_the_failing_case() -> None:
    report = _report([_run("most severe", 1, ()), _run("most severe", 2, ())])
    xml = to_junit_xml([report])
    assert 'failures="2"' in xml and "hit rate 0% below threshold 50%" in xml
    text = render_report(report)
    assert "FAIL most severe: 0/2 hits" in text
