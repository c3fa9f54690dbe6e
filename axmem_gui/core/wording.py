"""Counts in words, the same in the CLI, the services' messages and the views."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """'1 case', '2 cases', '0 memories' (`plural` when adding an s is wrong)."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
