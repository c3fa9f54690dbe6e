"""A map laid out for reading: sections with their items and scores, budget, eviction order."""

from __future__ import annotations

from axmem_gui.core.contextmap.budget import budget_of, eviction_order, pending_evictions
from axmem_gui.core.contextmap.diff import format_score
from axmem_gui.core.contextmap.state import ContextMapState
from axmem_gui.core.contextmap.text import SECTIONS, LineKind, parse_map


def map_summary_json(state: ContextMapState) -> dict[str, object]:
    parsed = parse_map(state.text)
    budget = budget_of(state)
    sections: list[dict[str, object]] = []
    for section in SECTIONS:
        sections.append(
            {
                "name": section.name,
                "title": section.title,
                "slug": section.slug,
                "present": section.name not in parsed.missing_sections,
                "items": [
                    {
                        "id": item.id,
                        "content": item.content,
                        "score": state.scores.get(item.id, 0),
                        "scored": item.id in state.scores,
                    }
                    for item in parsed.items
                    if item.section == section.name
                ],
            }
        )
    unknown_headers = [
        line.raw for line in parsed.lines if line.kind is LineKind.HEADER and line.section is None
    ]
    item_ids = parsed.item_ids
    return {
        "sections": sections,
        "unknownHeaders": unknown_headers,
        "duplicateIds": list(parsed.duplicate_ids),
        "nextItemNumber": parsed.next_item_number,
        "orphanScores": {k: v for k, v in state.scores.items() if k not in item_ids},
        "steps": state.steps,
        "infiniteEvolve": state.infinite_evolve,
        "evolveSteps": state.evolve_steps,
        "frozen": state.frozen,
        "budget": {
            "chars": budget.chars,
            "maxChars": budget.max_chars,
            "remaining": budget.remaining,
            "overBy": budget.over_by,
        },
        "evictionOrder": [c.item.id for c in eviction_order(state.text, state.scores)],
        "pendingEvictions": list(pending_evictions(state)),
    }


def render_summary(state: ContextMapState) -> str:
    budget = budget_of(state)
    evolve = (
        "infiniteEvolve"
        if state.infinite_evolve
        else f"evolveSteps {state.evolve_steps}" + (" (frozen)" if state.frozen else "")
    )
    lines = [
        f"context map: {budget.chars}/{budget.max_chars} chars (UTF-16), "
        f"steps {state.steps}, {evolve}"
    ]
    if not budget.fits:
        lines.append(f"over budget by {budget.over_by}")
    parsed = parse_map(state.text)
    for section in SECTIONS:
        items = [i for i in parsed.items if i.section == section.name]
        marker = "" if section.name not in parsed.missing_sections else " (no header)"
        lines.append(f"## {section.title} [{section.slug}]{marker}")
        for item in items:
            # '-' for an item with no score, as `contextmap diff` writes it (eviction
            # counts it as 0; the GUI says "unscored (counts as 0)").
            score = format_score(state.scores.get(item.id))
            lines.append(f"  [{item.id}] score {score}: {item.content}")
    for line in parsed.lines:
        if line.kind is LineKind.HEADER and line.section is None:
            lines.append(f"unknown header (items below it stay in the section above): {line.raw}")
    if parsed.duplicate_ids:
        lines.append("duplicate ids: " + ", ".join(parsed.duplicate_ids))
    orphans = [i for i in state.scores if i not in parsed.item_ids]
    if orphans:
        lines.append("scores kept for items no longer in the map: " + ", ".join(orphans))
    order = [c.item.id for c in eviction_order(state.text, state.scores)]
    lines.append("eviction order (first goes first): " + (", ".join(order) or "(no items)"))
    pending = pending_evictions(state)
    if pending:
        lines.append("the next update evicts at least: " + ", ".join(pending))
    return "\n".join(lines) + "\n"
