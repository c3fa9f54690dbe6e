"""Suite runs as JUnit XML for CI."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from axmem_gui.core.suites.metrics import CaseResult, SuiteRunResult

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
