"""Errors that carry a message meant for the user (no traceback is ever shown for these)."""

from __future__ import annotations


class AxmemError(Exception):
    """Base for every error whose message is shown to the user as is."""


class InputError(AxmemError):
    """Bad input: a file, a setting, an argument. The message names what is wrong."""


class WorkspaceError(AxmemError):
    """A workspace cannot be opened or written; the file is left untouched."""
