"""Reading a whole catalog takes a fast path per row (`memories_from_rows`,
`skills_from_rows`): it must read every row as the general per-row reading does, and a
damaged row must give the same "workspace file is damaged" error."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from axmem_gui.core.catalog import NO_EXTRA, Memory, Skill
from axmem_gui.core.errors import WorkspaceError
from axmem_gui.store.records import (
    loads,
    memories_from_rows,
    memory_from_row,
    skill_from_value,
    skills_from_rows,
)

TEXTS: tuple[Any, ...] = ("a", "", "é😀", None, 5, 2.5, b"A", b"\x00\xff")
TAGS: tuple[Any, ...] = (
    "[]", '["x"]', '["x","y"]', '["x"]', "0", "null", '""', "{}", "[1]", '["a",', '"x"',
    '["a\x01"]', None, b"[]", 7, "[]",
)  # fmt: skip
EXTRAS: tuple[Any, ...] = ("{}", '{"k":1}', "[1]", "null", "0", '{"k"', None, b"{}", "{}")


def _outcome(read: Any) -> Any:
    try:
        return ("ok", read())
    except WorkspaceError as exc:
        return ("error", str(exc))


def _general_skill(row: tuple[Any, ...]) -> Skill:
    """What the repository's general reading does with a row of the skills table."""
    value = dict(zip(("id", "name", "description", "content"), row[:4], strict=True))
    value["tags"] = loads(row[4]) or []
    value["extra"] = loads(row[5]) or {}
    return skill_from_value(value)


def test_every_memory_row_reads_as_memory_from_row_reads_it() -> None:
    for row in itertools.product(TEXTS, TEXTS, TAGS):
        fast = _outcome(lambda r=row: memories_from_rows([r]))
        general = _outcome(lambda r=row: [memory_from_row(*r)])
        assert fast == general, row


def test_every_skill_row_reads_as_the_general_reading_reads_it() -> None:
    rng = random.Random(20261201)
    rows = [
        (rng.choice(TEXTS), rng.choice(TEXTS), rng.choice(TEXTS), rng.choice(TEXTS),
         rng.choice(TAGS), rng.choice(EXTRAS))
        for _ in range(3000)
    ]  # fmt: skip
    rows += [("a", "A", "", "", tags, extra) for tags in TAGS for extra in EXTRAS]
    for row in rows:
        fast = _outcome(lambda r=row: skills_from_rows([r]))
        general = _outcome(lambda r=row: [_general_skill(r)])
        assert fast == general, row


def test_many_rows_share_decoded_tags_and_keep_their_order() -> None:
    rows = [(f"m{i}", f"c{i}", '["a","b"]' if i % 3 else "[]") for i in range(10)]
    memories = memories_from_rows(rows)
    assert [m.id for m in memories] == [f"m{i}" for i in range(10)]
    assert memories[1] == Memory("m1", "c1", ("a", "b"))
    assert memories[0].tags == () and memories[0].extra is NO_EXTRA
    with pytest.raises(WorkspaceError, match="damaged"):
        memories_from_rows([*rows, ("m", "c", '["a",')])
