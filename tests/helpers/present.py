"""Unwrapping an Optional the test expects to hold a value."""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def present(value: T | None) -> T:
    """`value`, which the test expects to be there (it fails here when it is None)."""
    assert value is not None
    return value
