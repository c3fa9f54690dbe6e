"""A retrieval suite and its cases: what a discover or recall call must and must not
return, with the per-string cap Ax's profile sets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from axmem_gui.core.ax.profile import AxProfile, load_profile

CaseKind = Literal["discover", "recall"]
CASE_KINDS: tuple[CaseKind, ...] = ("discover", "recall")


def per_string_cap(kind: CaseKind, profile: AxProfile | None = None) -> int:
    """Results per search string of one call, as the Ax profile says (Ax 24.0.21: discover
    keeps the top 2 skills, recall the top 3 memories)."""
    p = profile or load_profile()
    return p.skill_search_top_k if kind == "discover" else p.memory_search_top_k


@dataclass(frozen=True, slots=True)
class SuiteCase:
    name: str
    kind: CaseKind
    searches: tuple[str, ...]
    must_include: tuple[str, ...] = ()
    must_exclude: tuple[str, ...] = ()
    loaded: tuple[str, ...] = ()
    k: int | None = None
    note: str = ""

    def unique_searches(self) -> tuple[str, ...]:
        """The strings Ax actually searches: trimmed, exact duplicates dropped, order kept."""
        return tuple(dict.fromkeys(s.strip() for s in self.searches))

    def cap(self, profile: AxProfile | None = None) -> int:
        """Most results the call can return: per-string cap times distinct strings."""
        return per_string_cap(self.kind, profile) * len(self.unique_searches())

    def effective_k(self, profile: AxProfile | None = None) -> int:
        return self.k if self.k is not None else self.cap(profile)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind,
            "searches": list(self.searches),
        }
        if self.kind == "recall":
            out["loaded"] = list(self.loaded)
        out["mustInclude"] = list(self.must_include)
        out["mustExclude"] = list(self.must_exclude)
        if self.k is not None:
            out["k"] = self.k
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True, slots=True)
class Suite:
    name: str
    cases: tuple[SuiteCase, ...]
    description: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        if self.description:
            out["description"] = self.description
        out["cases"] = [c.to_json() for c in self.cases]
        return out
