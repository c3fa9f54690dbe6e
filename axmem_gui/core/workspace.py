"""What every layer may know of a workspace file without opening it: its suffix and the
shape of its counts (the store fills them, the navigator shows them)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

WORKSPACE_SUFFIX = ".axmem"


@dataclass(frozen=True, slots=True)
class WorkspaceCounts:
    skills: int
    memories: int
    scenarios: int
    suites: int
    agents: int
    sessions: int
    contextmaps: int
    evals: int = 0

    def to_json(self) -> dict[str, int]:
        return asdict(self)
