"""Catalog lint: what makes Ax show, key or search a catalog differently from what its
author expects. Pure: give it skills and memories, get findings.

    report = lint_catalog(catalog, LintOptions(budget_tokens=1500))
    for f in report.findings: print(f.severity, f.code, f.entry_id, f.message, f.hint)
"""

from __future__ import annotations

from axmem_gui.core.ax.profile import AxProfile, load_profile
from axmem_gui.core.catalog import Catalog, Memory, Skill
from axmem_gui.core.lint.batch import searchability_findings
from axmem_gui.core.lint.budget import IndexSize, budget_findings, estimate_tokens, index_size
from axmem_gui.core.lint.identity import identity_findings
from axmem_gui.core.lint.model import (
    CODES,
    DEFAULT_BUDGET_TOKENS,
    SEVERITY_ORDER,
    Finding,
    LintOptions,
    LintReport,
)
from axmem_gui.core.lint.runtime import runtime_findings

__all__ = [
    "CODES",
    "DEFAULT_BUDGET_TOKENS",
    "Finding",
    "LintOptions",
    "LintReport",
    "estimate_tokens",
    "lint_catalog",
]

_KIND_ORDER = {"catalog": 0, "skill": 1, "memory": 2}


def lint_catalog(
    catalog: Catalog, options: LintOptions | None = None, profile: AxProfile | None = None
) -> LintReport:
    options = options or LintOptions()
    profile = profile or load_profile()
    skills, memories = list(catalog.skills), list(catalog.memories)
    size = index_size(skills, profile)
    findings = [
        *identity_findings(skills, memories),
        *searchability_findings(skills, memories, profile, options),
        *budget_findings(size, options.budget_tokens),
        *runtime_findings(skills, memories),
    ]
    return order_findings(findings, skills, memories, size, options)


def order_findings(
    findings: list[Finding],
    skills: list[Skill],
    memories: list[Memory],
    size: IndexSize,
    options: LintOptions,
) -> LintReport:
    """The report: findings by severity, kind and catalog position (stable)."""
    positions = {"skill": _first_positions(skills), "memory": _first_positions(memories)}
    nowhere: dict[str, int] = {}
    # (severity, kind, position) as one int: position + 1 (0 for none) below `span`
    span = len(skills) + len(memories) + 2
    rank = {
        (severity, kind): (level * len(_KIND_ORDER) + place) * span
        for severity, level in SEVERITY_ORDER.items()
        for kind, place in _KIND_ORDER.items()
    }
    keys = [
        rank[f.severity, f.kind] + positions.get(f.kind, nowhere).get(f.entry_id or "", -1) + 1
        for f in findings
    ]
    order = sorted(range(len(findings)), key=keys.__getitem__)
    return LintReport(
        findings=tuple(map(findings.__getitem__, order)),
        skills=len(skills),
        memories=len(memories),
        index_chars=size.chars,
        index_tokens=size.tokens,
        budget_tokens=options.budget_tokens,
    )


def _first_positions(entries: list[Skill] | list[Memory]) -> dict[str, int]:
    """Each id's first position in `entries`."""
    ids = [e.id for e in entries]
    return dict(zip(reversed(ids), range(len(ids) - 1, -1, -1), strict=True))
