"""The SQL a catalog view's page is made of: the find filter, whose candidates come from
the trigram index (`schema.FIND_INDEXES`), and keyset bounds, so that where a page starts
costs nothing (the entry repositories, `store/entries.py`, put them together)."""

from __future__ import annotations

from typing import Any

from axmem_gui.core.catalog_rows import PageCursor
from axmem_gui.store.schema import FIND_INDEXES

#: A filter's trigrams queried at most (spread over it): more only narrow candidates
#: that LIKE checks anyway.
MAX_FILTER_TRIGRAMS = 24


def trigram_match(text: str) -> str | None:
    """An FTS5 query for rows holding every trigram of `text` (None under three
    characters): each trigram a quoted string, so no character is query syntax."""
    grams = [text[i : i + 3] for i in range(len(text) - 2)]
    if not grams:
        return None
    if len(grams) > MAX_FILTER_TRIGRAMS:
        step = (len(grams) - 1) / (MAX_FILTER_TRIGRAMS - 1)
        grams = [grams[round(i * step)] for i in range(MAX_FILTER_TRIGRAMS)]
    unique = dict.fromkeys(grams)
    return " AND ".join('"' + g.replace('"', '""') + '"' for g in unique)


def filter_clause(table: str, columns: tuple[str, ...], text_filter: str) -> tuple[str, list[Any]]:
    """The WHERE clause of `text_filter` over `table`: a case-insensitive (ASCII, as LIKE)
    substring of the id, a text column (`columns`) or the tags. From three characters on,
    the candidates come from the trigram index and LIKE only checks them; shorter filters
    have no trigram and read the table."""
    if not text_filter:
        return "", []
    escaped = text_filter.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    searched: tuple[str, ...] = (*columns, "tags")
    where = " OR ".join(f"{c} LIKE ? ESCAPE '\\'" for c in searched)
    likes: list[Any] = [f"%{escaped}%"] * len(searched)
    match = trigram_match(text_filter)
    if match is None:
        return f" WHERE ({where})", likes
    index = FIND_INDEXES[table][0]
    found = f"pk IN (SELECT rowid FROM {index} WHERE {index} MATCH ?)"
    return f" WHERE {found} AND ({where})", [match, *likes]


def keyset_bound(
    column: str, descending: bool, cursor: PageCursor, *, before: bool
) -> tuple[str, list[Any]]:
    """The condition of rows after (or before) `cursor` in the order `column` (descending
    or not), ties broken by pk ascending."""
    value, pk = cursor
    if column == "pk":
        later = descending == before  # a larger pk comes later in ascending order
        return ("pk > ?" if later else "pk < ?"), [pk]
    if descending == before:
        # after in ascending order, or before in descending: a larger key, or the same
        # key and a larger pk (descending, before: ties are pk-ascending, so smaller pk)
        if descending:
            return f"({column} > ? OR ({column} = ? AND pk < ?))", [value, value, pk]
        return f"({column}, pk) > (?, ?)", [value, pk]
    if descending:
        return f"({column} < ? OR ({column} = ? AND pk > ?))", [value, value, pk]
    return f"({column}, pk) < (?, ?)", [value, pk]
