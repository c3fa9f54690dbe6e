"""What a slow session action (a live run, a rerun, a replay) reports as it goes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@runtime_checkable
class Cancellable(Protocol):
    """What cancels a run, rerun or replay from another thread (`services.sessions.
    cancel_token()` makes one that also aborts a model request in flight)."""

    def cancel(self) -> None: ...

    @property
    def cancelled(self) -> bool: ...


#: How a slow action is told to stop: a token, or a function asked before each step.
CancelLike = Cancellable | Callable[[], bool] | None


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
