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
    positions = {("skill", s.id): i for i, s in reversed(list(enumerate(skills)))}
    positions.update({("memory", m.id): i for i, m in reversed(list(enumerate(memories)))})

    def order(f: Finding) -> tuple[int, int, int]:
        position = positions.get((f.kind, f.entry_id or ""), -1)
        return (SEVERITY_ORDER[f.severity], _KIND_ORDER[f.kind], position)

    return LintReport(
        findings=tuple(sorted(findings, key=order)),
        skills=len(skills),
        memories=len(memories),
        index_chars=size.chars,
        index_tokens=size.tokens,
        budget_tokens=options.budget_tokens,
    )
