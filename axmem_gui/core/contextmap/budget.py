"""The character budget: how full a map is, and which items Ax evicts first.

Ax evicts after applying an update when the text is longer than `maxChars` (UTF-16 units):
items sorted by score ascending, then by id number ascending (oldest first, ids without a
number count as 0; a stable sort keeps text order for full ties), removed one at a time
until the text fits. Headers and decoration are never removed, so a budget below the
skeleton evicts every item and still does not fit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from axmem_gui.core.contextmap.state import ContextMapState
from axmem_gui.core.contextmap.text import (
    MapItem,
    item_age,
    parse_map,
    remove_item_lines,
    utf16_length,
)


@dataclass(frozen=True)
class EvictionCandidate:
    item: MapItem
    score: float
    age: int


@dataclass(frozen=True)
class Budget:
    chars: int
    max_chars: int

    @property
    def fits(self) -> bool:
        return self.chars <= self.max_chars

    @property
    def over_by(self) -> int:
        return max(0, self.chars - self.max_chars)

    @property
    def remaining(self) -> int:
        return max(0, self.max_chars - self.chars)

    @property
    def used_fraction(self) -> float:
        return self.chars / self.max_chars


def budget_of(state: ContextMapState) -> Budget:
    return Budget(utf16_length(state.text), state.max_chars)


def eviction_order(text: str, scores: Mapping[str, float]) -> tuple[EvictionCandidate, ...]:
    """Every item of the map, the one Ax would evict first first (one entry per id)."""
    candidates = [
        EvictionCandidate(item, scores.get(item.id, 0), item_age(item.id))
        for item in parse_map(text).items
    ]
    candidates.sort(key=lambda c: (c.score, c.age))
    seen: set[str] = set()
    unique = []
    for candidate in candidates:
        if candidate.item.id not in seen:
            seen.add(candidate.item.id)
            unique.append(candidate)
    return tuple(unique)


def evict_to_budget(
    text: str, scores: Mapping[str, float], max_chars: int
) -> tuple[str, tuple[str, ...]]:
    """Ax's `evictToBudget`: the text that fits (or has no items left) and the evicted ids."""
    if utf16_length(text) <= max_chars:
        return text, ()
    removed: list[str] = []
    for candidate in eviction_order(text, scores):
        removed.append(candidate.item.id)
        trial = remove_item_lines(text, removed)
        if utf16_length(trial) <= max_chars:
            return trial, tuple(removed)
    return remove_item_lines(text, removed), tuple(removed)


def pending_evictions(state: ContextMapState) -> tuple[str, ...]:
    """Ids the next update would evict if it changed nothing else (empty when it fits)."""
    return evict_to_budget(state.text, state.scores, state.max_chars)[1]
