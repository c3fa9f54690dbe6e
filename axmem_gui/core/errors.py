"""Errors that carry a message meant for the user (no traceback is ever shown for these)."""

from __future__ import annotations


class AxmemError(Exception):
    """Base for every error whose message is shown to the user as is."""


class InputError(AxmemError):
    """Bad input: a file, a setting, an argument. The message names what is wrong."""


class WorkspaceError(AxmemError):
    """A workspace cannot be opened or written; the file is left untouched."""


class ReadOnlyError(WorkspaceError):
    """A write to a workspace opened read-only."""


class ConflictError(WorkspaceError):
    """What the caller read changed since (another window, program or instance): the
    write names the revision (or value) it expected and the store holds another one.
    `expected`/`actual` are revisions (0 or None: absent); `message` replaces the
    revision-worded default."""

    def __init__(
        self,
        kind: str,
        key: str,
        expected: int | None,
        actual: int | None,
        message: str | None = None,
    ) -> None:
        if message is None:
            where = "was deleted" if actual is None else f"is now at revision {actual}"
            message = (
                f"{kind} '{key}' was changed elsewhere: you edited revision {expected}, "
                f"it {where}. Reload it, then apply your change again."
            )
        super().__init__(message)
        self.kind = kind
        self.entry_id = key
        self.expected = expected
        self.actual = actual


class WorkspaceBusyError(WorkspaceError):
    """Another program kept the workspace's write lock longer than this writer waited:
    nothing was written. The app's edits wait again off the GUI thread (ui/writes.py)."""

    def __init__(self, waited_s: float) -> None:
        super().__init__(
            f"another program is writing this workspace (waited {waited_s:.1f} s for it); "
            "the change was not saved (nothing was lost), try again"
        )
        self.waited_s = waited_s
