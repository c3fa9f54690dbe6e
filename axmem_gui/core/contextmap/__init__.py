"""The Ax context map: parse, apply updates, evict, diff. Pure Python, exact to Ax.

What Ax does (TS `AxAgentContextMap` in `src/ax/agent/contextMap.ts`; axllm's private
`_context_map_*` helpers run the same algorithm):

* The map is Markdown text with six fixed sections (`cr` context_roadmap, `cu`
  context_understanding, `dc` domain_constants, `ps` parsing_schema, `rr` reusable_results,
  `ep` error_patterns). A `## TITLE` line names a section by name or title (case-, space- and
  hyphen-insensitive); `[cu-00001] content` lines are items; everything else is decoration,
  kept verbatim and never scored or evicted. Text is kept trimmed with one trailing newline;
  blank text becomes the 557-character template.
* After a successful forward, two model calls produce an update: the Distiller's `itemTags`
  (helpful +1, harmful/stale -1, neutral sets 0 if unset; only ids present in the map) and the
  Cartographer's `operations` (ADD to a known section with content; DELETE/REPLACE of an
  existing id via `item_id` or `itemId`; anything else silently dropped). ADDs get ids
  `<slug>-<5 digits>` numbered from the highest numeric suffix in the map + 1.
* If the text is then longer than `maxChars` (UTF-16 units), items are evicted lowest score
  first, oldest id first on ties, until it fits; their scores stay. `steps` grows by one even
  when nothing changed. With `infiniteEvolve` false the map freezes once
  `steps >= evolveSteps` (the update is skipped, no model call).

Where axllm's port differs from TS in a corner (Python's `\\s` in section names, an interior
carriage return or U+2028/U+2029 on an item line), this package follows TS.

Modules: `text` (format, parsing), `state` (state + TS/axllm shapes), `update` (apply),
`budget` (eviction order, budget), `diff` (structural diff), `summary` (reading view).
"""

from axmem_gui.core.contextmap.budget import (
    Budget,
    EvictionCandidate,
    budget_of,
    evict_to_budget,
    eviction_order,
    pending_evictions,
)
from axmem_gui.core.contextmap.diff import (
    ItemChange,
    MapDiff,
    ScoreChange,
    diff_maps,
    diff_to_json,
    render_diff,
)
from axmem_gui.core.contextmap.state import (
    DEFAULT_MAX_CHARS,
    ContextMapState,
    MapShape,
    StoredContextMap,
    axllm_state_value,
    parse_json_text,
    start_map_from_json_value,
    stored_map_from_json_value,
    stored_map_from_text,
    ts_snapshot_value,
)
from axmem_gui.core.contextmap.summary import map_summary_json, render_summary
from axmem_gui.core.contextmap.text import (
    INITIAL_TEXT,
    SECTIONS,
    LineKind,
    MapItem,
    MapLine,
    ParsedMap,
    Section,
    normalize_text,
    parse_map,
    section_for_name,
    utf16_length,
)
from axmem_gui.core.contextmap.update import (
    AddOperation,
    AppliedOperation,
    DeleteOperation,
    DroppedOperation,
    IgnoredTag,
    Operation,
    ReplaceOperation,
    UpdateResult,
    UpdateStatus,
    apply_update,
    update_payload_from_json_value,
    update_result_to_json,
)

__all__ = [
    "DEFAULT_MAX_CHARS",
    "INITIAL_TEXT",
    "SECTIONS",
    "AddOperation",
    "AppliedOperation",
    "Budget",
    "ContextMapState",
    "DeleteOperation",
    "DroppedOperation",
    "EvictionCandidate",
    "IgnoredTag",
    "ItemChange",
    "LineKind",
    "MapDiff",
    "MapItem",
    "MapLine",
    "MapShape",
    "Operation",
    "ParsedMap",
    "ReplaceOperation",
    "ScoreChange",
    "Section",
    "StoredContextMap",
    "UpdateResult",
    "UpdateStatus",
    "apply_update",
    "axllm_state_value",
    "budget_of",
    "diff_maps",
    "diff_to_json",
    "evict_to_budget",
    "eviction_order",
    "map_summary_json",
    "normalize_text",
    "parse_json_text",
    "parse_map",
    "pending_evictions",
    "render_diff",
    "render_summary",
    "section_for_name",
    "start_map_from_json_value",
    "stored_map_from_json_value",
    "stored_map_from_text",
    "ts_snapshot_value",
    "update_payload_from_json_value",
    "update_result_to_json",
    "utf16_length",
]
