"""Repositories: the only place that speaks SQL. Each write that belongs together runs
in one transaction (`Database.atomic`, savepoints when nested)."""

from __future__ import annotations

import builtins
import functools
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, ParamSpec, TypeVar

from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.catalog_rows import EntryMeta, PageCursor, Revision, StoredEntry
from axmem_gui.core.errors import ConflictError, ReadOnlyError, WorkspaceError
from axmem_gui.store.lean_sqlite_utils import Database
from axmem_gui.store.records import (
    ContextMapSnapshot,
    Document,
    SessionSummary,
    dumps,
    loads,
    memories_from_rows,
    memory_from_value,
    memory_to_row,
    now_iso,
    revision_from_row,
    skill_from_value,
    skill_to_row,
    skills_from_rows,
)
from axmem_gui.store.schema import FIND_INDEXES

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


E = TypeVar("E", Skill, Memory)


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




def _keyset_bound(
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


class _EntryRepository(Generic[E]):
    """Skills and memories share the same life: unique id, revision, full history."""

    table: str
    kind: str
    entry_type: type[E]
    columns: tuple[str, ...]
    #: JSON-valued columns and their empty value.
    json_columns: dict[str, Any] = {"tags": []}  # noqa: RUF012 - read-only class constant

    def __init__(self, db: Database, read_only: bool) -> None:
        self._db = db
        self._read_only = read_only
        self._pending_pk: int | None = None

    # --- conversion hooks -------------------------------------------------------------
    def _to_row(self, entry: E) -> dict[str, Any]:
        raise NotImplementedError

    def _from_value(self, value: dict[str, Any]) -> E:
        raise NotImplementedError

    # --- reads ------------------------------------------------------------------------
    def _select(self) -> str:
        cols = ", ".join((*self.columns, *self.json_columns))
        return f"SELECT {cols}, revision, created_at, updated_at FROM {self.table}"

    def _value(self, row: sqlite3.Row | tuple[Any, ...]) -> tuple[dict[str, Any], EntryMeta]:
        n = len(self.columns)
        value = dict(zip(self.columns, row[:n], strict=True))
        for i, (name, empty) in enumerate(self.json_columns.items()):
            value[name] = loads(row[n + i]) or type(empty)()
        m = n + len(self.json_columns)
        meta = EntryMeta(revision=row[m], created_at=row[m + 1], updated_at=row[m + 2])
        return value, meta

    def count(self) -> int:
        return int(self._db.execute(f"SELECT count(*) FROM {self.table}").fetchone()[0])

    def ids(self) -> list[str]:
        return [r[0] for r in self._db.execute(f"SELECT id FROM {self.table} ORDER BY pk")]

    def all(self) -> list[E]:
        """Entries in catalog order (insertion order)."""
        cols = ", ".join((*self.columns, *self.json_columns))
        rows = self._db.execute(f"SELECT {cols} FROM {self.table} ORDER BY pk").fetchall()
        return self._entries(rows)

    def _entries(self, rows: list[tuple[Any, ...]]) -> list[E]:
        """Entries of rows of the columns and JSON columns (no metadata: `all` reads the
        whole catalog, and the metadata it used to build went unused)."""
        n = len(self.columns)
        json_columns = list(self.json_columns.items())
        out = []
        for row in rows:
            value = dict(zip(self.columns, row[:n], strict=True))
            for i, (name, empty) in enumerate(json_columns):
                value[name] = loads(row[n + i]) or type(empty)()
            out.append(self._from_value(value))
        return out

    def get(self, entry_id: str) -> E | None:
        found = self._get_value(entry_id)
        return None if found is None else self._from_value(found[0])

    def revision_of(self, entry_id: str) -> int | None:
        row = self._db.execute(
            f"SELECT revision FROM {self.table} WHERE id = ?", [entry_id]
        ).fetchone()
        return None if row is None else int(row[0])

    def _get_value(self, entry_id: str) -> tuple[dict[str, Any], EntryMeta] | None:
        row = self._db.execute(f"{self._select()} WHERE id = ?", [entry_id]).fetchone()
        return None if row is None else self._value(row)

    def page(
        self, offset: int, limit: int, *, text_filter: str = "", order_by: str = "pk"
    ) -> list[tuple[E, EntryMeta]]:
        """One page for lazy views; `text_filter` matches id and text case-insensitively."""
        allowed = {"pk", "id", "updated_at", *self.columns}
        column = order_by.removesuffix(" desc")
        if column not in allowed:
            raise ValueError(f"cannot order by {order_by!r}")
        direction = "DESC" if order_by.endswith(" desc") else "ASC"
        where_params: tuple[str, list[Any]] = self._filter_sql(text_filter)
        where, params = where_params
        args: list[Any] = list(params)
        args.extend((limit, offset))
        sql = f"{self._select()}{where} ORDER BY {column} {direction}, pk LIMIT ? OFFSET ?"
        rows = self._db.execute(sql, args).fetchall()
        out = []
        for r in rows:
            value, meta = self._value(r)
            out.append((self._from_value(value), meta))
        return out

    def page_after(
        self,
        cursor: PageCursor | None,
        limit: int,
        *,
        text_filter: str = "",
        order_by: str = "pk",
    ) -> tuple[list[tuple[E, EntryMeta]], PageCursor | None]:
        """The `limit` entries after `cursor` (None: from the start) in `order_by` order
        (ties by pk), and the cursor of the last one (None when there was none).

        A keyset query: where the page starts costs nothing, unlike OFFSET, which reads and
        skips every row before it (a page near the end of 100,000 memories took seconds)."""
        rows, last = self.raw_page_after(
            cursor, limit, text_filter=text_filter, order_by=order_by
        )
        return [self.from_raw(r) for r in rows], last

    def from_raw(self, row: tuple[Any, ...]) -> tuple[E, EntryMeta]:
        """The entry and its metadata of a row of `raw_page_after` or `raw_row`."""
        value, meta = self._value(row[2:])
        return self._from_value(value), meta

    def raw_row(self, entry_id: str) -> tuple[Any, ...] | None:
        """One entry as `raw_page_after` gives it (for refreshing a row in place)."""
        row = self._db.execute(
            f"SELECT pk, pk, {self._select().removeprefix('SELECT ')} WHERE id = ?", [entry_id]
        ).fetchone()
        return None if row is None else tuple(row)

    def raw_page_after(
        self,
        cursor: PageCursor | None,
        limit: int,
        *,
        text_filter: str = "",
        order_by: str = "pk",
    ) -> tuple[list[tuple[Any, ...]], PageCursor | None]:
        """`page_after` as the database's rows, each a tuple of strings and numbers
        (convert one with `from_raw`, where it is shown). Lazy views keep pages of these:
        the cycle collector does not track such tuples, so 100,000 loaded rows add nothing
        to what each full collection walks (parsed entries added five objects a row)."""
        rows = self.raw_page(cursor, limit, text_filter=text_filter, order_by=order_by)
        last = (rows[-1][1], int(rows[-1][0])) if rows else None
        return rows, last

    def raw_page(
        self,
        cursor: PageCursor | None,
        limit: int,
        *,
        text_filter: str = "",
        order_by: str = "pk",
        backward: bool = False,
        skip: int = 0,
    ) -> list[tuple[Any, ...]]:
        """Up to `limit` rows next to `cursor` in `order_by` order ("pk", a column, or
        either with " desc"; ties by pk), as `raw_page_after` gives them, always in that
        order: forward, the rows after the cursor (None: from the first row); backward,
        the rows before it (None: from the last row), so the end of a list costs what its
        start does. `skip` leaves out that many rows next to the cursor first (a jump into
        the middle of a list: SQLite still steps over them, but by their keys only)."""
        column = self._order_column(order_by)
        descending = order_by.endswith(" desc")
        where, params = self._filter_sql(text_filter)
        args: list[Any] = list(params)
        if cursor is not None:
            bound, bound_args = _keyset_bound(column, descending, cursor, before=backward)
            body = where.removeprefix(" WHERE ")
            where = f" WHERE ({body}) AND {bound}" if body else f" WHERE {bound}"
            args.extend(bound_args)
        # Backward reads the order reversed (pk breaks ties ascending in both directions
        # of a column, so reversing flips it too).
        reverse = descending != backward
        order = f"{column} {'DESC' if reverse else 'ASC'}"
        if column != "pk":
            order += ", pk DESC" if backward else ", pk"
        if skip > 0:
            # The row before the page by its key alone (an order without an index sorts
            # the keys, not whole rows), then the page by keyset from it.
            found = self._db.execute(
                f"SELECT {column}, pk FROM {self.table}{where} ORDER BY {order} "
                "LIMIT 1 OFFSET ?",
                [*args, skip - 1],
            ).fetchone()
            if found is None:
                return []
            return self.raw_page(
                (found[0], int(found[1])), limit, text_filter=text_filter,
                order_by=order_by, backward=backward,
            )  # fmt: skip
        args.append(limit)
        sql = (
            f"SELECT pk AS _pk, {column} AS _key, "
            f"{self._select().removeprefix('SELECT ')}{where} "
            f"ORDER BY {order} LIMIT ?"
        )
        rows = [tuple(r) for r in self._db.execute(sql, args).fetchall()]
        if backward:
            rows.reverse()
        return rows

    def position(
        self, entry_id: str, *, text_filter: str = "", order_by: str = "pk"
    ) -> int | None:
        """Where `entry_id` stands among the rows `raw_page` gives (0: the first), or
        None when it is not one of them (absent, or the filter leaves it out)."""
        column = self._order_column(order_by)
        where, params = self._filter_sql(text_filter)
        body = where.removeprefix(" WHERE ")
        own = f" WHERE ({body}) AND id = ?" if body else " WHERE id = ?"
        args: list[Any] = list(params)
        args.append(entry_id)
        found = self._db.execute(f"SELECT {column}, pk FROM {self.table}{own}", args).fetchone()
        if found is None:
            return None
        bound, bound_args = _keyset_bound(
            column, order_by.endswith(" desc"), (found[0], int(found[1])), before=True
        )
        before = f" WHERE ({body}) AND {bound}" if body else f" WHERE {bound}"
        args = list(params)
        args.extend(bound_args)
        row = self._db.execute(f"SELECT count(*) FROM {self.table}{before}", args).fetchone()
        return int(row[0])

    def _order_column(self, order_by: str) -> str:
        allowed = {"pk", "id", "updated_at", *self.columns}
        column = order_by.removesuffix(" desc")
        if column not in allowed:
            raise ValueError(f"cannot order by {order_by!r}")
        return column

    def count_filtered(self, text_filter: str = "") -> int:
        where, params = self._filter_sql(text_filter)
        return int(
            self._db.execute(f"SELECT count(*) FROM {self.table}{where}", params).fetchone()[0]
        )

    def _filter_sql(self, text_filter: str) -> tuple[str, list[Any]]:
        """The WHERE clause of `text_filter`: a case-insensitive (ASCII, as LIKE) substring
        of the id, a text column or the tags. From three characters on, the candidates
        come from the trigram index (`schema.FIND_INDEXES`) and LIKE only checks them;
        shorter filters have no trigram and read the table."""
        if not text_filter:
            return "", []
        escaped = text_filter.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        columns: tuple[str, ...] = (*self.columns, "tags")
        where = " OR ".join(f"{c} LIKE ? ESCAPE '\\'" for c in columns)
        likes: list[Any] = [f"%{escaped}%"] * len(columns)
        match = trigram_match(text_filter)
        if match is None:
            return f" WHERE ({where})", likes
        index = FIND_INDEXES[self.table][0]
        found = f"pk IN (SELECT rowid FROM {index} WHERE {index} MATCH ?)"
        return f" WHERE {found} AND ({where})", [match, *likes]

    def history(self, entry_id: str) -> list[Revision]:
        rows = self._db.execute(
            "SELECT pk, kind, entry_id, revision, op, before, after, at, batch FROM revisions "
            "WHERE kind = ? AND entry_id = ? ORDER BY pk",
            [self.kind, entry_id],
        ).fetchall()
        return [revision_from_row(tuple(r)) for r in rows]

    # --- writes -----------------------------------------------------------------------
    def _guard(self) -> None:
        if self._read_only:
            raise ReadOnlyError("this workspace is open read-only; changes are disabled")

    def _log(
        self,
        entry_id: str,
        revision: int,
        op: str,
        before: dict[str, Any] | None,
        after: dict[str, Any] | None,
        batch: str | None,
        at: str,
    ) -> None:
        entry_pk, self._pending_pk = self._pending_pk, None
        self._db.execute(
            "INSERT INTO revisions (kind, entry_id, revision, op, before, after, at, batch, "
            "entry_pk) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                self.kind,
                entry_id,
                revision,
                op,
                None if before is None else dumps(before),
                None if after is None else dumps(after),
                at,
                batch,
                entry_pk,
            ],
        )

    def _free_former_pk(self, entry_id: str) -> int | None:
        """The row key the entry had when it was last deleted, if nobody took it since:
        re-creating it there keeps its place in catalog order."""
        row = self._db.execute(
            "SELECT entry_pk FROM revisions WHERE kind = ? AND entry_id = ? AND op = 'delete' "
            "ORDER BY pk DESC LIMIT 1",
            [self.kind, entry_id],
        ).fetchone()
        if row is None or row[0] is None:
            return None
        taken = self._db.execute(f"SELECT 1 FROM {self.table} WHERE pk = ?", [row[0]]).fetchone()
        return None if taken else int(row[0])

    def _last_logged_revision(self, entry_id: str) -> int:
        row = self._db.execute(
            "SELECT max(revision) FROM revisions WHERE kind = ? AND entry_id = ?",
            [self.kind, entry_id],
        ).fetchone()
        return int(row[0] or 0)

    def _log_position(self, pk: int) -> None:
        """Called right before `_log` of a delete: remembers where the entry stood."""
        self._pending_pk = pk

    @translate_errors
    def upsert(
        self,
        entry: E,
        *,
        expected_revision: int | None = None,
        batch: str | None = None,
        op: str | None = None,
    ) -> int:
        """Create or replace the entry with this id; returns its new revision.

        With `expected_revision`, refuse (ConflictError) if someone else changed it since;
        `expected_revision=0` means "must not exist yet"."""
        self._guard()
        row: dict[str, Any] = self._to_row(entry)
        with self._db.atomic():
            current = self._get_value(entry.id)
            actual = None if current is None else current[1].revision
            if expected_revision is not None and (actual or 0) != expected_revision:
                raise ConflictError(self.kind, entry.id, expected_revision, actual)
            at = now_iso()
            cols: list[str] = [*self.columns, *self.json_columns]
            values: list[Any] = [row[c] for c in self.columns]
            values.extend(dumps(row[c]) for c in self.json_columns)
            if current is None:
                # A re-created id (an undone delete, a redone create) continues its
                # revision numbers, so its history never shows the same number twice.
                first = self._last_logged_revision(entry.id) + 1
                placeholders = ", ".join("?" for _ in cols)
                self._db.execute(
                    f"INSERT INTO {self.table} (pk, {', '.join(cols)}, created_at, "
                    f"updated_at, revision) VALUES (?, {placeholders}, ?, ?, ?)",
                    [self._free_former_pk(entry.id), *values, at, at, first],
                )
                self._find_index("", entry.id)
                self._log(entry.id, first, op or "create", None, row, batch, at)
                return first
            before = current[0]
            if before == row:
                return current[1].revision
            revision = current[1].revision + 1
            sets = ", ".join(f"{c} = ?" for c in cols)
            self._find_index("delete", entry.id)
            self._db.execute(
                f"UPDATE {self.table} SET {sets}, updated_at = ?, revision = ? WHERE id = ?",
                [*values, at, revision, entry.id],
            )
            self._find_index("", entry.id)
            self._log(entry.id, revision, op or "update", before, row, batch, at)
            return revision

    @translate_errors
    def delete(
        self, entry_id: str, *, expected_revision: int | None = None, batch: str | None = None
    ) -> bool:
        self._guard()
        with self._db.atomic():
            current = self._get_value(entry_id)
            if current is None:
                if expected_revision is not None:
                    raise ConflictError(self.kind, entry_id, expected_revision, None)
                return False
            if expected_revision is not None and current[1].revision != expected_revision:
                raise ConflictError(self.kind, entry_id, expected_revision, current[1].revision)
            pk = self._db.execute(
                f"SELECT pk FROM {self.table} WHERE id = ?", [entry_id]
            ).fetchone()[0]
            self._find_index("delete", entry_id)
            self._db.execute(f"DELETE FROM {self.table} WHERE id = ?", [entry_id])
            self._log_position(pk)
            self._log(
                entry_id, current[1].revision + 1, "delete", current[0], None, batch, now_iso()
            )
            return True

    @translate_errors
    def rename(self, old_id: str, new_id: str, *, batch: str | None = None) -> None:
        """Change an entry's id, keeping its history under both ids."""
        self._guard()
        with self._db.atomic():
            current = self._get_value(old_id)
            if current is None:
                raise WorkspaceError(f"{self.kind} '{old_id}' does not exist")
            if self._get_value(new_id) is not None:
                raise WorkspaceError(f"{self.kind} '{new_id}' already exists")
            at = now_iso()
            # Above both ids' logs: the new id may have a history of its own.
            revision = max(current[1].revision, self._last_logged_revision(new_id)) + 1
            self._find_index("delete", old_id)
            self._db.execute(
                f"UPDATE {self.table} SET id = ?, updated_at = ?, revision = ? WHERE id = ?",
                [new_id, at, revision, old_id],
            )
            self._find_index("", new_id)
            after = dict(current[0], id=new_id)
            self._log(old_id, revision, "rename", current[0], after, batch, at)
            self._log(new_id, revision, "rename", current[0], after, batch, at)

    def _find_index(self, command: str, entry_id: str) -> None:
        """Keep the filter's trigram index (schema.FIND_INDEXES) in step with one row, in
        the write's transaction: "" adds the row as stored now, "delete" takes it out
        (before the row changes: an external-content index needs the old values). Not
        triggers: a trigger may not write a virtual table while the connection does not
        trust the schema (`PRAGMA trusted_schema = OFF`, connection.py)."""
        found = FIND_INDEXES.get(self.table)
        if found is None:
            return
        index, columns = found
        cols = ", ".join(columns)
        if command:
            self._db.execute(
                f"INSERT INTO {index} ({index}, rowid, {cols}) "
                f"SELECT ?, pk, {cols} FROM {self.table} WHERE id = ?",
                [command, entry_id],
            )
        else:
            self._db.execute(
                f"INSERT INTO {index} (rowid, {cols}) "
                f"SELECT pk, {cols} FROM {self.table} WHERE id = ?",
                [entry_id],
            )

    def restore(self, revision: Revision, *, batch: str | None = None) -> int:
        """Bring back the value an entry had after (or, for a delete, before) a revision."""
        value = revision.value
        if value is None:
            raise WorkspaceError("that revision holds no value to restore")
        if not isinstance(value, self.entry_type):
            raise WorkspaceError(f"that revision is not of a {self.kind}")
        return self.upsert(value, batch=batch, op="restore")


class SkillRepository(_EntryRepository[Skill]):
    table = "skills"
    kind = "skill"
    entry_type = Skill
    columns = ("id", "name", "description", "content")
    json_columns = {"tags": [], "extra": {}}  # noqa: RUF012 - read-only class constant

    def _to_row(self, entry: Skill) -> dict[str, Any]:
        return skill_to_row(entry)

    def _from_value(self, value: dict[str, Any]) -> Skill:
        return skill_from_value(value)

    def _entries(self, rows: list[tuple[Any, ...]]) -> list[Skill]:
        return skills_from_rows(rows)

    def stored(self, entry_id: str) -> StoredEntry | None:
        found = self._get_value(entry_id)
        return None if found is None else StoredEntry(skill_from_value(found[0]), found[1])


class MemoryRepository(_EntryRepository[Memory]):
    table = "memories"
    kind = "memory"
    entry_type = Memory
    columns = ("id", "content")

    def _to_row(self, entry: Memory) -> dict[str, Any]:
        return memory_to_row(entry)

    def _from_value(self, value: dict[str, Any]) -> Memory:
        return memory_from_value(value)

    def _entries(self, rows: list[tuple[Any, ...]]) -> list[Memory]:
        # `memory_from_value` of each row's value, without the dict between (100,000
        # memories are read at every start).
        return memories_from_rows(rows)

    def stored(self, entry_id: str) -> StoredEntry | None:
        found = self._get_value(entry_id)
        return None if found is None else StoredEntry(memory_from_value(found[0]), found[1])


class RevisionLog:
    """Workspace-wide history queries (batches, recent changes)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def batch(self, batch: str) -> list[Revision]:
        rows = self._db.execute(
            "SELECT pk, kind, entry_id, revision, op, before, after, at, batch FROM revisions "
            "WHERE batch = ? ORDER BY pk",
            [batch],
        ).fetchall()
        return [revision_from_row(tuple(r)) for r in rows]

    def count(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM revisions").fetchone()[0])


class DocumentRepository:
    """Named JSON documents: scenarios, suites, agent configs."""

    def __init__(self, db: Database, table: str, read_only: bool) -> None:
        self._db = db
        self._table = table
        self._read_only = read_only

    def list(self) -> builtins.list[str]:
        return [r[0] for r in self._db.execute(f"SELECT name FROM {self._table} ORDER BY name")]

    def count(self) -> int:
        return int(self._db.execute(f"SELECT count(*) FROM {self._table}").fetchone()[0])

    def document(self, name: str) -> Document | None:
        row = self._db.execute(
            f"SELECT name, data, revision, created_at, updated_at FROM {self._table} "
            "WHERE name = ?",
            [name],
        ).fetchone()
        if row is None:
            return None
        return Document(row[0], loads(row[1]), row[2], row[3], row[4])

    def get(self, name: str) -> dict[str, Any] | None:
        doc = self.document(name)
        return None if doc is None else doc.data

    @translate_errors
    def save(self, name: str, data: dict[str, Any], *, expected_revision: int | None = None) -> int:
        if self._read_only:
            raise ReadOnlyError("this workspace is open read-only; changes are disabled")
        with self._db.atomic():
            current = self.document(name)
            actual = None if current is None else current.revision
            if expected_revision is not None and (actual or 0) != expected_revision:
                raise ConflictError(self._table.rstrip("s"), name, expected_revision, actual)
            at = now_iso()
            if current is None:
                self._db.execute(
                    f"INSERT INTO {self._table} (name, data, created_at, updated_at, revision) "
                    "VALUES (?, ?, ?, ?, 1)",
                    [name, dumps(data), at, at],
                )
                return 1
            self._db.execute(
                f"UPDATE {self._table} SET data = ?, updated_at = ?, revision = revision + 1 "
                "WHERE name = ?",
                [dumps(data), at, name],
            )
            return current.revision + 1

    @translate_errors
    def delete(self, name: str) -> bool:
        if self._read_only:
            raise ReadOnlyError("this workspace is open read-only; changes are disabled")
        with self._db.atomic():
            cur = self._db.execute(f"DELETE FROM {self._table} WHERE name = ?", [name])
            return cur.rowcount > 0


class SuiteRepository(DocumentRepository):
    @translate_errors
    def record_run(self, name: str, passed: int, failed: int, result: dict[str, Any]) -> None:
        if self._read_only:
            return  # results of a read-only workspace live only in memory
        with self._db.atomic():
            self._db.execute(
                "INSERT INTO suite_runs (suite_name, run_at, passed, failed, result) "
                "VALUES (?, ?, ?, ?, ?)",
                [name, now_iso(), passed, failed, dumps(result)],
            )

    def last_run(self, name: str) -> dict[str, Any] | None:
        row = self._db.execute(
            "SELECT result FROM suite_runs WHERE suite_name = ? ORDER BY pk DESC LIMIT 1", [name]
        ).fetchone()
        return None if row is None else dict(loads(row[0]))


_EXCHANGE_KEYS = ("exchanges",)


class SessionRepository:
    """Recorded agent sessions. The session document is stored without its exchanges;
    each model exchange is a row of its own (ordered by seq) so long sessions page well."""

    def __init__(self, db: Database, read_only: bool) -> None:
        self._db = db
        self._read_only = read_only

    @translate_errors
    def save(self, doc: dict[str, Any]) -> str:
        if self._read_only:
            raise ReadOnlyError("this workspace is open read-only; changes are disabled")
        session_id = doc.get("id")
        if not isinstance(session_id, str) or not session_id:
            raise WorkspaceError("a session needs a non-empty string 'id'")
        exchanges = doc.get("exchanges") or []
        # The exchanges are rows of their own; the head keeps an empty list in their
        # place, so a session read back has its keys in the order it was written.
        head = {k: [] if k in _EXCHANGE_KEYS else v for k, v in doc.items()}
        provider = doc.get("provider") if isinstance(doc.get("provider"), dict) else {}
        assert isinstance(provider, dict)
        with self._db.atomic():
            self._db.execute("DELETE FROM sessions WHERE id = ?", [session_id])
            cur = self._db.execute(
                "INSERT INTO sessions (id, name, agent, provider, model, status, created_at, doc) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    session_id,
                    str(doc.get("name") or ""),
                    str(_agent_name(doc)),
                    str(provider.get("name") or provider.get("provider") or ""),
                    str(provider.get("model") or doc.get("model") or ""),
                    str(doc.get("status") or "complete"),
                    str(doc.get("created_at") or doc.get("createdAt") or now_iso()),
                    dumps(head),
                ],
            )
            session_pk = cur.lastrowid
            for seq, exchange in enumerate(exchanges):
                usage = exchange.get("usage") if isinstance(exchange, dict) else None
                usage = usage if isinstance(usage, dict) else {}
                self._db.execute(
                    "INSERT INTO session_exchanges (session_pk, seq, stage, digest, duration_ms, "
                    "prompt_tokens, completion_tokens, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        session_pk,
                        seq,
                        str(exchange.get("stage") or "") if isinstance(exchange, dict) else "",
                        str(exchange.get("digest") or "") if isinstance(exchange, dict) else "",
                        _number(exchange, "duration_ms", "durationMs"),
                        _int(usage.get("prompt_tokens", usage.get("promptTokens"))),
                        _int(usage.get("completion_tokens", usage.get("completionTokens"))),
                        dumps(exchange),
                    ],
                )
        return session_id

    def head(self, session_id: str) -> dict[str, Any] | None:
        """The session document without its exchanges (cheap for large sessions)."""
        row = self._db.execute("SELECT doc FROM sessions WHERE id = ?", [session_id]).fetchone()
        return None if row is None else dict(loads(row[0]))

    def get(self, session_id: str) -> dict[str, Any] | None:
        row = self._db.execute("SELECT pk, doc FROM sessions WHERE id = ?", [session_id]).fetchone()
        if row is None:
            return None
        doc = dict(loads(row[1]))
        doc["exchanges"] = [
            loads(r[0])
            for r in self._db.execute(
                "SELECT data FROM session_exchanges WHERE session_pk = ? ORDER BY seq", [row[0]]
            )
        ]
        return doc

    def list(self) -> builtins.list[SessionSummary]:
        rows = self._db.execute(
            "SELECT s.id, s.name, s.agent, s.provider, s.model, s.status, s.created_at, "
            "(SELECT count(*) FROM session_exchanges e WHERE e.session_pk = s.pk) "
            "FROM sessions s ORDER BY s.created_at, s.pk"
        ).fetchall()
        return [SessionSummary(*r) for r in rows]

    def count(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM sessions").fetchone()[0])

    @translate_errors
    def delete(self, session_id: str) -> bool:
        if self._read_only:
            raise ReadOnlyError("this workspace is open read-only; changes are disabled")
        with self._db.atomic():
            return self._db.execute("DELETE FROM sessions WHERE id = ?", [session_id]).rowcount > 0


def _agent_name(doc: dict[str, Any]) -> str:
    agent = doc.get("agent")
    if isinstance(agent, dict):
        return str(agent.get("name") or "")
    return str(agent or "")


def _number(obj: Any, *keys: str) -> float | None:
    if not isinstance(obj, dict):
        return None
    for key in keys:
        value = obj.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    timing = obj.get("timing")
    if isinstance(timing, dict):
        return _number(timing, *keys)
    return None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class EvalRunRow:
    """One stored eval run, without its data (for lists)."""

    id: str
    set_name: str
    status: str
    provider: str
    model: str
    started_at: str
    updated_at: str


class EvalRunRepository:
    """Eval runs: the stored report (set, provider, run records) keyed by the run id.
    `save` replaces the row, so the caller can write after every finished agent run."""

    def __init__(self, db: Database, read_only: bool) -> None:
        self._db = db
        self._read_only = read_only

    @translate_errors
    def save(self, data: dict[str, Any]) -> str:
        if self._read_only:
            raise ReadOnlyError("this workspace is open read-only; changes are disabled")
        run_id = data.get("id")
        if not isinstance(run_id, str) or not run_id:
            raise WorkspaceError("an eval run needs a non-empty string 'id'")
        eval_set = data.get("set") if isinstance(data.get("set"), dict) else {}
        provider = data.get("provider") if isinstance(data.get("provider"), dict) else {}
        assert isinstance(eval_set, dict) and isinstance(provider, dict)
        with self._db.atomic():
            self._db.execute(
                "INSERT INTO eval_runs (id, set_name, status, provider, model, started_at, "
                "updated_at, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET status = excluded.status, "
                "updated_at = excluded.updated_at, data = excluded.data",
                [
                    run_id,
                    str(eval_set.get("name") or ""),
                    str(data.get("status") or ""),
                    str(provider.get("name") or ""),
                    str(provider.get("model") or ""),
                    str(data.get("started_at") or now_iso()),
                    now_iso(),
                    dumps(data),
                ],
            )
        return run_id

    def get(self, run_id: str) -> dict[str, Any] | None:
        row = self._db.execute("SELECT data FROM eval_runs WHERE id = ?", [run_id]).fetchone()
        return None if row is None else dict(loads(row[0]))

    def list(self, set_name: str | None = None) -> builtins.list[EvalRunRow]:
        where, params = ("WHERE set_name = ?", [set_name]) if set_name is not None else ("", [])
        rows = self._db.execute(
            "SELECT id, set_name, status, provider, model, started_at, updated_at "
            f"FROM eval_runs {where} ORDER BY pk",
            params,
        ).fetchall()
        return [EvalRunRow(*r) for r in rows]

    def count(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM eval_runs").fetchone()[0])

    @translate_errors
    def delete(self, run_id: str) -> bool:
        if self._read_only:
            raise ReadOnlyError("this workspace is open read-only; changes are disabled")
        with self._db.atomic():
            return self._db.execute("DELETE FROM eval_runs WHERE id = ?", [run_id]).rowcount > 0


class ContextMapRepository:
    """Snapshots of context maps over time, per agent config and per session."""

    def __init__(self, db: Database, read_only: bool) -> None:
        self._db = db
        self._read_only = read_only

    @translate_errors
    def add(
        self,
        agent: str,
        state: dict[str, Any],
        *,
        label: str = "",
        session_id: str | None = None,
        update_info: dict[str, Any] | None = None,
    ) -> int:
        if self._read_only:
            raise ReadOnlyError("this workspace is open read-only; changes are disabled")
        with self._db.atomic():
            cur = self._db.execute(
                "INSERT INTO contextmap_snapshots (agent, session_id, label, created_at, state, "
                "update_info) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    agent,
                    session_id,
                    label,
                    now_iso(),
                    dumps(state),
                    None if update_info is None else dumps(update_info),
                ],
            )
            return int(cur.lastrowid or 0)

    def list(self, agent: str | None = None) -> builtins.list[ContextMapSnapshot]:
        sql = (
            "SELECT pk, agent, session_id, label, created_at, state, update_info "
            "FROM contextmap_snapshots"
        )
        params: builtins.list[Any] = []
        if agent is not None:
            sql += " WHERE agent = ?"
            params.append(agent)
        rows = self._db.execute(sql + " ORDER BY pk", params).fetchall()
        return [
            ContextMapSnapshot(r[0], r[1], r[2], r[3], r[4], loads(r[5]), loads(r[6])) for r in rows
        ]

    def get(self, pk: int) -> ContextMapSnapshot | None:
        for snap in self._iter_where("pk = ?", [pk]):
            return snap
        return None

    def _iter_where(self, where: str, params: builtins.list[Any]) -> Iterator[ContextMapSnapshot]:
        rows = self._db.execute(
            "SELECT pk, agent, session_id, label, created_at, state, update_info "
            f"FROM contextmap_snapshots WHERE {where} ORDER BY pk",
            params,
        ).fetchall()
        for r in rows:
            yield ContextMapSnapshot(r[0], r[1], r[2], r[3], r[4], loads(r[5]), loads(r[6]))

    def count(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM contextmap_snapshots").fetchone()[0])

    @translate_errors
    def delete(self, pk: int) -> bool:
        if self._read_only:
            raise ReadOnlyError("this workspace is open read-only; changes are disabled")
        with self._db.atomic():
            cur = self._db.execute("DELETE FROM contextmap_snapshots WHERE pk = ?", [pk])
            return cur.rowcount > 0


class SettingsRepository:
    """Workspace-level settings (travel with the file; app settings live in QSettings)."""

    def __init__(self, db: Database, read_only: bool) -> None:
        self._db = db
        self._read_only = read_only

    def get(self, key: str, default: Any = None) -> Any:
        row = self._db.execute(
            "SELECT value FROM workspace_settings WHERE key = ?", [key]
        ).fetchone()
        return default if row is None else loads(row[0])

    @translate_errors
    def set(self, key: str, value: Any) -> None:
        if self._read_only:
            raise ReadOnlyError("this workspace is open read-only; changes are disabled")
        with self._db.atomic():
            self._db.execute(
                "INSERT INTO workspace_settings (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [key, dumps(value)],
            )


Listener = Callable[[], None]
