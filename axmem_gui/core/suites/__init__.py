"""Retrieval suites: expectations about what Ax's built-in search returns, and their metrics.

A suite is a list of cases; each case is one `discover({ skills })` or `recall([...])` call
(its `searches` are the call's search strings) plus the ids that must and must not come back.
Running a suite uses the Ax-exact search in `axmem_gui.core.ax`, so a passing suite means the
real agent would get those entries for those strings. Pure: no file IO, no clock in results
that matter (durations are informational only).

`model` (suites and cases), `parse` (their JSON), `metrics` (judging a case), `runner`
(running against a catalog), `results` (stored runs and their comparison), `junit`.
"""

from axmem_gui.core.suites.junit import to_junit_xml
from axmem_gui.core.suites.metrics import (
    CaseResult,
    SuiteRunResult,
    Summary,
    evaluate_case,
    rank_of,
    recall_at_k,
    reciprocal_rank,
    summarize,
)
from axmem_gui.core.suites.model import CASE_KINDS, CaseKind, Suite, SuiteCase, per_string_cap
from axmem_gui.core.suites.parse import (
    case_from_json_value,
    suite_from_json_value,
    suites_from_json_text,
    suites_from_json_value,
    suites_to_json_text,
)
from axmem_gui.core.suites.results import (
    RunComparison,
    compare_runs,
    run_result_from_json_text,
    run_result_from_json_value,
)
from axmem_gui.core.suites.runner import SearchCall, ax_engine_label, ax_search_call, run_suite

__all__ = [
    "CASE_KINDS",
    "CaseKind",
    "CaseResult",
    "RunComparison",
    "SearchCall",
    "Suite",
    "SuiteCase",
    "SuiteRunResult",
    "Summary",
    "ax_engine_label",
    "ax_search_call",
    "case_from_json_value",
    "compare_runs",
    "evaluate_case",
    "per_string_cap",
    "rank_of",
    "recall_at_k",
    "reciprocal_rank",
    "run_result_from_json_text",
    "run_result_from_json_value",
    "run_suite",
    "suite_from_json_value",
    "suites_from_json_text",
    "suites_from_json_value",
    "suites_to_json_text",
    "summarize",
    "to_junit_xml",
]
