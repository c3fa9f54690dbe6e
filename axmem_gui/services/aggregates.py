"""What every aggregate service of a workspace shares: where the workspace is, and how a
service tells what it wrote.

A service publishes a `Change` on its workspace's `Notices` once the transaction that
wrote it has committed (never for a write that rolled back); the GUI's controller
subscribes and refreshes the views from it, so a view never refreshes before, or without,
the write it shows. Notices reach the subscribers of the handle that wrote: a job's own
connection on a worker thread has none (its caller reports the change when the job ends).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

#: The aggregates a change can be of ("*": anything; the views reload everything).
CHANGE_KINDS = (
    "*",
    "skills",
    "memories",
    "scenarios",
    "suites",
    "evals",
    "settings",
    "agents",
    "sessions",
    "contextmaps",
)


@dataclass(frozen=True, slots=True)
class Change:
    """`what` changed: the ids (entries) or names (documents) written, and whether any
    appeared or disappeared (`structural`: lists must reload, not refresh in place)."""

    what: str
    ids: tuple[str, ...] = ()
    structural: bool = True

    def __post_init__(self) -> None:
        if self.what not in CHANGE_KINDS:
            raise ValueError(f"not a kind of change: {self.what!r}")


Listener = Callable[[Change], None]


class Notices:
    """The change notices of one open workspace (one thread: its connection's)."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def publish(self, change: Change) -> None:
        for listener in list(self._listeners):
            listener(change)

    def publish_all(self, changes: Iterable[Change]) -> None:
        for change in changes:
            self.publish(change)


@dataclass(frozen=True, slots=True)
class WorkspaceAddress:
    """Where a workspace file is, as plain data a job can carry to another thread. Only
    services open it (`services.workspace.open_at`): a job gets this, or a reader built
    on it, never a connection (an SQLite connection belongs to the thread that made it)."""

    path: Path
