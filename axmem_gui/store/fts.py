"""A BM25 search backend over one catalog: an in-memory SQLite FTS5 index.

This is what a host `onSkillsSearch` / `onMemoriesSearch` backed by a conventional
full-text engine would return, so the retrieval bench can show it beside Ax's built-in
search. Documents have the same fields Ax ranks (id, name, description, content; memories
leave name and description empty) and the same field weights by default. FTS5 tokenizes
with `unicode61` (case and diacritics folded, no stemming, no stopwords), so its notion of
a term differs from Ax's; that difference is the point of the comparison.

Search strings are never passed to FTS5 as query syntax: each word becomes a quoted
string and the words are OR-ed, so `NOT`, `NEAR`, `*`, `:` or quotes in a search string
are plain text.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from axmem_gui.core.catalog import Memory, Skill

#: Column weights passed to bm25(): id, name, description, content (Ax: 1, 2, 2, 1).
DEFAULT_WEIGHTS: tuple[float, float, float, float] = (1.0, 2.0, 2.0, 1.0)
_WORD = re.compile(r"[^\W_]+")
_SCHEMA = (
    "CREATE VIRTUAL TABLE docs USING fts5("
    "id, name, description, content, key UNINDEXED, "
    "tokenize = 'unicode61 remove_diacritics 2')"
)


@dataclass(frozen=True)
class Bm25Hit:
    """One ranked document. `bm25` is FTS5's value (more negative is better);
    `score` is its negation, so bigger is better as in every other view."""

    id: str
    bm25: float
    rank: int

    @property
    def score(self) -> float:
        return -self.bm25


def query_words(text: str) -> list[str]:
    """The words of a search string as FTS5's unicode61 tokenizer splits them (letters
    and digits; everything else separates), in order, repeats removed."""
    return list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))


def fts_query(text: str) -> str | None:
    """A safe FTS5 MATCH expression: every word quoted, OR-ed; None without words."""
    words = query_words(text)
    if not words:
        return None
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)


class Bm25Index:
    """An FTS5 table in a private in-memory database. Safe to share between threads: a
    lock serializes every use of its connection (the bench searches it on the task
    runner while the GUI thread patches it after edits)."""

    def __init__(
        self,
        *,
        weights: tuple[float, float, float, float] = DEFAULT_WEIGHTS,
        content_chars: int | None = None,
    ) -> None:
        """`content_chars` cuts content to that many characters (None: index it all, as a
        host search would)."""
        # Built on a worker thread, patched on the GUI thread, searched on workers: the
        # connection changes threads, one user at a time (`_lock`).
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._lock = threading.RLock()
        self._db.execute(_SCHEMA)
        self._weights = weights
        self._content_chars = content_chars
        self._rowids: dict[str, int] = {}
        self._next_rowid = 1

    @classmethod
    def for_skills(cls, skills: Iterable[Skill], content_chars: int | None = None) -> Bm25Index:
        index = cls(content_chars=content_chars)
        index.upsert_skills(skills)
        return index

    @classmethod
    def for_memories(
        cls, memories: Iterable[Memory], content_chars: int | None = None
    ) -> Bm25Index:
        index = cls(content_chars=content_chars)
        index.upsert_memories(memories)
        return index

    def __len__(self) -> int:
        return len(self._rowids)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # ------------------------------------------------------------------ writing
    def _cut(self, content: str) -> str:
        return content if self._content_chars is None else content[: self._content_chars]

    def _upsert(self, rows: Iterable[tuple[str, str, str, str]]) -> None:
        """Rows of (id, name, description, content); a repeated id replaces the earlier
        document (Ax: the last catalog entry with an id wins)."""
        rows = list(rows)
        ids = [r[0] for r in rows]
        with self._lock:
            if len(set(ids)) == len(ids) and self._rowids.keys().isdisjoint(ids):
                self._insert_new(rows)
            else:
                self._replace(rows)

    def _replace(self, rows: list[tuple[str, str, str, str]]) -> None:
        with self._db:
            for entry_id, name, description, content in rows:
                old = self._rowids.get(entry_id)
                if old is not None:
                    self._db.execute("DELETE FROM docs WHERE rowid = ?", (old,))
                rowid = self._next_rowid
                self._next_rowid += 1
                self._db.execute(
                    "INSERT INTO docs (rowid, id, name, description, content, key) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (rowid, entry_id, name, description, self._cut(content), entry_id),
                )
                self._rowids[entry_id] = rowid

    def _insert_new(self, rows: list[tuple[str, str, str, str]]) -> None:
        """Rows of ids not indexed yet, in one statement and one transaction (a catalog
        of 100,000 entries in a few seconds instead of a minute)."""
        first = self._next_rowid
        self._next_rowid += len(rows)
        with self._db:
            self._db.executemany(
                "INSERT INTO docs (rowid, id, name, description, content, key) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    (first + i, entry_id, name, description, self._cut(content), entry_id)
                    for i, (entry_id, name, description, content) in enumerate(rows)
                ),
            )
        self._rowids.update((r[0], first + i) for i, r in enumerate(rows))

    def upsert_skills(self, skills: Iterable[Skill]) -> None:
        self._upsert((s.id, s.name, s.description, s.content) for s in skills)

    def upsert_memories(self, memories: Iterable[Memory]) -> None:
        self._upsert((m.id, "", "", m.content) for m in memories)

    def remove(self, ids: Iterable[str]) -> None:
        with self._lock, self._db:
            for entry_id in ids:
                rowid = self._rowids.pop(entry_id, None)
                if rowid is not None:
                    self._db.execute("DELETE FROM docs WHERE rowid = ?", (rowid,))

    # ------------------------------------------------------------------ searching
    def search(self, text: str, limit: int, exclude_ids: Sequence[str] = ()) -> list[Bm25Hit]:
        """The best `limit` documents for `text` (any word may match), best first; ties
        by id. Documents whose id is in `exclude_ids` are skipped."""
        match = fts_query(text)
        if match is None or limit <= 0:
            return []
        excluded = set(exclude_ids)
        w = self._weights
        try:
            with self._lock:
                rows = self._db.execute(
                    "SELECT key, bm25(docs, ?, ?, ?, ?) AS s FROM docs WHERE docs MATCH ? "
                    "ORDER BY s, key LIMIT ?",
                    (w[0], w[1], w[2], w[3], match, limit + len(excluded)),
                ).fetchall()
        except sqlite3.OperationalError:
            return []  # defensive: every word is quoted, so this should not happen
        hits: list[Bm25Hit] = []
        for key, value in rows:
            if key in excluded:
                continue
            hits.append(Bm25Hit(str(key), float(value), len(hits) + 1))
            if len(hits) == limit:
                break
        return hits
