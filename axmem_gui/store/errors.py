"""What a failed write of the workspace tells the user: SQLite's errors, worded by their
code, as the WorkspaceError every repository write raises (its transaction rolled back)."""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from axmem_gui.core.errors import WorkspaceError

P = ParamSpec("P")
R = TypeVar("R")


def explain_sqlite_error(exc: sqlite3.Error) -> str:
    """A message a user can act on, for the SQLite errors a write can meet. Decided by
    SQLite's error code, never by the text: a trigger's RAISE(ABORT, '...') can say
    anything, and whatever SQLite said is shown as SQLite's, not as ours."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = None if code is None else code & 0xFF
    reported = f"SQLite reported: {exc}"
    if primary == sqlite3.SQLITE_FULL:
        return "the disk is full: the change was not saved (nothing was lost); free some space"
    if primary in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return "another program is writing this workspace; the change was not saved, try again"
    if primary == sqlite3.SQLITE_READONLY:
        return "the workspace file cannot be written (read-only); the change was not saved"
    if primary in (sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return f"the workspace file could not be written; the change was not saved ({reported})"
    return f"the change was not saved ({reported})"


def translate_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Turn SQLite failures of a write into WorkspaceError (the transaction rolled back)."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except sqlite3.Error as exc:
            raise WorkspaceError(explain_sqlite_error(exc)) from exc

    return wrapper
