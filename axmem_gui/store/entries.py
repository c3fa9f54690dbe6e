"""The catalog's repositories: skills and memories, each entry with a unique id, a
revision and its full history (the `revisions` table, which `RevisionLog` reads across
the workspace). Every write runs in one transaction (`Database.atomic`, savepoints when
nested) and keeps the find filter's trigram index in step; pages for lazy views are read
by keyset (`store/entry_queries.py`)."""

from __future__ import annotations

import sqlite3
from typing import Any, Generic, TypeVar

from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.catalog_rows import EntryMeta, PageCursor, Revision, StoredEntry
from axmem_gui.core.errors import ConflictError, ReadOnlyError, WorkspaceError
from axmem_gui.store.entry_queries import filter_clause, keyset_bound
from axmem_gui.store.errors import translate_errors
from axmem_gui.store.lean_sqlite_utils import Database
from axmem_gui.store.records import (
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

E = TypeVar("E", Skill, Memory)


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
            bound, bound_args = keyset_bound(column, descending, cursor, before=backward)
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
        bound, bound_args = keyset_bound(
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
        return filter_clause(self.table, self.columns, text_filter)

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
