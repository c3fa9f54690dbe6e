"""Lint findings, options and the report."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal

Severity = Literal["error", "warning", "info"]
EntryKind = Literal["skill", "memory", "catalog"]
SEVERITY_ORDER: dict[str, int] = {"error": 0, "warning": 1, "info": 2}

#: Every finding code, with its severity. Codes are stable: tools and suppressions key on
#: them.
CODES: dict[str, Severity] = {
    "duplicate-id": "error",
    "duplicate-trimmed-id": "error",
    "empty-name": "error",
    "empty-id": "error",
    "unreachable": "error",
    "id-case-collision": "warning",
    "padded-id": "warning",
    "invisible-characters": "warning",
    "empty-description": "warning",
    "id-not-searchable": "warning",
    "stopword-only-name": "warning",
    "stopword-only-description": "warning",
    "competing-skills": "warning",
    "index-over-budget": "warning",
    "terms-beyond-cut": "info",
    "runtime-order": "info",
    "runtime-cleanup": "info",
    "runtime-cut": "info",
}


@dataclass(frozen=True, slots=True)
class Finding:
    """One finding (slotted: a report holds 100,000 of them at 10,000 skills)."""

    severity: Severity
    code: str
    kind: EntryKind
    entry_id: str | None
    message: str
    hint: str
    field: str = ""
    related: tuple[str, ...] = ()  # other entry ids involved (duplicates, competitors)

    def __str__(self) -> str:
        where = self.kind if self.entry_id is None else f"{self.kind} '{self.entry_id}'"
        return f"{self.severity}: {where}: {self.message} [{self.code}]"

    def to_json(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "code": self.code,
            "kind": self.kind,
            "id": self.entry_id,
            "field": self.field,
            "message": self.message,
            "hint": self.hint,
            "related": list(self.related),
        }


def finding(
    code: str,
    kind: EntryKind,
    entry_id: str | None,
    message: str,
    hint: str,
    *,
    field: str = "",
    related: tuple[str, ...] = (),
) -> Finding:
    return Finding(CODES[code], code, kind, entry_id, message, hint, field, related)


DEFAULT_BUDGET_TOKENS = 2000


@dataclass(frozen=True)
class LintOptions:
    #: Token budget for the `### Available Skills` index (estimate: characters / 4).
    budget_tokens: int = DEFAULT_BUDGET_TOKENS
    #: Run the pairwise "which skills compete for the same searches" check.
    competition: bool = True
    #: How many beyond-the-cut terms a finding lists.
    max_listed_terms: int = 8


@dataclass(frozen=True)
class LintReport:
    findings: tuple[Finding, ...]
    skills: int
    memories: int
    index_chars: int
    index_tokens: int
    budget_tokens: int

    @property
    def errors(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "error")

    @property
    def has_errors(self) -> bool:
        return any(f.severity == "error" for f in self.findings)

    def counts(self) -> dict[str, int]:
        c = Counter(f.severity for f in self.findings)
        return {s: c.get(s, 0) for s in ("error", "warning", "info")}

    def for_entry(self, kind: EntryKind, entry_id: str) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.kind == kind and f.entry_id == entry_id)

    def to_json(self) -> dict[str, Any]:
        return {
            "skills": self.skills,
            "memories": self.memories,
            "index": {
                "chars": self.index_chars,
                "tokens": self.index_tokens,
                "budgetTokens": self.budget_tokens,
            },
            "counts": self.counts(),
            "findings": [f.to_json() for f in self.findings],
        }
