"""Errors that carry a message meant for the user (no traceback is ever shown for these)."""

from __future__ import annotations


class AxmemError(Exception):
    """Base for every error whose message is shown to the user as is."""


class InputError(AxmemError):
    """Bad input: a file, a setting, an argument. The message names what is wrong."""


class WorkspaceError(AxmemError):
    """A workspace cannot be opened or written; the file is left untouched."""


class WorkspaceBusyError(WorkspaceError):
    """Another program kept the workspace's write lock longer than this writer waited:
    nothing was written. The app's edits wait again off the GUI thread (ui/writes.py)."""

    def __init__(self, waited_s: float) -> None:
        super().__init__(
            f"another program is writing this workspace (waited {waited_s:.1f} s for it); "
            "the change was not saved (nothing was lost), try again"
        )
        self.waited_s = waited_s
