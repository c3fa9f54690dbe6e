"""Only our schema runs: a workspace holds exactly the objects our migrations create.

A `.axmem` file can come from anyone, and SQLite runs whatever its schema says: a trigger
fires on our INSERT (appending text to every imported skill, erasing history), a view
stands where a table should be (changing what the app shows), and `RAISE(...)` makes
SQLite report any text the author chose. So before anything reads or writes a workspace,
its `sqlite_master` is compared with what the migrations create for the file's schema
version (type, name, table and normalised SQL): any other trigger, view, virtual table,
index or changed definition is refused by name and the file is left untouched. The
comparison runs again whenever the schema cookie changes while the file is open
(`Guard.before_write`), because another program can add a trigger at any time.

Reading `sqlite_master` runs nothing: SQLite parses a schema, it executes triggers and
views only when a statement uses them.
"""

from __future__ import annotations

import functools
import re
import sqlite3
from dataclasses import dataclass

from axmem_gui.store import schema
from axmem_gui.store.lean_sqlite_utils import Database

#: Objects SQLite itself creates (ANALYZE, `PRAGMA optimize`, AUTOINCREMENT). Their names
#: are reserved: no CREATE statement can make one, so they carry no code.
_INTERNAL_TABLES = frozenset(
    {"sqlite_stat1", "sqlite_stat2", "sqlite_stat3", "sqlite_stat4", "sqlite_sequence"}
)
#: sqlite-utils' own bookkeeping table: its definition changed between sqlite-utils
#: releases, so it is checked by its columns, and its one index by what it indexes.
_MIGRATIONS_TABLE = "_sqlite_migrations"
_MIGRATIONS_COLUMNS = ("id", "migration_set", "name", "applied_at")
_MIGRATIONS_INDEX_SQL = "create unique index * on _sqlite_migrations(migration_set,name)"


@dataclass(frozen=True)
class SchemaObject:
    type: str
    name: str
    tbl_name: str
    sql: str | None


_TOKEN = re.compile(
    r"""
    (?P<comment>--[^\n]*|/\*.*?\*/)
    | (?P<string>'(?:[^']|'')*')
    | (?P<quoted>"(?:[^"]|"")*"|\[[^\]]*\]|`(?:[^`]|``)*`)
    | (?P<space>\s+)
    | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)
_PUNCTUATION = set("(),;")


def normalize_sql(sql: str | None) -> str | None:
    """The SQL with comments dropped, identifier quotes removed, words lowercased and
    whitespace reduced to single spaces between words (none around punctuation): two
    definitions compare equal when SQLite would read them the same, whichever program
    or version wrote the text. String literals are kept exactly."""
    if sql is None:
        return None
    out: list[str] = []
    pending_space = False
    for match in _TOKEN.finditer(sql):
        kind = match.lastgroup
        text = match.group()
        if kind in ("comment", "space"):
            pending_space = True
            continue
        if kind == "quoted":
            inner = text[1:-1]
            text = inner.replace('""', '"') if text[0] == '"' else inner.replace("``", "`")
            text = text.lower()
        elif kind == "other":
            text = text.lower()
        joins = out and out[-1][-1] not in _PUNCTUATION and text[0] not in _PUNCTUATION
        if pending_space and joins:
            out.append(" ")
        pending_space = False
        out.append(text)
    return "".join(out).strip()


def read_schema(conn: sqlite3.Connection) -> list[SchemaObject]:
    rows = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall()
    return [
        SchemaObject(str(t), str(n), str(tb), None if s is None else str(s))
        for t, n, tb, s in rows
    ]


@functools.cache
def expected_schema(version: int) -> dict[str, SchemaObject]:
    """What the first `version` migrations create, by name (built once per process in a
    private in-memory database)."""
    db = Database(memory=True, execute_plugins=False)
    names = schema.known_migration_names()
    stop = names[version] if version < len(names) else None
    schema.migrations.apply(db, stop_before=stop)
    return {o.name: o for o in read_schema(db.conn)}


def _shown(name: str) -> str:
    """A name from the file, quoted, with every character that is not printable (line
    breaks, controls, bidi overrides) escaped: it cannot forge or reorder our message."""
    escaped = "".join(
        ch if ch.isprintable() else _escape(ch)
        for ch in name.replace("\\", "\\\\").replace("'", "\\'")
    )
    return f"'{escaped[:200]}{'…' if len(escaped) > 200 else ''}'"


def _escape(ch: str) -> str:
    return f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}"


def _describe(obj: SchemaObject) -> str:
    name, table = _shown(obj.name), _shown(obj.tbl_name)
    if obj.type == "trigger":
        return f"a trigger named {name} (on {table})"
    if obj.type == "view":
        return f"a view named {name}"
    if obj.type == "index":
        return f"an index named {name} (on {table})"
    if obj.type == "table" and (obj.sql or "").lower().lstrip().startswith("create virtual"):
        return f"a virtual table named {name}"
    return f"a {obj.type} named {name}"


def _migrations_object_ok(conn: sqlite3.Connection, obj: SchemaObject) -> bool:
    if obj.type == "table":
        sql = normalize_sql(obj.sql) or ""
        if not sql.startswith(f"create table {_MIGRATIONS_TABLE}("):
            return False
        columns = tuple(
            str(r[1]) for r in conn.execute(f'PRAGMA table_info("{_MIGRATIONS_TABLE}")')
        )
        return columns == _MIGRATIONS_COLUMNS
    if obj.type == "index":
        if obj.sql is None:
            return obj.name.startswith("sqlite_autoindex_")
        sql = normalize_sql(obj.sql) or ""
        head, _, tail = _MIGRATIONS_INDEX_SQL.partition("*")
        name = sql[len(head) : -len(tail)]
        return sql.startswith(head) and sql.endswith(tail) and " " not in name
    return False


def foreign_objects(conn: sqlite3.Connection, version: int) -> list[str]:
    """What in the file the first `version` migrations did not create, described for a
    message: extra objects, and ours with another definition (empty: the schema is ours)."""
    expected = expected_schema(version)
    found: list[str] = []
    for obj in read_schema(conn):
        if obj.type == "table" and obj.name in _INTERNAL_TABLES:
            continue
        if obj.tbl_name == _MIGRATIONS_TABLE:
            if _migrations_object_ok(conn, obj):
                continue
            found.append(f"{_describe(obj)} that is not as this app defines it")
            continue
        mine = expected.get(obj.name)
        if mine is None:
            found.append(_describe(obj))
        elif (mine.type, mine.tbl_name) != (obj.type, obj.tbl_name) or normalize_sql(
            mine.sql
        ) != normalize_sql(obj.sql):
            found.append(f"{_describe(obj)} whose definition is not this app's")
    present = {obj.name for obj in read_schema(conn)}
    for name, mine in expected.items():
        if name not in present and mine.tbl_name != _MIGRATIONS_TABLE:
            found.append(f"no {mine.type} named {_shown(name)} (this app's schema has one)")
    return found


def refusal(found: list[str]) -> str:
    """The message for a schema holding objects we did not create (without the path)."""
    shown = "; ".join(found[:3]) + (f"; and {len(found) - 3} more" if len(found) > 3 else "")
    return (
        f"the workspace holds SQL that Ax Memory & Skills Studio did not create: {shown}. "
        "It could change what is saved or shown, so the workspace is not used and nothing "
        "in it runs; the file was not modified. If you trust the rest of the file, remove "
        "the object with the sqlite3 tool (DROP TRIGGER / DROP VIEW ...) and open it again."
    )
