"""Structural diff of two context maps: items by id, scores, steps, budget.

Items are matched by id (the first occurrence when an id repeats, as a viewer shows it).
A removed item cannot be told apart as deleted or evicted from the two maps alone: Ax
keeps the score of both; the update result (`UpdateResult.evicted`) says which.
"""

from __future__ import annotations

from dataclasses import dataclass

from axmem_gui.core.contextmap.state import ContextMapState
from axmem_gui.core.contextmap.text import LineKind, MapItem, item_age, parse_map, utf16_length


@dataclass(frozen=True)
class ItemChange:
    item_id: str
    before: MapItem
    after: MapItem


@dataclass(frozen=True)
class ScoreChange:
    item_id: str
    before: float | None
    after: float | None


@dataclass(frozen=True)
class MapDiff:
    added: tuple[MapItem, ...]
    removed: tuple[MapItem, ...]
    replaced: tuple[ItemChange, ...]
    moved: tuple[ItemChange, ...]
    rescored: tuple[ScoreChange, ...]
    steps: tuple[int, int]
    chars: tuple[int, int]
    max_chars: tuple[int, int]
    #: headers or decoration lines (non-blank, non-item) differ
    layout_changed: bool

    @property
    def is_empty(self) -> bool:
        return not (
            self.added
            or self.removed
            or self.replaced
            or self.moved
            or self.rescored
            or self.layout_changed
            or self.steps[0] != self.steps[1]
            or self.max_chars[0] != self.max_chars[1]
        )


def _first_by_id(items: tuple[MapItem, ...]) -> dict[str, MapItem]:
    out: dict[str, MapItem] = {}
    for item in items:
        out.setdefault(item.id, item)
    return out


def _layout(text: str) -> list[str]:
    return [
        line.raw.strip()
        for line in parse_map(text).lines
        if line.kind in (LineKind.HEADER, LineKind.DECORATION)
    ]


def diff_maps(before: ContextMapState, after: ContextMapState) -> MapDiff:
    old = _first_by_id(parse_map(before.text).items)
    new = _first_by_id(parse_map(after.text).items)
    score_ids = sorted(set(before.scores) | set(after.scores), key=lambda i: (item_age(i), i))
    return MapDiff(
        added=tuple(item for item_id, item in new.items() if item_id not in old),
        removed=tuple(item for item_id, item in old.items() if item_id not in new),
        replaced=tuple(
            ItemChange(item_id, old[item_id], item)
            for item_id, item in new.items()
            if item_id in old and old[item_id].content != item.content
        ),
        moved=tuple(
            ItemChange(item_id, old[item_id], item)
            for item_id, item in new.items()
            if item_id in old and old[item_id].section != item.section
        ),
        rescored=tuple(
            ScoreChange(i, before.scores.get(i), after.scores.get(i))
            for i in score_ids
            if before.scores.get(i) != after.scores.get(i)
        ),
        steps=(before.steps, after.steps),
        chars=(utf16_length(before.text), utf16_length(after.text)),
        max_chars=(before.max_chars, after.max_chars),
        layout_changed=_layout(before.text) != _layout(after.text),
    )


def _item_json(item: MapItem) -> dict[str, object]:
    return {"id": item.id, "section": item.section, "content": item.content}


def diff_to_json(diff: MapDiff) -> dict[str, object]:
    return {
        "added": [_item_json(i) for i in diff.added],
        "removed": [_item_json(i) for i in diff.removed],
        "replaced": [
            {"id": c.item_id, "before": c.before.content, "after": c.after.content}
            for c in diff.replaced
        ],
        "moved": [
            {"id": c.item_id, "before": c.before.section, "after": c.after.section}
            for c in diff.moved
        ],
        "rescored": [
            {"id": c.item_id, "before": c.before, "after": c.after} for c in diff.rescored
        ],
        "steps": {"before": diff.steps[0], "after": diff.steps[1]},
        "chars": {"before": diff.chars[0], "after": diff.chars[1]},
        "maxChars": {"before": diff.max_chars[0], "after": diff.max_chars[1]},
        "layoutChanged": diff.layout_changed,
        "empty": diff.is_empty,
    }


def format_score(score: float | None) -> str:
    if score is None:
        return "-"
    if isinstance(score, float) and score.is_integer():
        return str(int(score))
    return str(score)


def render_diff(diff: MapDiff) -> str:
    """A plain-text rendering for the terminal (one change per line, `+ - ~ > *` marks)."""
    lines = [
        f"steps: {diff.steps[0]} -> {diff.steps[1]}",
        f"chars: {diff.chars[0]} -> {diff.chars[1]} (maxChars "
        + (
            f"{diff.max_chars[0]})"
            if diff.max_chars[0] == diff.max_chars[1]
            else f"{diff.max_chars[0]} -> {diff.max_chars[1]})"
        ),
    ]
    for item in diff.added:
        lines.append(f"+ [{item.id}] ({item.section}) {item.content}")
    for item in diff.removed:
        lines.append(f"- [{item.id}] ({item.section}) {item.content}")
    for change in diff.replaced:
        lines.append(f"~ [{change.item_id}] ({change.after.section})")
        lines.append(f"    was: {change.before.content}")
        lines.append(f"    now: {change.after.content}")
    for change in diff.moved:
        lines.append(
            f"> [{change.item_id}] moved {change.before.section} -> {change.after.section}"
        )
    for score in diff.rescored:
        lines.append(
            f"* {score.item_id}: score {format_score(score.before)} -> {format_score(score.after)}"
        )
    if diff.layout_changed:
        lines.append("! headers or notes changed")
    if diff.is_empty:
        lines.append("no changes")
    return "\n".join(lines) + "\n"
