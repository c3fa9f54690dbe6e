"""What-if retrieval: rerun a recorded session's discover/recall calls against another
catalog, with no model call, and show per turn what would load differently.

The model's own choices (its search strings, the turns it took) are held fixed: this
answers "with today's catalog, would the same searches have found the same entries?".
Memories already loaded are excluded from later recalls exactly as Ax does, using what the
what-if run itself has loaded so far in that forward (each forward runs on a fresh agent).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from axmem_gui.core.catalog import Catalog, Memory, Skill
from axmem_gui.core.session.agent_config import select_catalog

if TYPE_CHECKING:
    from axmem_gui.core.session.model import SearchCall, Session


class RetrievalBackend(Protocol):
    """The catalog search that answers discover() and recall()."""

    @property
    def name(self) -> str: ...

    @property
    def profile(self) -> str | None: ...

    def discover(self, catalog: Catalog, searches: Sequence[str]) -> list[Skill]: ...

    def recall(
        self, catalog: Catalog, searches: Sequence[str], loaded_ids: Sequence[str]
    ) -> list[Memory]: ...


@dataclass(frozen=True)
class WhatIfCall:
    forward: int
    kind: str  # discover | recall
    stage: str
    turn: int
    searches: tuple[str, ...]
    recorded: tuple[str, ...]
    now: tuple[str, ...]
    content_changed: tuple[str, ...]

    @property
    def added(self) -> tuple[str, ...]:
        return tuple(x for x in self.now if x not in self.recorded)

    @property
    def removed(self) -> tuple[str, ...]:
        return tuple(x for x in self.recorded if x not in self.now)

    @property
    def same(self) -> bool:
        return self.recorded == self.now and not self.content_changed

    def to_json(self) -> dict[str, Any]:
        return {
            "forward": self.forward,
            "kind": self.kind,
            "stage": self.stage,
            "turn": self.turn,
            "searches": list(self.searches),
            "recorded": list(self.recorded),
            "now": list(self.now),
            "added": list(self.added),
            "removed": list(self.removed),
            "content_changed": list(self.content_changed),
            "same": self.same,
        }


@dataclass(frozen=True)
class WhatIfReport:
    backend: str
    profile: str | None
    calls: tuple[WhatIfCall, ...]
    recorded_backend: str | None

    @property
    def changed(self) -> bool:
        return any(not c.same for c in self.calls)

    def to_json(self) -> dict[str, Any]:
        return {
            "backend": self.backend,
            "profile": self.profile,
            "recorded_backend": self.recorded_backend,
            "changed": self.changed,
            "calls": [c.to_json() for c in self.calls],
        }


def _content_of(search: SearchCall) -> dict[str, str]:
    return {r.id: r.content if r.content is not None else "" for r in search.results}


def _agent_catalog(session: Session, catalog: Catalog) -> Catalog:
    config = session.agent.config
    return catalog if config is None else select_catalog(catalog, config)


def whatif_retrieval(session: Session, catalog: Catalog, backend: RetrievalBackend) -> WhatIfReport:
    """Recompute every recorded discover/recall call of `session` against `catalog` (the
    session agent's catalog filter is applied to it first)."""
    agent_catalog = _agent_catalog(session, catalog)
    calls: list[WhatIfCall] = []
    for fw in session.forwards:
        loaded_memories: list[str] = []  # each forward runs on a fresh agent
        for search in fw.search_calls:
            queries = list(search.searches)
            now_entries: list[Skill] | list[Memory]
            if search.kind == "discover":
                now_entries = backend.discover(agent_catalog, queries)
            else:
                now_entries = backend.recall(agent_catalog, queries, list(loaded_memories))
                loaded_memories.extend(m.id for m in now_entries if m.id not in loaded_memories)
            recorded_content = _content_of(search)
            changed = tuple(
                e.id
                for e in now_entries
                if e.id in recorded_content and recorded_content[e.id] != e.content
            )
            calls.append(
                WhatIfCall(
                    forward=fw.index,
                    kind=search.kind,
                    stage=search.stage or "",
                    turn=search.turn if search.turn is not None else 0,
                    searches=tuple(queries),
                    recorded=search.result_ids,
                    now=tuple(e.id for e in now_entries),
                    content_changed=changed,
                )
            )
    return WhatIfReport(
        backend=backend.name,
        profile=backend.profile,
        calls=tuple(calls),
        recorded_backend=session.search.backend if session.search is not None else None,
    )


def render_whatif(report: WhatIfReport) -> str:
    lines = [
        f"what-if retrieval with {report.backend}"
        + (f" (profile {report.profile})" if report.profile else "")
        + (f"; recorded with {report.recorded_backend}" if report.recorded_backend else "")
    ]
    if not report.calls:
        lines.append("the session made no discover or recall calls")
    for c in report.calls:
        head = (
            f"forward {c.forward + 1} · {c.stage or '?'} · turn {c.turn + 1} · "
            f"{c.kind}({', '.join(repr(s) for s in c.searches)})"
        )
        if c.same:
            lines.append(f"{head}: same {list(c.now)}")
            continue
        lines.append(f"{head}: DIFFERS")
        lines.append(f"  recorded: {list(c.recorded)}")
        lines.append(f"  now:      {list(c.now)}")
        if c.added:
            lines.append(f"  would newly load: {list(c.added)}")
        if c.removed:
            lines.append(f"  would no longer load: {list(c.removed)}")
        if c.content_changed:
            lines.append(f"  same id, content changed since the run: {list(c.content_changed)}")
    lines.append(
        "result: " + ("retrieval would differ" if report.changed else "retrieval unchanged")
    )
    return "\n".join(lines) + "\n"
