"""Usage analytics over a workspace's recorded sessions, and per-session totals for lists.

Plain functions over an open workspace: the GUI calls them from a task-runner job with the
job's own connection (SQLite connections are per thread).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.session.analytics import UsageReport, usage_from_sessions
from axmem_gui.core.session.views import duration_ms, exchanges, tokens

__all__ = ["SessionTotals", "UsageReport", "session_totals", "token_totals", "usage_report"]


@dataclass(frozen=True)
class SessionTotals:
    calls: int
    prompt_tokens: int
    completion_tokens: int
    model_ms: float

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_json(self) -> dict[str, Any]:
        return {**self.__dict__, "tokens": self.tokens}


def session_totals(doc: Mapping[str, Any]) -> SessionTotals:
    exs = exchanges(doc)
    pairs = [tokens(e) for e in exs]
    return SessionTotals(
        calls=len(exs),
        prompt_tokens=sum(p for p, _ in pairs),
        completion_tokens=sum(c for _, c in pairs),
        model_ms=round(sum(duration_ms(e) for e in exs), 3),
    )


def _documents(ws: Any, ids: Iterable[str]) -> Iterable[dict[str, Any]]:
    for session_id in ids:
        doc = ws.sessions.get(session_id)
        if doc is not None:  # deleted meanwhile (another window, the CLI)
            yield doc


def token_totals(ws: Any, ids: Iterable[str]) -> dict[str, SessionTotals]:
    """Totals of the named sessions (ids no longer stored are left out)."""
    return {str(doc.get("id")): session_totals(doc) for doc in _documents(ws, ids)}


def usage_report(ws: Any, catalog: Catalog | None = None) -> UsageReport:
    """Per skill and memory: loaded/used counts across every session of the workspace,
    against its current catalog (or `catalog`)."""
    ids = [s.id for s in ws.sessions.list()]
    against = catalog if catalog is not None else ws.catalog()
    return usage_from_sessions(_documents(ws, ids), against)
