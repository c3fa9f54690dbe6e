"""What a slow session action (a live run, a rerun, a replay) reports as it goes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class RunProgress:
    """Reported to the caller's progress callback (the GUI task runner relays it)."""

    kind: str  # forward_started | call_started | call_finished | forward_finished
    forward: int
    forwards: int
    calls: int  # model calls so far in the session
    stage: str | None = None
    message: str = ""


ProgressCallback = Callable[[RunProgress], None]
