"""Lint: where the studio's runs (axllm) show the catalog otherwise than a TypeScript app
(Ax), entry by entry (`core/ax/runtime_diff.py`). Information, not a fault: the author
learns that what the preview's Ax profile shows is not what a recorded session sent."""

from __future__ import annotations

from collections.abc import Sequence

from axmem_gui.core.ax.profile import AXLLM_PROFILE, TS_PROFILE, load_profile
from axmem_gui.core.ax.runtime_diff import (
    CLEANUP,
    CUT,
    ORDER,
    RuntimeDifference,
    entry_differences,
    order_differences,
)
from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.lint.model import Finding, finding

_CODES = {ORDER: "runtime-order", CLEANUP: "runtime-cleanup", CUT: "runtime-cut"}
_HINTS = {
    ORDER: "Preview both profiles (ax-24.0.21, axllm-25.4.6) to see each order; ids in one "
    "case and without accents sort the same in both.",
    CLEANUP: "Trim the id and name, give the skill a name, or give each skill its own id: "
    "then both runtimes list it the same.",
    CUT: "Put the words to be found before the first emoji, or within the first 600 characters.",
}


def runtime_findings(
    skills: Sequence[Skill],
    memories: Sequence[Memory],
    order: Sequence[RuntimeDifference] | None = None,
) -> list[Finding]:
    """The findings; `order`: `order_differences` of these entries, when known already
    (a session keeps them while the ids stay)."""
    if order is None:
        order = order_differences(skills, memories)
    differences = [
        *order,
        *entry_differences(skills, memories, load_profile(TS_PROFILE), load_profile(AXLLM_PROFILE)),
    ]
    return [
        finding(
            _CODES[d.kind],
            "skill" if d.entry_kind == "skill" else "memory",
            d.entry_id,
            d.message,
            _HINTS[d.kind],
        )
        for d in differences
    ]
