"""The rows a map view shows: sections with their items, each item with its score, diff
marks against a comparison map and its place in Ax's eviction order. Plain data built
from core, so the Qt model stays a thin adapter and tests can check it without a view."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from axmem_gui.core.contextmap import (
    SECTIONS,
    ContextMapState,
    Section,
    diff_maps,
    eviction_order,
    parse_map,
    pending_evictions,
)


class Change(StrEnum):
    ADDED = "added"
    REMOVED = "removed"
    REPLACED = "replaced"
    MOVED = "moved"
    RESCORED = "rescored"


@dataclass(frozen=True)
class ItemRow:
    item_id: str
    section: str
    content: str
    #: None when the item has no score yet (Ax counts it as 0).
    score: float | None
    changes: frozenset[Change] = frozenset()
    before_content: str | None = None
    before_section: str | None = None
    before_score: float | None = None
    #: 1 = the first item Ax would evict; None for removed rows.
    evict_rank: int | None = None
    #: marked as the next to go: evicted by the next update (over budget), else first in line
    evict_next: bool = False
    #: the next update evicts it even if it changes nothing (the map is over budget)
    pending_evict: bool = False

    @property
    def removed(self) -> bool:
        return Change.REMOVED in self.changes

    @property
    def effective_score(self) -> float:
        return 0 if self.score is None else self.score


@dataclass(frozen=True)
class SectionRow:
    section: Section
    present: bool
    items: tuple[ItemRow, ...]

    @property
    def live_count(self) -> int:
        return sum(1 for item in self.items if not item.removed)


def next_to_evict(state: ContextMapState) -> tuple[str, ...]:
    """Ids marked "next out": what the next update evicts when the map is over budget,
    else the single item Ax would evict first once the map outgrows maxChars."""
    pending = pending_evictions(state)
    if pending:
        return pending
    order = eviction_order(state.text, state.scores)
    return (order[0].item.id,) if order else ()


def build_rows(
    state: ContextMapState, compare: ContextMapState | None = None
) -> tuple[SectionRow, ...]:
    """Six sections in Ax's order. With `compare` (the older map), items carry what changed
    since it, and its items that are gone appear as removed rows at the end of their old
    section."""
    parsed = parse_map(state.text)
    ranks = {c.item.id: i + 1 for i, c in enumerate(eviction_order(state.text, state.scores))}
    pending = frozenset(pending_evictions(state))
    marked = frozenset(next_to_evict(state))
    changes: dict[str, set[Change]] = {}
    before_content: dict[str, str] = {}
    before_section: dict[str, str] = {}
    removed_by_section: dict[str, list[ItemRow]] = {}
    if compare is not None:
        diff = diff_maps(compare, state)
        for item in diff.added:
            changes.setdefault(item.id, set()).add(Change.ADDED)
        for change in diff.replaced:
            changes.setdefault(change.item_id, set()).add(Change.REPLACED)
            before_content[change.item_id] = change.before.content
        for change in diff.moved:
            changes.setdefault(change.item_id, set()).add(Change.MOVED)
            before_section[change.item_id] = change.before.section
        for score in diff.rescored:
            # An added item's score is new along with it; no separate mark.
            if Change.ADDED not in changes.get(score.item_id, set()):
                changes.setdefault(score.item_id, set()).add(Change.RESCORED)
        for item in diff.removed:
            removed_by_section.setdefault(item.section, []).append(
                ItemRow(
                    item.id,
                    item.section,
                    item.content,
                    compare.scores.get(item.id),
                    frozenset({Change.REMOVED}),
                    before_score=compare.scores.get(item.id),
                )
            )
    seen: set[str] = set()
    sections = []
    for section in SECTIONS:
        rows = []
        for item in parsed.items:
            if item.section != section.name:
                continue
            # A repeated id is shown, but diff marks and ranks belong to its first line.
            first = item.id not in seen
            seen.add(item.id)
            item_changes = frozenset(changes.get(item.id, ())) if first else frozenset()
            rows.append(
                ItemRow(
                    item.id,
                    item.section,
                    item.content,
                    state.scores.get(item.id),
                    item_changes,
                    before_content=before_content.get(item.id) if first else None,
                    before_section=before_section.get(item.id) if first else None,
                    before_score=compare.scores.get(item.id) if compare is not None else None,
                    evict_rank=ranks.get(item.id) if first else None,
                    evict_next=first and item.id in marked,
                    pending_evict=first and item.id in pending,
                )
            )
        rows += removed_by_section.get(section.name, [])
        sections.append(
            SectionRow(section, section.name not in parsed.missing_sections, tuple(rows))
        )
    return tuple(sections)
