"""The catalog's kinds have one vocabulary (core/catalog.py): the plural kind the workspace,
controller, CLI and files use, and the singular noun messages and import plans use."""

from __future__ import annotations

import pytest

from axmem_gui.core.catalog import (
    CATALOG_KINDS,
    label,
    noun,
    plural,
    search_of,
    searched_by,
    singular,
)


def test_each_kind_has_one_singular_and_back() -> None:
    assert CATALOG_KINDS == ("skills", "memories")
    assert [singular(k) for k in CATALOG_KINDS] == ["skill", "memory"]
    assert [plural(singular(k)) for k in CATALOG_KINDS] == list(CATALOG_KINDS)
    assert [noun("memories", n) for n in (0, 1, 2)] == ["memories", "memory", "memories"]


def test_anything_else_is_not_a_kind() -> None:
    for bad in ("skill", "memorys", "", "scenarios"):
        with pytest.raises(KeyError):
            singular(bad)
    with pytest.raises(KeyError):
        plural("skills")


def test_labels_and_the_ax_call_of_each_kind() -> None:
    assert [label(k) for k in CATALOG_KINDS] == ["Skills", "Memories"]
    assert [search_of(k) for k in CATALOG_KINDS] == ["discover", "recall"]
    assert [searched_by(search_of(k)) for k in CATALOG_KINDS] == list(CATALOG_KINDS)
