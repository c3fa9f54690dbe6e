"""Context-map use cases: the timeline of an agent's map, user edits, import and export.

The timeline of an agent config is every snapshot the workspace holds for it, across its
sessions and, within a session, before and after each update. Most come from the snapshot
table (filled when a session is recorded or seeded). A session stored without rows there
(imported with `axmem sessions import`, say) still shows: its entries are read from the
session document and carry no `pk`.

User edits never rewrite history: each edit returns a new `StoredContextMap`, computed with
core's own operations so the text is exactly what Ax would have written, and saving stores
it as a new snapshot labelled "edited" that names the snapshot it was based on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from axmem_gui.core.contextmap import (
    AddOperation,
    DeleteOperation,
    MapShape,
    ReplaceOperation,
    StoredContextMap,
    parse_json_text,
    parse_map,
    section_for_name,
    stored_map_from_json_value,
    stored_map_from_text,
)
from axmem_gui.core.contextmap.diff import format_score
from axmem_gui.core.contextmap.text import js_trim
from axmem_gui.core.contextmap.update import apply_operations
from axmem_gui.core.errors import InputError
from axmem_gui.core.jsout import json_dumps
from axmem_gui.core.records import to_json_value
from axmem_gui.core.session.app_session import forwards_read, needs_exchanges
from axmem_gui.core.session.derive import map_snapshots
from axmem_gui.core.session.map_records import MapSnapshot
from axmem_gui.core.session.model import Session
from axmem_gui.services.agents import AgentService
from axmem_gui.services.contextmap_updates import based_on_key, describe_update
from axmem_gui.services.files import read_utf8_file, write_file_atomic
from axmem_gui.services.session_store import SessionService
from axmem_gui.services.store_access import store_of
from axmem_gui.store import Workspace

if TYPE_CHECKING:
    from axmem_gui.services.workspace import OpenWorkspace

__all__ = ["describe_update"]  # (the update records' reader: services.contextmap_updates)

EDITED_LABEL = "edited"
IMPORTED_LABEL = "imported"
SNAPSHOT_FILE_FILTERS = ("json", "md", "txt")
# Characters that end a line for Ax (JS `.` refuses them): an item must stay on one line.
_LINE_BREAKS = re.compile("[\r\n\u2028\u2029]+")


@dataclass(frozen=True)
class TimelineEntry:
    """One snapshot of an agent's map, as the timeline lists it."""

    key: str
    pk: int | None
    agent: str
    session_id: str | None
    session_name: str
    label: str
    created_at: str
    stored: StoredContextMap
    update: Mapping[str, Any] | None

    @property
    def step(self) -> int:
        return self.stored.state.steps

    @property
    def chars(self) -> int:
        return self.stored.state.chars

    @property
    def based_on(self) -> str | None:
        """The key of the snapshot an edited snapshot was made from, when known."""
        return based_on_key(self.update)


def snapshot_key(pk: int) -> str:
    return f"snapshot:{pk}"


# --- the timeline ------------------------------------------------------------------------


def _read_state(value: object, source: str) -> StoredContextMap | None:
    try:
        return stored_map_from_json_value(value, source)
    except InputError:
        # A snapshot the core cannot read is left out rather than breaking the whole view;
        # `axmem contextmap show` on its exported state names the problem.
        return None


def _sessions_without_rows(ws: Workspace, stored_sessions: set[str]) -> list[Session]:
    """Stored sessions (their heads: the maps need no exchanges) with maps and no
    snapshot rows. An app's recording that left its map updates to readers is read
    whole: they are read from its map calls."""
    service = SessionService(ws)
    out = []
    for head in service.heads():
        if head.id in stored_sessions:
            continue
        session = (service.find(head.id) or head) if needs_exchanges(head) else head
        if session_map_snapshots(session):
            out.append(session)
    return out


def session_map_snapshots(session: Session) -> list[MapSnapshot]:
    """The map snapshots of a session, computed from its forwards' maps and update
    records (what `axmem verify` and replay check; an app's recording's updates read as
    `app_session.map_update_of` reads them), not read from the file's
    `contextMapSnapshots` copy; a session without forwards falls back to that copy."""
    if session.forwards:
        return map_snapshots(forwards_read(session))
    return list(session.map_snapshots or ())


def session_map_at(session: Session, forward: int, which: str, source: str) -> StoredContextMap:
    """The map of a session before or after forward `forward` (1-based), for
    `axmem contextmap show/diff FILE --forward N`."""
    fws = session.forwards
    with_map = [f for f in fws if f.ran and f.context_map_after]
    if not any(f.context_map_before or f.context_map_after for f in fws):
        raise InputError(f"{source}: this session has no context map")
    if not 1 <= forward <= len(fws):
        raise InputError(
            f"{source}: --forward {forward} is out of range (the session has {len(fws)} "
            f"forward{'s' if len(fws) != 1 else ''})"
        )
    fw = fws[forward - 1]
    key = "context_map_before" if which == "before" else "context_map_after"
    value = fw.context_map_before if which == "before" else fw.context_map_after
    if value is None:
        ran = f"{len(with_map)} forward(s) ran with a map"
        raise InputError(f"{source}: forward {forward} has no map {which} it ({ran})")
    stored = _read_state(value, f"{source}: forwards[{forward - 1}].{key}")
    if stored is None:
        raise InputError(f"{source}: forwards[{forward - 1}].{key} is not a context map")
    return stored


def map_agents(open_ws: OpenWorkspace) -> list[str]:
    """Agent names with a context map: from snapshots, agent configs and sessions."""
    ws = store_of(open_ws)
    snapshots = ws.contextmaps.list()
    names = {snap.agent for snap in snapshots}
    for agent in AgentService(ws).all():
        if agent.config is not None and agent.config.context_map is not None:
            names.add(agent.name)
    stored_sessions = {s.session_id for s in snapshots if s.session_id}
    names.update(s.agent.name for s in _sessions_without_rows(ws, stored_sessions))
    return sorted(names, key=lambda n: (n == "", n.lower()))


def agents_with_snapshots(open_ws: OpenWorkspace) -> set[str]:
    """The agents with a stored snapshot (imported, edited or recorded)."""
    return {snap.agent for snap in store_of(open_ws).contextmaps.list()}


def snapshot_count(open_ws: OpenWorkspace) -> int:
    """Every snapshot the context map timelines list, over all agents: the stored ones
    plus those recorded inside sessions that have no stored rows (a live run's maps)."""
    ws = store_of(open_ws)
    stored = ws.contextmaps.list()
    stored_sessions = {s.session_id for s in stored if s.session_id}
    in_sessions = sum(
        len(session_map_snapshots(s)) for s in _sessions_without_rows(ws, stored_sessions)
    )
    return len(stored) + in_sessions


def timeline(open_ws: OpenWorkspace, agent: str) -> list[TimelineEntry]:
    """Every snapshot of `agent`'s map, oldest first: sessions in the order they ran (their
    snapshots in recorded order), then snapshots made outside a session (imported, edited)
    by the time they were made."""
    ws = store_of(open_ws)
    sessions = {s.id: s for s in SessionService(ws).rows()}
    entries: list[tuple[tuple[str, int, int], TimelineEntry]] = []
    stored_sessions: set[str] = set()
    for snap in ws.contextmaps.list():
        if snap.session_id:
            stored_sessions.add(snap.session_id)
        if snap.agent != agent:
            continue
        stored = _read_state(snap.state, f"snapshot {snap.pk}")
        if stored is None:
            continue
        row = sessions.get(snap.session_id or "")
        when = row.created_at if row is not None else snap.created_at
        entries.append(
            (
                (when, 0, snap.pk),
                TimelineEntry(
                    key=snapshot_key(snap.pk),
                    pk=snap.pk,
                    agent=snap.agent,
                    session_id=snap.session_id,
                    session_name=row.label if row else "",
                    label=snap.label,
                    created_at=snap.created_at,
                    stored=stored,
                    update=snap.update_info,
                ),
            )
        )
    for session in _sessions_without_rows(ws, stored_sessions):
        if session.agent.name != agent:
            continue
        when = session.created_at
        for i, recorded in enumerate(session_map_snapshots(session)):
            stored = _read_state(recorded.state, f"session {session.id}: snapshot {i}")
            if stored is None:
                continue
            entries.append(
                (
                    (when, 1, i),
                    TimelineEntry(
                        key=f"session:{session.id}:{i}",
                        pk=None,
                        agent=agent,
                        session_id=session.id,
                        session_name=session.label,
                        label=recorded.label,
                        created_at=when,
                        stored=stored,
                        update=_as_object(to_json_value(recorded.update)),
                    ),
                )
            )
    entries.sort(key=lambda pair: pair[0])
    return [entry for _, entry in entries]


def _as_object(value: object) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def previous_key(entries: Sequence[TimelineEntry], index: int) -> str | None:
    """What "the previous snapshot" of entry `index` is: the one an edit was based on,
    else the one listed before it."""
    based_on = entries[index].based_on
    if based_on is not None and any(e.key == based_on for e in entries):
        return based_on
    return entries[index - 1].key if index > 0 else None


# --- edits (each returns a new map; history is never rewritten) ---------------------------


def _one_line(content: str, what: str) -> str:
    # Trimmed as JavaScript trims: Ax would not see an item whose text is only JS whitespace.
    text = js_trim(_LINE_BREAKS.sub(" ", content))
    if not text:
        raise InputError(f"{what}: the item text must not be empty")
    return text


def _require_item(stored: StoredContextMap, item_id: str) -> None:
    if item_id not in parse_map(stored.state.text).item_ids:
        raise InputError(f"no item '{item_id}' in this map")


def _with_text(
    stored: StoredContextMap, text: str, scores: Mapping[str, float]
) -> StoredContextMap:
    return stored.with_state(replace(stored.state, text=text, scores=dict(scores)))


def edit_item_text(stored: StoredContextMap, item_id: str, content: str) -> StoredContextMap:
    """Replace an item's text, as a Cartographer REPLACE would (its score stays)."""
    _require_item(stored, item_id)
    op = ReplaceOperation(item_id, _one_line(content, item_id))
    text, _, _ = apply_operations(stored.state.text, [(0, op)])
    return _with_text(stored, text, stored.state.scores)


def add_item(stored: StoredContextMap, section: str, content: str) -> tuple[StoredContextMap, str]:
    """Add an item to a section, as a Cartographer ADD would; returns the new item's id."""
    found = section_for_name(section)
    if found is None:
        raise InputError(f"unknown section {section!r}")
    op = AddOperation(found.name, _one_line(content, found.name))
    text, applied, _ = apply_operations(stored.state.text, [(0, op)])
    return _with_text(stored, text, stored.state.scores), applied[0].item_id


def delete_item(stored: StoredContextMap, item_id: str) -> StoredContextMap:
    """Delete an item, as a Cartographer DELETE would, and drop its score: Ax numbers the
    next ADD from the highest id left in the map, so a kept score could land on a new item."""
    _require_item(stored, item_id)
    text, _, _ = apply_operations(stored.state.text, [(0, DeleteOperation(item_id))])
    scores = {k: v for k, v in stored.state.scores.items() if k != item_id}
    return _with_text(stored, text, scores)


def set_score(stored: StoredContextMap, item_id: str, score: float | None) -> StoredContextMap:
    """Set an item's score, or clear it (None: unscored, which Ax counts as 0)."""
    _require_item(stored, item_id)
    scores = dict(stored.state.scores)
    if score is None:
        scores.pop(item_id, None)
    else:
        scores[item_id] = int(score) if float(score).is_integer() else float(score)
    return stored.with_state(replace(stored.state, scores=scores))


def set_evolution(
    stored: StoredContextMap, infinite_evolve: bool, evolve_steps: int | None
) -> StoredContextMap:
    """Keep evolving forever, or freeze after `evolve_steps` updates (Ax skips the update
    once `steps >= evolveSteps`; 0 or the current step count freezes it now)."""
    if infinite_evolve:
        return stored.with_state(replace(stored.state, infinite_evolve=True, evolve_steps=None))
    if evolve_steps is None or evolve_steps < 0:
        raise InputError("evolveSteps must be a non-negative integer when infiniteEvolve is off")
    return stored.with_state(
        replace(stored.state, infinite_evolve=False, evolve_steps=int(evolve_steps))
    )


def set_max_chars(stored: StoredContextMap, max_chars: int) -> StoredContextMap:
    if max_chars <= 0:
        raise InputError(f"maxChars must be a positive integer, got {max_chars}")
    return stored.with_state(replace(stored.state, max_chars=int(max_chars)))


def describe_score(score: float | None) -> str:
    return "unscored" if score is None else format_score(score)


def save_edited(
    open_ws: OpenWorkspace,
    agent: str,
    stored: StoredContextMap,
    base: TimelineEntry,
    edits: Iterable[str],
) -> int:
    """Store an edited map as a new snapshot (same shape as its base); returns its pk."""
    return store_of(open_ws).contextmaps.add(
        agent,
        stored.to_json_value(),
        label=EDITED_LABEL,
        session_id=None,
        update_info={
            "kind": "edit",
            "status": "edited",
            "basedOn": {"key": base.key, "pk": base.pk, "label": base.label},
            "edits": list(edits),
        },
    )


# --- files -------------------------------------------------------------------------------


def read_snapshot_file(path: Path) -> StoredContextMap:
    """A TS `AxAgentContextMapSnapshot` or axllm `context_map` dict (`.json`, shape
    detected), or map text (any other suffix). Errors name the file and field."""
    text = read_utf8_file(path, "snapshot file")
    if path.suffix.lower() == ".json":
        return stored_map_from_json_value(parse_json_text(text, str(path)), str(path))
    return stored_map_from_text(text)


def import_snapshot(open_ws: OpenWorkspace, agent: str, path: Path) -> int:
    """Read a snapshot file and store it as a new snapshot of `agent`; returns its pk."""
    stored = read_snapshot_file(path)
    return store_of(open_ws).contextmaps.add(
        agent,
        stored.to_json_value(),
        label=IMPORTED_LABEL,
        update_info={"kind": "import", "source": path.name, "shape": stored.shape.value},
    )


def snapshot_value(stored: StoredContextMap, shape: MapShape) -> dict[str, object]:
    """The map in `shape`. Converting to a TS snapshot drops `evolveSteps` while the map
    evolves forever, as `AxAgentContextMap` does."""
    state = stored.state
    if shape is MapShape.TS_SNAPSHOT:
        if state.infinite_evolve:
            state = replace(state, evolve_steps=None)
        return StoredContextMap(state, MapShape.TS_SNAPSHOT).to_json_value()
    if stored.shape is MapShape.AXLLM:
        return stored.to_json_value()
    return StoredContextMap(state, MapShape.AXLLM).to_json_value()


def export_snapshot(stored: StoredContextMap, shape: MapShape, path: Path) -> None:
    """Write the map in `shape` as JSON, atomically (a failed write leaves no half file)."""
    text = json_dumps(snapshot_value(stored, shape), indent=2) + "\n"
    write_file_atomic(path, text, "snapshot file")
