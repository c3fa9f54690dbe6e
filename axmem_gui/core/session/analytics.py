"""Usage analytics across recorded sessions: how often each skill and memory was loaded
and used, which entries are loaded but never used, and which are never loaded at all.

Counts are per forward (one agent run over one set of inputs): an entry loaded twice in
the same forward counts once. The observer callbacks (`loaded_skills`, `used_memories`,
...) are the source, as Ax reports them. Forwards that never ran (`not_run`) are skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.session.model import Exchange, Session

SKILL = "skill"
MEMORY = "memory"

USED = "used"
LOADED_NEVER_USED = "loaded, never used"
NEVER_LOADED = "never loaded"

_KINDS = {SKILL: ("loaded_skills", "used_skills"), MEMORY: ("loaded_memories", "used_memories")}


@dataclass(frozen=True)
class SessionTotals:
    """Model calls, tokens and model time of a session (or of any list of its calls)."""

    calls: int
    prompt_tokens: int
    completion_tokens: int
    model_ms: float

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_json(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "model_ms": self.model_ms,
            "tokens": self.tokens,
        }


def totals_of(exchanges: Sequence[Exchange]) -> SessionTotals:
    pairs = [e.tokens for e in exchanges]
    return SessionTotals(
        calls=len(exchanges),
        prompt_tokens=sum(p for p, _ in pairs),
        completion_tokens=sum(c for _, c in pairs),
        model_ms=round(sum(e.ms for e in exchanges), 3),
    )


def session_totals(session: Session) -> SessionTotals:
    return totals_of(session.exchanges)


@dataclass(frozen=True)
class EntryUsage:
    kind: str  # "skill" | "memory"
    id: str
    in_catalog: bool  # still in the catalog the report was made against
    loaded: int  # forwards that loaded it
    used: int  # forwards that used it
    sessions: int  # sessions in which it was loaded or used
    last_session: str | None  # the latest such session (by creation time)

    @property
    def status(self) -> str:
        if self.used:
            return USED
        if self.loaded:
            return LOADED_NEVER_USED
        return NEVER_LOADED

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "id": self.id,
            "in_catalog": self.in_catalog,
            "loaded": self.loaded,
            "used": self.used,
            "sessions": self.sessions,
            "last_session": self.last_session,
            "status": self.status,
        }


@dataclass(frozen=True)
class UsageReport:
    entries: tuple[EntryUsage, ...]
    sessions: int
    forwards: int

    @property
    def loaded_never_used(self) -> tuple[EntryUsage, ...]:
        return tuple(e for e in self.entries if e.status == LOADED_NEVER_USED)

    @property
    def never_loaded(self) -> tuple[EntryUsage, ...]:
        """Catalog entries no session ever loaded (or used)."""
        return tuple(e for e in self.entries if e.in_catalog and e.status == NEVER_LOADED)

    def entry(self, kind: str, entry_id: str) -> EntryUsage | None:
        return next((e for e in self.entries if e.kind == kind and e.id == entry_id), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "sessions": self.sessions,
            "forwards": self.forwards,
            "entries": [e.to_json() for e in self.entries],
            "loaded_never_used": [f"{e.kind}:{e.id}" for e in self.loaded_never_used],
            "never_loaded": [f"{e.kind}:{e.id}" for e in self.never_loaded],
        }


@dataclass
class _Tally:
    loaded: int = 0
    used: int = 0
    sessions: int = 0
    last_session: str | None = None
    last_created: str = ""


def usage_from_sessions(sessions: Iterable[Session], catalog: Catalog) -> UsageReport:
    """Tally every session in `sessions` against `catalog`; entries that sessions loaded
    but the catalog no longer has are listed too (with `in_catalog` false)."""
    tallies: dict[tuple[str, str], _Tally] = {}
    session_count = forward_count = 0
    for session in sessions:
        session_count += 1
        session_id = session.id
        created = session.created_at
        touched: set[tuple[str, str]] = set()
        for fw in session.ran_forwards:
            forward_count += 1
            for kind, (loaded_kind, used_kind) in _KINDS.items():
                for entry_id in fw.callback_ids(loaded_kind):
                    tallies.setdefault((kind, entry_id), _Tally()).loaded += 1
                    touched.add((kind, entry_id))
                for entry_id in fw.callback_ids(used_kind):
                    tallies.setdefault((kind, entry_id), _Tally()).used += 1
                    touched.add((kind, entry_id))
        for key in touched:
            tally = tallies[key]
            tally.sessions += 1
            if created >= tally.last_created:
                tally.last_created, tally.last_session = created, session_id
    ordered = [(SKILL, s.id) for s in catalog.skills] + [(MEMORY, m.id) for m in catalog.memories]
    in_catalog = set(ordered)
    ordered += sorted(k for k in tallies if k not in in_catalog)
    nothing = _Tally()
    entries = tuple(
        EntryUsage(
            kind=kind,
            id=entry_id,
            in_catalog=(kind, entry_id) in in_catalog,
            loaded=tally.loaded,
            used=tally.used,
            sessions=tally.sessions,
            last_session=tally.last_session,
        )
        for kind, entry_id in ordered
        for tally in (tallies.get((kind, entry_id), nothing),)
    )
    return UsageReport(entries=entries, sessions=session_count, forwards=forward_count)


def render_usage(report: UsageReport) -> str:
    """A plain-text report (for the terminal and the clipboard)."""
    lines = [f"usage across {report.sessions} session(s), {report.forwards} forward(s)"]
    width = max((len(e.id) for e in report.entries), default=2)
    for e in report.entries:
        gone = "" if e.in_catalog else "  (not in the catalog now)"
        lines.append(
            f"{e.kind:<6} {e.id:<{width}}  loaded {e.loaded:>3}  used {e.used:>3}  {e.status}{gone}"
        )
    lines.append(f"loaded but never used: {len(report.loaded_never_used)}")
    lines.append(f"never loaded: {len(report.never_loaded)}")
    return "\n".join(lines) + "\n"
