"""Usage analytics over a workspace's recorded sessions, and per-session totals for lists.

Plain functions over an open workspace (the sessions service reads the sessions): the
GUI calls them from a task-runner job with the job's own connection (SQLite connections
are per thread).
"""

from __future__ import annotations

from collections.abc import Iterable

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.session.analytics import SessionTotals, UsageReport, session_totals
from axmem_gui.services.session_store import SessionService
from axmem_gui.store import Workspace

__all__ = ["SessionTotals", "UsageReport", "session_totals", "token_totals", "usage_report"]


def token_totals(ws: Workspace, ids: Iterable[str]) -> dict[str, SessionTotals]:
    """Totals of the named sessions (ids no longer stored are left out)."""
    return SessionService(ws).totals(ids)


def usage_report(ws: Workspace, catalog: Catalog | None = None) -> UsageReport:
    """Per skill and memory: loaded/used counts across every session of the workspace,
    against its current catalog (or `catalog`)."""
    return SessionService(ws).usage(catalog)
