"""Workspace schema: append-only migrations, applied on open.

Never edit a migration once released: add a new one at the end. The schema version of a
workspace is the number of migrations applied to it (also mirrored in PRAGMA user_version
so other tools can read it without knowing our tables).
"""

from __future__ import annotations

from axmem_gui.store.lean_sqlite_utils import Database, Migrations

MIGRATION_SET = "axmem"
#: PRAGMA application_id of every workspace file: "AXMM" in ASCII.
APPLICATION_ID = 0x41584D4D

migrations = Migrations(MIGRATION_SET)


@migrations(name="m001_catalog")
def m001_catalog(db: Database) -> None:
    db.executescript(
        """
        CREATE TABLE skills (
            pk INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL,
            description TEXT NOT NULL DEFAULT '',
            content TEXT NOT NULL DEFAULT '',
            tags TEXT NOT NULL DEFAULT '[]',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            revision INTEGER NOT NULL DEFAULT 1
        );
        CREATE TABLE memories (
            pk INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            content TEXT NOT NULL DEFAULT '',
            tags TEXT NOT NULL DEFAULT '[]',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            revision INTEGER NOT NULL DEFAULT 1
        );
        -- Every change keeps the full previous and new value, so history, diff and
        -- restore never depend on anything else.
        CREATE TABLE revisions (
            pk INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,
            entry_id TEXT NOT NULL,
            revision INTEGER NOT NULL,
            op TEXT NOT NULL CHECK (op IN ('create', 'update', 'delete', 'restore', 'rename')),
            before TEXT,
            after TEXT,
            at TEXT NOT NULL,
            batch TEXT
        );
        CREATE INDEX revisions_entry ON revisions (kind, entry_id, pk);
        CREATE INDEX revisions_batch ON revisions (batch);
        CREATE TABLE workspace_settings (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        """
    )


@migrations(name="m002_documents")
def m002_documents(db: Database) -> None:
    # Scenarios, retrieval suites and agent configs are JSON documents owned by core/;
    # the store keeps them whole, keyed by a user-visible unique name.
    for table in ("scenarios", "suites", "agents"):
        db.execute(
            f"""
            CREATE TABLE {table} (
                pk INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                data TEXT NOT NULL,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL,
                revision INTEGER NOT NULL DEFAULT 1
            )
            """
        )
    db.executescript(
        """
        CREATE TABLE suite_runs (
            pk INTEGER PRIMARY KEY,
            suite_name TEXT NOT NULL,
            run_at TEXT NOT NULL,
            passed INTEGER NOT NULL,
            failed INTEGER NOT NULL,
            result TEXT NOT NULL
        );
        CREATE INDEX suite_runs_suite ON suite_runs (suite_name, pk);
        """
    )


@migrations(name="m003_sessions")
def m003_sessions(db: Database) -> None:
    db.executescript(
        """
        CREATE TABLE sessions (
            pk INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL DEFAULT '',
            agent TEXT NOT NULL DEFAULT '',
            provider TEXT NOT NULL DEFAULT '',
            model TEXT NOT NULL DEFAULT '',
            status TEXT NOT NULL DEFAULT 'complete',
            created_at TEXT NOT NULL,
            doc TEXT NOT NULL
        );
        CREATE TABLE session_exchanges (
            pk INTEGER PRIMARY KEY,
            session_pk INTEGER NOT NULL REFERENCES sessions (pk) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            stage TEXT NOT NULL DEFAULT '',
            digest TEXT NOT NULL DEFAULT '',
            duration_ms REAL,
            prompt_tokens INTEGER,
            completion_tokens INTEGER,
            data TEXT NOT NULL,
            UNIQUE (session_pk, seq)
        );
        CREATE TABLE contextmap_snapshots (
            pk INTEGER PRIMARY KEY,
            agent TEXT NOT NULL DEFAULT '',
            session_id TEXT REFERENCES sessions (id) ON DELETE SET NULL,
            label TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            state TEXT NOT NULL,
            update_info TEXT
        );
        CREATE INDEX contextmap_snapshots_agent ON contextmap_snapshots (agent, pk);
        """
    )


@migrations(name="m004_revision_position")
def m004_revision_position(db: Database) -> None:
    # Where a deleted entry stood in catalog order, so undo and restore put it back there
    # (Ax renders and searches in catalog order).
    db.execute("ALTER TABLE revisions ADD COLUMN entry_pk INTEGER")


@migrations(name="m005_skill_extra")
def m005_skill_extra(db: Database) -> None:
    # What a skill carries beyond Ax's fields (SKILL.md frontmatter keys, resource files),
    # kept so folders round-trip through the workspace.
    db.execute("ALTER TABLE skills ADD COLUMN extra TEXT NOT NULL DEFAULT '{}'")


@migrations(name="m006_evals")
def m006_evals(db: Database) -> None:
    # Trigger eval sets are JSON documents owned by core/evals; each eval run keeps the set
    # as it was run and one record per agent run (the sessions themselves live in
    # `sessions`). A run row is written when the eval starts and rewritten after every
    # finished agent run, so a crash or a cancel keeps what was done.
    db.executescript(
        """
        CREATE TABLE evals (
            pk INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            data TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            revision INTEGER NOT NULL DEFAULT 1
        );
        CREATE TABLE eval_runs (
            pk INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            set_name TEXT NOT NULL,
            status TEXT NOT NULL,
            provider TEXT NOT NULL DEFAULT '',
            model TEXT NOT NULL DEFAULT '',
            started_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            data TEXT NOT NULL
        );
        CREATE INDEX eval_runs_set ON eval_runs (set_name, pk);
        """
    )


#: The trigram index of each entry table's filterable text (its name, its columns): the
#: lists' filter box matches substrings, which a plain table can answer only by reading
#: every row (100,000 memories: 70-150 ms a query, two queries a keystroke).
FIND_INDEXES: dict[str, tuple[str, tuple[str, ...]]] = {
    "skills": ("skills_find", ("id", "name", "description", "content", "tags")),
    "memories": ("memories_find", ("id", "content", "tags")),
}


@migrations(name="m007_find_index")
def m007_find_index(db: Database) -> None:
    # An external-content FTS5 table per kind, trigram-tokenized (substrings of three
    # characters and more, case folded) and without positions (`detail=none`: a fifth of
    # the size; the filter checks its candidates with LIKE anyway, so it needs no phrase
    # queries). The entry repository keeps it in step in each write's transaction (no
    # triggers: with `trusted_schema = OFF` a trigger may not write a virtual table), so
    # a row another program writes with raw SQL is not in it until a rebuild.
    for table, (index, columns) in FIND_INDEXES.items():
        cols = ", ".join(columns)
        db.executescript(
            f"""
            CREATE VIRTUAL TABLE {index} USING fts5(
                {cols}, content='{table}', content_rowid='pk',
                tokenize='trigram', detail='none'
            );
            INSERT INTO {index} ({index}) VALUES ('rebuild');
            """
        )


def known_migration_names() -> list[str]:
    return [m.name for m in migrations._migrations]


def latest_version() -> int:
    return len(known_migration_names())
